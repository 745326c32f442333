// SPDX-License-Identifier: Apache-2.0
// TaskGraph: the block tasks of a computation and their dependencies, in compact (CSR) form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace chunked::runtime {

/// Dense task id: 0, 1, 2... in the order tasks were added.
using TaskId = std::uint32_t;

/// A directed acyclic graph of opaque tasks, built by the planner and run by `run_graph`.
///
/// A task names only tasks added before it as dependencies, so ids are a topological order and a
/// cycle cannot be built. Among ready tasks the scheduler runs the lowest id first: the planner
/// numbers tasks so that running them in that order keeps memory bounded (each reduction partial
/// right after the blocks it consumes). Storage is a few flat arrays, so graphs of millions of
/// tasks are cheap.
///
/// @code
/// TaskGraph g;
/// TaskId a = g.add({});
/// TaskId b = g.add({});
/// TaskId sum = g.add({a, b}, -1, false);   // not counted as a block in Progress
/// @endcode
class TaskGraph {
public:
  /// Adds a task that may run once every task in `deps` has finished, and returns its id.
  /// `worker >= 0` pins it to that worker (one worker per GPU); -1 lets any worker run it.
  /// `is_block` tasks are counted in `Progress::blocks_total` and `blocks_done`.
  /// Repeated dependencies count once. Throws ValueError when a dependency is not an existing task,
  /// when `worker < -1`, or when the graph is full (2^32 - 1 tasks or edges).
  TaskId add(std::span<const TaskId> deps, int worker = -1, bool is_block = true);
  /// Adds a task that is one part of block `block` (numbered 0, 1, ... by the caller): the block
  /// counts once in Progress, done when its last part is.
  TaskId add_part(std::span<const TaskId> deps, int worker, std::uint32_t block);
  /// Same, with a braced list.
  TaskId add_part(std::initializer_list<TaskId> deps, int worker, std::uint32_t block) {
    return add_part(std::span<const TaskId>(deps.begin(), deps.size()), worker, block);
  }
  /// Same, with a braced list: `g.add({a, b})`.
  TaskId add(std::initializer_list<TaskId> deps, int worker = -1, bool is_block = true) {
    return add(std::span<const TaskId>(deps.begin(), deps.size()), worker, is_block);
  }

  /// Number of tasks.
  std::size_t size() const { return worker_.size(); }
  /// True when there are no tasks.
  bool empty() const { return worker_.empty(); }
  /// Number of dependency edges (after removing repeats).
  std::size_t num_edges() const { return deps_.size(); }
  /// Number of blocks: tasks added with `is_block = true`, and blocks of add_part().
  std::size_t num_blocks() const { return num_blocks_ + part_blocks_; }
  /// Largest pinned worker index, or -1 when no task is pinned.
  int max_worker() const { return max_worker_; }

  /// The tasks `task` depends on, in increasing order.
  std::span<const TaskId> dependencies(TaskId task) const {
    return {deps_.data() + dep_begin_[task], deps_.data() + dep_begin_[task + 1]};
  }
  /// The worker `task` is pinned to, or -1.
  int worker(TaskId task) const { return worker_[task]; }
  /// Whether `task` counts as a block for progress.
  bool is_block(TaskId task) const { return is_block_[task] == 1; }
  /// The block `task` is a part of (add_part), or -1.
  std::int64_t part_of(TaskId task) const {
    return is_block_[task] == 2 ? static_cast<std::int64_t>(part_block_[task]) : -1;
  }
  /// Per block of add_part(), its number of parts.
  std::span<const std::uint32_t> parts() const { return parts_; }

  /// Reserves room for `tasks` tasks and `edges` dependency edges.
  void reserve(std::size_t tasks, std::size_t edges);
  /// Removes every task.
  void clear();

private:
  std::vector<std::uint32_t> dep_begin_{
      0}; // task t's deps are deps_[dep_begin_[t], dep_begin_[t+1])
  std::vector<TaskId> deps_;
  std::vector<std::int32_t> worker_;
  std::vector<std::uint8_t> is_block_;    ///< 0: not counted, 1: a block, 2: a part of one
  std::vector<std::uint32_t> part_block_; ///< per task, its block when a part (else 0)
  std::vector<std::uint32_t> parts_;      ///< per block of add_part(), its parts
  std::size_t num_blocks_ = 0;
  std::size_t part_blocks_ = 0; ///< blocks of add_part() with at least one part
  int max_worker_ = -1;
};

} // namespace chunked::runtime
