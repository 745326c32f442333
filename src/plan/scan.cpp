// SPDX-License-Identifier: Apache-2.0
// Scans: the input's blocks (computed by their program, or read where they already are), then
// one scan task per block, chained along the scanned axis and independent along the others.
//
// Why a chain of whole-block tasks and no separate carry tasks: the scan task of block k writes
// carry(k) (+) local(k)[i] for every i along the axis, local(k) being the block's own scan in
// index order. Its last row is therefore carry(k) (+) last row of local(k), which is exactly the
// carry of block k + 1 by the rule of DESIGN 8.2 (the running total of the earlier blocks,
// combined in block order). So block k + 1 reads its carry from block k's output, and the order
// of every operation is fixed by the chunk grid alone. The first block along the axis has no
// carry and is its local scan (combining an identity would turn a -0.0 into +0.0). An exact scan
// (ComputeOptions::exact_sums) follows the same chain, its carry being the exact running sums
// that each task writes after its values (scan_block.hpp).
#include "plan/scan_block.hpp"
#include "planner.hpp"

#include <vector>

namespace chunked::plan::detail {

namespace {

/// Lines along `axis` of a block of `shape`: the product of its other extents.
index_t lines_of(const Shape& shape, index_t axis) {
  index_t lines = 1;
  for (int k = 0; k < shape.ndim(); ++k)
    if (k != axis)
      lines *= shape.extents()[static_cast<std::size_t>(k)];
  return lines;
}

} // namespace

std::vector<InputRef> Planner::plan_scan(const graph::NodePtr& n, Body body) {
  const auto& p = n->as<graph::ScanParams>();
  const graph::NodePtr& in = n->inputs[0];
  // The scan's grid is its input's, so the input's blocks (C order) are the scan's blocks; when
  // they are already planned and only copied, the scan reads them where they are.
  std::vector<InputRef> blocks =
      copies_blocks(body, in.get()) && blocks_of_.count(in.get())
          ? all_blocks(*in)
          : plan_elementwise(in, std::move(body), Output{Output::Kind::buffer, in->dtype, 0, -1},
                             nullptr);
  expect_tasks(*n, n->grid, 1);
  plan.scans.push_back(ScanStage{p.op, static_cast<int>(p.axis), n->dtype, n->grid});
  const auto scan = static_cast<std::uint32_t>(plan.scans.size() - 1);

  // In C order over the blocks, the block before b along the axis is b - stride.
  const auto per_axis = n->grid.blocks_per_axis();
  index_t stride = 1;
  for (std::size_t k = static_cast<std::size_t>(p.axis) + 1; k < per_axis.size(); ++k)
    stride *= per_axis[k];
  const index_t along = per_axis[static_cast<std::size_t>(p.axis)];
  const index_t nb = n->grid.numblocks();
  std::vector<InputRef> refs;
  refs.reserve(static_cast<std::size_t>(nb));
  for (index_t b = 0; b < nb; ++b) {
    std::vector<TaskId> deps;
    const auto begin = static_cast<std::uint32_t>(plan.inputs.size());
    auto read = [&](const InputRef& ref) {
      plan.inputs.push_back(TaskInput{ref, -1, {}, {}});
      if (ref.kind == InputRef::Kind::task)
        deps.push_back(ref.task);
    };
    read(blocks[static_cast<std::size_t>(b)]);
    if ((b / stride) % along > 0)
      read(refs[static_cast<std::size_t>(b - stride)]);
    const auto end = static_cast<std::uint32_t>(plan.inputs.size());
    const Shape shape = n->grid.block_shape(n->grid.block_index(b));
    const index_t lines = lines_of(shape, p.axis);
    const index_t elements = scan_output_elements(p.op, n->dtype, shape.size(), lines);
    const TaskId id = add_task(Task{TaskKind::scan, scan, b, begin, end,
                                    Output{Output::Kind::buffer, n->dtype, elements, -1}},
                               std::move(deps));
    refs.push_back(InputRef{InputRef::Kind::task, id, nullptr});
  }
  return refs;
}

} // namespace chunked::plan::detail
