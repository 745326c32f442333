// SPDX-License-Identifier: Apache-2.0
// TaskGraph construction and validation.
#include "runtime/task_graph.hpp"

#include <chunked/core/error.hpp>

#include <algorithm>
#include <limits>
#include <string>

namespace chunked::runtime {

namespace {
constexpr std::size_t max_count = std::numeric_limits<std::uint32_t>::max();
} // namespace

TaskId TaskGraph::add(std::span<const TaskId> deps, int worker, bool is_block) {
  const std::size_t id = size();
  if (id >= max_count)
    throw ValueError("TaskGraph::add: the graph already holds " + std::to_string(id) +
                     " tasks, the most a TaskId can number");
  if (worker < -1)
    throw ValueError("TaskGraph::add: worker " + std::to_string(worker) +
                     " is invalid; expected -1 (any worker) or a worker index >= 0");
  for (TaskId d : deps)
    if (d >= id)
      throw ValueError("TaskGraph::add: dependency " + std::to_string(d) +
                       " is not an existing task; the graph has " + std::to_string(id) +
                       " tasks and a task may depend only on tasks added before it");
  if (deps_.size() + deps.size() > max_count)
    throw ValueError("TaskGraph::add: the graph would exceed " + std::to_string(max_count) +
                     " dependency edges");

  const std::size_t begin = deps_.size();
  deps_.insert(deps_.end(), deps.begin(), deps.end());
  // Sorted, unique dependencies make the join counters and consumer counts agree trivially.
  if (deps.size() > 1) {
    std::sort(deps_.begin() + static_cast<std::ptrdiff_t>(begin), deps_.end());
    deps_.erase(std::unique(deps_.begin() + static_cast<std::ptrdiff_t>(begin), deps_.end()),
                deps_.end());
  }
  dep_begin_.push_back(static_cast<std::uint32_t>(deps_.size()));
  worker_.push_back(worker);
  is_block_.push_back(is_block ? 1 : 0);
  part_block_.push_back(0);
  num_blocks_ += is_block ? 1 : 0;
  max_worker_ = std::max(max_worker_, worker);
  return static_cast<TaskId>(id);
}

TaskId TaskGraph::add_part(std::span<const TaskId> deps, int worker, std::uint32_t block) {
  const TaskId id = add(deps, worker, false);
  is_block_[id] = 2;
  part_block_[id] = block;
  if (parts_.size() <= block)
    parts_.resize(static_cast<std::size_t>(block) + 1, 0);
  part_blocks_ += parts_[block]++ == 0 ? 1 : 0;
  return id;
}

void TaskGraph::reserve(std::size_t tasks, std::size_t edges) {
  dep_begin_.reserve(tasks + 1);
  worker_.reserve(tasks);
  is_block_.reserve(tasks);
  part_block_.reserve(tasks);
  deps_.reserve(edges);
}

void TaskGraph::clear() {
  dep_begin_.assign(1, 0);
  deps_.clear();
  worker_.clear();
  is_block_.clear();
  part_block_.clear();
  parts_.clear();
  num_blocks_ = 0;
  part_blocks_ = 0;
  max_worker_ = -1;
}

} // namespace chunked::runtime
