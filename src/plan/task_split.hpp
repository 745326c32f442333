// SPDX-License-Identifier: Apache-2.0
// Splitting large blocks into several tasks, so that an array of few blocks keeps every core busy.
#pragma once

#include <chunked/core/chunk_grid.hpp>

#include <cstdint>

namespace chunked::plan {

/// How finely a plan cuts its program tasks where an array has few blocks: a reduction's along
/// its reduced axes (their partials are combined anyway, and the output blocks stay the same),
/// a result written into a caller's array along any axis (each task writes its own box), and a
/// materialised block along any axis into pieces written into one buffer (Output::Kind::piece),
/// so that the block is still one buffer.
struct TaskSplit {
  /// Such a stage gets at least this many tasks where its blocks are large enough; 1 (the
  /// default) keeps one task per block. A constant, not the thread count: the tasks of a
  /// reduction fix its order of operations, and results must not depend on the thread count.
  index_t min_tasks = 1;
  /// No task made by splitting iterates over fewer elements than this (unless its block does).
  index_t min_task_elements = index_t{1} << 16;
  /// Nor reads contiguous runs shorter than this where its block read longer ones: an axis is
  /// cut only into pieces that, times the extents of the axes inside it, keep this many
  /// elements.
  index_t min_run_elements = 512;
  /// The threads that will run the plan, for the one kind of stage whose results do not depend
  /// on its tasks: exact sums (correctly rounded whatever the order). Their partials are large,
  /// which keeps their tasks few; with this known, a stage with fewer tasks than threads is cut
  /// finer, down to a task per thread. 0: not known, or the plan must not depend on it (the
  /// ranks of a cluster agree on one plan).
  index_t workers = 0;
};

/// The grid of `grid`'s blocks cut along the axes in `axes` (bit k for axis k), the outermost
/// first, into near-equal pieces until the grid has `split.min_tasks` blocks or no axis can be
/// cut further; an axis takes as many pieces per block as reach min_tasks before the next axis
/// is cut. Pieces of one block stay inside it, in order, so a piece reads what its block read.
/// Depends on the grid alone.
ChunkGrid split_for_tasks(const ChunkGrid& grid, std::uint32_t axes, const TaskSplit& split);

} // namespace chunked::plan
