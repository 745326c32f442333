// SPDX-License-Identifier: Apache-2.0
// The CPU's exact cumsum of one block (ComputeOptions::exact_sums).
#pragma once

#include "plan/scan_block.hpp"

namespace chunked::cpu {

/// Writes into `out` the exact cumsum of `in` (`b.size()` values of `dtype`, float or double)
/// along the axis of `b`: each element the correctly rounded sum of its line up to it, from the
/// exact sums that `carry` (the output of the block before along the axis; ignored when
/// b.carry_length is 0) holds after its values, and after its own values the lines' exact sums
/// to the block's end (plan::exact_state_offset). Every prefix is exact before it is rounded, so
/// the bits depend on the data alone, never on the chunking.
void exact_scan_block(DType dtype, const plan::ScanBlock& b, const void* in, const void* carry,
                      void* out);

} // namespace chunked::cpu
