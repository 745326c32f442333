// SPDX-License-Identifier: Apache-2.0
// The tasks of a program stored as blocks or written into a destination: one per box of the
// grid the split asks for, and where that cuts a materialised block into pieces, a join per
// block that its readers wait for.
#include "planner.hpp"

#include <vector>

namespace chunked::plan::detail {

namespace {

/// Records task `id` as the next block of the array: its readers' input, and for persist() the
/// block's task.
void add_block(std::vector<InputRef>& refs, std::vector<TaskId>* task_ids, TaskId id) {
  refs.push_back(InputRef{InputRef::Kind::task, id, nullptr});
  if (task_ids)
    task_ids->push_back(id);
}

} // namespace

std::vector<InputRef> Planner::plan_elementwise(const graph::NodePtr& n, Body body,
                                                const Output& out_template,
                                                std::vector<TaskId>* task_ids) {
  body.prog.sink.kind = Sink::Kind::store;
  const auto every_axis = static_cast<std::uint32_t>((std::uint64_t{1} << n->shape.ndim()) - 1);
  const ChunkGrid grid = split_for_tasks(n->grid, every_axis, split_);
  // A task per box of the grid, and for blocks cut into pieces a join per block.
  expect_tasks(*n, grid, 2);
  const std::uint32_t stage = add_stage(std::move(body), grid);
  mark_cut(stage, grid, n->grid);
  if (out_template.kind != Output::Kind::destination && grid != n->grid)
    return plan_pieces(*n, stage, grid, task_ids);
  // Each task writes its own box of the destination, so any boxes will do; or one task per
  // block.
  std::vector<InputRef> refs;
  const index_t nb = grid.numblocks();
  for (index_t b = 0; b < nb; ++b) {
    Output out = out_template;
    if (out.kind == Output::Kind::buffer)
      out.elements = grid.block_shape(grid.block_index(b)).size();
    add_block(refs, task_ids, add_program_task(stage, b, out));
  }
  return refs;
}

std::vector<InputRef> Planner::plan_pieces(const graph::Node& n, std::uint32_t stage,
                                           const ChunkGrid& grid, std::vector<TaskId>* task_ids) {
  // Each block's pieces (C order), then its join, which readers of the block depend on.
  const int nd = static_cast<int>(n.shape.ndim());
  const index_t nb = n.grid.numblocks();
  std::vector<index_t> first(nd), last(nd), at(nd);
  std::vector<InputRef> refs;
  for (index_t b = 0; b < nb; ++b) {
    Output out{Output::Kind::piece, n.dtype, 1, -1};
    block_box(n.grid, b, nd, out.origin, out.extent);
    for (int k = 0; k < nd; ++k) {
      out.elements *= out.extent[k];
      first[k] = grid.block_containing(k, out.origin[k]);
      last[k] = grid.block_containing(k, out.origin[k] + out.extent[k] - 1);
    }
    std::vector<TaskId> pieces;
    at = first;
    do
      pieces.push_back(add_program_task(stage, grid.block_number(at), out));
    while (next_in_box(at, first, last));
    Task join;
    join.kind = TaskKind::join;
    join.output = Output{Output::Kind::buffer, n.dtype, out.elements, -1};
    const TaskId id = add_task(join, pieces);
    for (const TaskId t : pieces)
      plan.tasks[t].output.owner = id;
    add_block(refs, task_ids, id);
  }
  return refs;
}

} // namespace chunked::plan::detail
