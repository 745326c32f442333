// SPDX-License-Identifier: Apache-2.0
// The geometry of one scan task's block, shared by every backend's scan kernels.
#pragma once

#include "plan/plan.hpp"

#include <cstddef>
#include <cstdint>

namespace chunked::plan {

/// A block seen as (outer, length, inner) in C order around the scanned axis: element (o, i, j)
/// is at (o * length + i) * inner + j, i along the axis. The carry block (the output of the
/// block before along the axis, when there is one) has the same outer and inner extents and
/// `carry_length` positions along the axis; its row carry_length - 1 is the carried prefix.
struct ScanBlock {
  index_t outer = 1;
  index_t length = 0;
  index_t inner = 1;
  index_t carry_length = 0; ///< 0: the first block along the axis, which has no carry
  index_t size() const { return outer * length * inner; }
  index_t lines() const { return outer * inner; } ///< lines along the axis
};

/// An exact scan (graph::ScanParams::Op::exact_sum, what ComputeOptions::exact_sums makes of a
/// floating cumsum) carries each line's running sum across blocks exactly, not as the rounded last
/// row: its output holds, after the block's values, one exact entry (the ReduceOp::exact_sum
/// partial layout) per line (outer, inner) in C order, the line's exact sum up to the block's end.
/// They start at this byte offset, the first multiple of 8 after `values` values of `dtype`.
inline std::size_t exact_state_offset(index_t values, DType dtype) {
  const std::size_t bytes = static_cast<std::size_t>(values) * dtype_size(dtype);
  return (bytes + 7) / 8 * 8;
}

/// The line states of an exact scan's output `out` (after b.size() values of `dtype`).
inline std::int64_t* exact_states(void* out, const ScanBlock& b, DType dtype) {
  return reinterpret_cast<std::int64_t*>(static_cast<std::byte*>(out) +
                                         exact_state_offset(b.size(), dtype));
}

/// The line states of the carry block of b (the output of the block before along the axis), or
/// nullptr for the first block along the axis.
inline const std::int64_t* exact_carried_states(const void* carry, const ScanBlock& b,
                                                DType dtype) {
  if (b.carry_length == 0)
    return nullptr;
  return reinterpret_cast<const std::int64_t*>(
      static_cast<const std::byte*>(carry) +
      exact_state_offset(b.outer * b.carry_length * b.inner, dtype));
}

/// Int64 words of the exact state of one line.
inline constexpr int exact_state_words = partial_layout(ReduceOp::exact_sum, DType::float64).words;

/// Elements of `dtype` in a scan task's output: the block's `values`, and for an exact scan the
/// states of its `lines` after them.
inline index_t scan_output_elements(graph::ScanParams::Op op, DType dtype, index_t values,
                                    index_t lines) {
  if (op != graph::ScanParams::Op::exact_sum)
    return values;
  const std::size_t bytes =
      exact_state_offset(values, dtype) + static_cast<std::size_t>(lines) * exact_state_words * 8u;
  return static_cast<index_t>(bytes / dtype_size(dtype));
}

/// The geometry of scan task `task` of `plan`.
inline ScanBlock scan_block(const Plan& plan, const Task& task) {
  const ScanStage& sc = plan.scans[task.index];
  std::vector<index_t> idx = sc.grid.block_index(task.block);
  const Shape shape = sc.grid.block_shape(idx);
  ScanBlock b;
  for (int k = 0; k < shape.ndim(); ++k) {
    const index_t e = shape.extents()[static_cast<std::size_t>(k)];
    if (k < sc.axis)
      b.outer *= e;
    else if (k == sc.axis)
      b.length = e;
    else
      b.inner *= e;
  }
  const auto a = static_cast<std::size_t>(sc.axis);
  if (task.inputs_end - task.inputs_begin > 1 && idx[a] > 0)
    b.carry_length = sc.grid.lengths(sc.axis)[static_cast<std::size_t>(idx[a] - 1)];
  return b;
}

} // namespace chunked::plan
