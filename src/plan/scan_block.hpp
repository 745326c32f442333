// SPDX-License-Identifier: Apache-2.0
// The geometry of one scan task's block, shared by every backend's scan kernels.
#pragma once

#include "plan/plan.hpp"

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
};

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
