// SPDX-License-Identifier: Apache-2.0
// The CPU's scan of one block along an axis, with the carried prefix of the blocks before it.
#pragma once

#include "plan/scan_block.hpp"

namespace chunked::cpu {

/// Writes into `out` the scan of `in` (`b.size()` values of `dtype`: int64, float or double)
/// along the axis of `b` in index order, each element then combined with the carry, the row
/// b.carry_length - 1 of `carry` (ignored when b.carry_length is 0). int64 wraps on overflow.
/// The order of operations depends on `b` alone, never on how the loops are vectorised. An exact
/// cumsum (Op::exact_sum) is exact_scan_block's.
void scan_block(graph::ScanParams::Op op, DType dtype, const plan::ScanBlock& b, const void* in,
                const void* carry, void* out);

} // namespace chunked::cpu
