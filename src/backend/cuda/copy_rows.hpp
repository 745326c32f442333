// SPDX-License-Identifier: Apache-2.0
// A precompiled copy of a box whose innermost axis is contiguous on both sides (the pieces of
// halo gathers, reshapes and concatenations), row by row at the device's copy rate.
#pragma once

#include "backend/cuda/runtime.hpp"
#include "plan/block_program.hpp"

#include <cstddef>

namespace chunked::cuda {

/// Rows shorter than this go to the program's own kernel: a row-wise copy would leave most of a
/// warp idle on them.
inline constexpr index_t copy_rows_min_row = 64;

/// Whether `p` is a plain copy (one stored leaf, no operation, a store) whose innermost axis
/// steps by one element in the source and the destination, with rows of at least
/// copy_rows_min_row elements of 1, 2, 4 or 8 bytes.
bool copies_rows(const plan::BlockProgram& p);

/// Whether `p` is such a copy (copies_rows(p)) whose whole box is one run of elements in the
/// source and the destination: copy_rows then moves it with one device-to-device memcpy.
bool copies_one_run(const plan::BlockProgram& p);

/// Enqueues on `stream` that memcpy of the copy `p` (copies_one_run(p) must hold), elements of
/// `esize` bytes.
void copy_one_run(const plan::BlockProgram& p, const void* in, void* out, std::size_t esize,
                  const Stream& stream);

/// Enqueues on `stream` the copy that `p` describes (copies_rows(p) must hold): the box of `p`
/// read from `in` at its leaf's map, written to `out` at its sink's map, elements of `esize`
/// bytes.
void copy_rows(const plan::BlockProgram& p, const void* in, void* out, std::size_t esize,
               const Stream& stream);

} // namespace chunked::cuda
