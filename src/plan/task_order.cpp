// SPDX-License-Identifier: Apache-2.0
// Renumbering a plan's tasks in the order of the results they lead to (task_order.hpp).
#include "plan/task_order.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

namespace chunked::plan {

namespace {

/// Per task, its position in the post-order of a depth-first walk from the results (lowest id
/// first, dependencies in order): each task right after the inputs it is the first to read. A
/// plan with assemble tasks (reshape, concatenate) takes it as the order within one result:
/// there, one result (a reduction of a reshape) may read every block of the input, and id order
/// would compute all the input's blocks before the first copy; the walk assembles each output
/// block right after the input blocks it needs, so those are freed as it goes.
std::vector<TaskId> walk_order(const Plan& plan, const std::vector<TaskId>& first) {
  const std::size_t n = plan.tasks.size();
  constexpr TaskId none = ~TaskId{0};
  std::vector<TaskId> pos(n, none);
  std::vector<bool> pushed(n, false);
  std::vector<std::pair<TaskId, std::size_t>> stack;
  TaskId next = 0;
  for (std::size_t r = 0; r < n; ++r) {
    if (first[r] != r || pushed[r])
      continue;
    stack.emplace_back(static_cast<TaskId>(r), 0);
    pushed[r] = true;
    while (!stack.empty()) {
      auto& [u, i] = stack.back();
      if (i < plan.deps[u].size()) {
        const TaskId d = plan.deps[u][i++];
        if (!pushed[d]) {
          pushed[d] = true;
          stack.emplace_back(d, 0);
        }
        continue;
      }
      pos[u] = next++;
      stack.pop_back();
    }
  }
  return pos;
}

} // namespace

void order_for_locality(Plan& plan) {
  const std::size_t n = plan.tasks.size();
  if (n < 2)
    return;
  // first[t]: the lowest id among the results t leads to (its own id when nothing reads it).
  // Ids are topological, so one pass from the last task down sees every reader before its input.
  constexpr TaskId none = ~TaskId{0};
  std::vector<TaskId> first(n, none);
  for (std::size_t t = n; t-- > 0;) {
    if (first[t] == none)
      first[t] = static_cast<TaskId>(t);
    for (const TaskId d : plan.deps[t])
      first[d] = std::min(first[d], first[t]);
  }
  // Within one result, id order; the depth-first walk where the plan assembles blocks (reshape
  // helper: see walk_order).
  std::vector<TaskId> second(n);
  for (std::size_t t = 0; t < n; ++t)
    second[t] = static_cast<TaskId>(t);
  if (std::any_of(plan.tasks.begin(), plan.tasks.end(),
                  [](const Task& t) { return t.kind == TaskKind::assemble; }))
    second = walk_order(plan, first);
  bool ordered = true;
  for (std::size_t t = 1; t < n && ordered; ++t)
    ordered = first[t - 1] < first[t] || (first[t - 1] == first[t] && second[t - 1] <= second[t]);
  if (ordered)
    return; // the ids already run results one after another

  // Kahn's algorithm taking the ready task with the lowest (first result, second, id).
  std::vector<std::vector<TaskId>> successors(n);
  std::vector<std::uint32_t> waiting(n);
  for (std::size_t t = 0; t < n; ++t) {
    waiting[t] = static_cast<std::uint32_t>(plan.deps[t].size());
    for (const TaskId d : plan.deps[t])
      successors[d].push_back(static_cast<TaskId>(t));
  }
  using Key = std::tuple<TaskId, TaskId, TaskId>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> ready;
  for (std::size_t t = 0; t < n; ++t)
    if (waiting[t] == 0)
      ready.emplace(first[t], second[t], static_cast<TaskId>(t));
  std::vector<TaskId> new_id(n), old_of(n);
  for (TaskId next = 0; !ready.empty(); ++next) {
    const TaskId t = std::get<2>(ready.top());
    ready.pop();
    new_id[t] = next;
    old_of[next] = t;
    for (const TaskId s : successors[t])
      if (--waiting[s] == 0)
        ready.emplace(first[s], second[s], s);
  }

  auto renumber = [&](InputRef& ref) {
    if (ref.kind == InputRef::Kind::task)
      ref.task = new_id[ref.task];
  };
  std::vector<Task> tasks(n);
  std::vector<std::vector<TaskId>> deps(n);
  for (std::size_t k = 0; k < n; ++k) {
    const TaskId t = old_of[k];
    tasks[k] = plan.tasks[t];
    if (tasks[k].output.kind == Output::Kind::piece)
      tasks[k].output.owner = new_id[tasks[k].output.owner];
    deps[k] = std::move(plan.deps[t]);
    for (TaskId& d : deps[k])
      d = new_id[d];
    std::sort(deps[k].begin(), deps[k].end());
  }
  plan.tasks = std::move(tasks);
  plan.deps = std::move(deps);
  for (TaskInput& in : plan.inputs)
    renumber(in.ref);
  for (InputRef& ref : plan.combine_inputs)
    renumber(ref);
  for (auto& pieces : plan.gathers)
    for (GatherPiece& piece : pieces)
      renumber(piece.source);
  for (auto& blocks : plan.result_blocks)
    for (TaskId& t : blocks)
      t = new_id[t];
}

} // namespace chunked::plan
