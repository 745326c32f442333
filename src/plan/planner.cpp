// SPDX-License-Identifier: Apache-2.0
// The planner's core: each request lowered to a program, what it reads materialised first (each
// node before its readers), the task list and its bookkeeping, and make_plan. The passes it
// calls live in their own files (planner.hpp).
#include "planner.hpp"

#include "core/checked.hpp"
#include "core/memory_budget.hpp"
#include "plan/task_order.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

namespace chunked::plan {

namespace detail {

using graph::Node;
using graph::NodeKind;
using graph::NodePtr;

Body Planner::lower_root(const NodePtr& n) {
  const int ndim = static_cast<int>(n->shape.ndim());
  const bool itself = n->kind != NodeKind::stored && n->kind != NodeKind::reduce &&
                      n->kind != NodeKind::assemble && n->kind != NodeKind::scan &&
                      n->kind != NodeKind::user && n->kind != NodeKind::source &&
                      n->kind != NodeKind::contract;
  Body body;
  if (!itself) {
    lower_program(n, ndim, false, forced_, body); // one stored leaf
    return body;
  }
  // A program within the caps is lowered as it is. Past them, intermediates are stored: first
  // counting constants as free (equal ones share a leaf), then, should distinct constants still
  // pass the leaf cap, counting each; after that every program is within the caps.
  for (const bool count_constants : {false, true}) {
    const Cuts cuts = plan_cuts(n.get(), count_constants, forced_);
    if (!count_constants && cuts.distinct_fit) {
      if (lower_program(n, ndim, true, forced_, body))
        return body;
      body = Body{};
    }
    forced_.insert(cuts.stored.begin(), cuts.stored.end());
    if (lower_program(n, ndim, true, forced_, body))
      return body;
    body = Body{};
  }
  throw ValueError("internal: a program exceeds the size cap and cannot be split");
}

Body Planner::materialize_program(const NodePtr& n) {
  // Borrowed memory is read in place by programs; only readers of whole C-order blocks
  // (reshapes, concatenations, user functions) get copies of its blocks, made by this program.
  if (graph::is_borrowed(*n))
    return lower_root(n);
  if (n->kind == NodeKind::stored || n->kind == NodeKind::source)
    return Body{};
  if (n->kind == NodeKind::assemble) {
    // No program: its tasks copy pieces of its inputs' blocks, which are planned first.
    Body reads;
    for (const NodePtr& in : n->inputs)
      reads.stored.push_back(StoredLeafInfo{-1, in, {}});
    return reads;
  }
  if (n->kind == NodeKind::scan)
    return lower_root(n->inputs[0]); // the program computing the blocks to scan
  if (n->kind == NodeKind::user)
    return user_reads(*n);
  if (n->kind == NodeKind::contract)
    return contract_reads(*n);
  if (n->kind != NodeKind::reduce)
    return lower_root(n);
  // A mean, var or std whose shared moments pass is planned already only finalizes it.
  if (const auto* shared = shared_moments(*n); shared && !shared->empty())
    return Body{};
  return lower_root(n->inputs[0]);
}

void Planner::materialize_reads(const Body& body) {
  struct Pending {
    NodePtr node;
    std::optional<Body> program; ///< lowered, its reads pushed above it
  };
  std::vector<Pending> stack;
  // Reads are planned in the order the program met them. `b` may live in the stack: the nodes
  // are taken before the stack grows.
  auto push_reads = [&](const Body& b) {
    std::vector<NodePtr> reads;
    for (auto it = b.stored.rbegin(); it != b.stored.rend(); ++it)
      if (!blocks_of_.count(it->node.get()) && !(it->leaf >= 0 && graph::is_borrowed(*it->node)))
        reads.push_back(it->node);
    for (NodePtr& node : reads)
      stack.push_back(Pending{std::move(node), std::nullopt});
  };
  push_reads(body);
  while (!stack.empty()) {
    const NodePtr node = stack.back().node;
    if (blocks_of_.count(node.get())) {
      stack.pop_back();
      continue;
    }
    if (!stack.back().program) {
      stack.back().program = materialize_program(node);
      const std::size_t at = stack.size() - 1;
      push_reads(*stack[at].program);
      if (stack.size() > at + 1)
        continue;
    }
    Body program = std::move(*stack.back().program);
    stack.pop_back();
    std::vector<InputRef> refs = materialize_tasks(node, std::move(program));
    blocks_of_.emplace(node.get(), std::move(refs));
  }
}

std::vector<InputRef> Planner::materialize_tasks(const NodePtr& n, Body body) {
  if (graph::is_borrowed(*n))
    return plan_elementwise(n, std::move(body), Output{Output::Kind::buffer, n->dtype, 0, -1},
                            nullptr);
  if (n->kind == NodeKind::stored) {
    std::vector<InputRef> refs;
    for (const auto& b : n->as<graph::StoredParams>().data->blocks)
      refs.push_back(InputRef{InputRef::Kind::stored, 0, b.get()});
    return refs;
  }
  if (n->kind == NodeKind::source)
    return plan_source(*n);
  if (n->kind == NodeKind::reduce)
    return plan_reduce(n, std::move(body));
  if (n->kind == NodeKind::assemble)
    return plan_assemble(n);
  if (n->kind == NodeKind::scan)
    return plan_scan(n, std::move(body));
  if (n->kind == NodeKind::user)
    return plan_user(*n);
  if (n->kind == NodeKind::contract)
    return plan_contract(*n);
  return plan_elementwise(n, std::move(body), Output{Output::Kind::buffer, n->dtype, 0, -1},
                          nullptr);
}

void Planner::expect_tasks(const Node& n, const ChunkGrid& grid, std::uint64_t per_box) const {
  // What planning and running keep per task: the task and its dependency list, its inputs, the
  // copies that ordering makes, and the runtime's graph, counters and output slot.
  constexpr std::uint64_t bytes_per_task = 640;
  const std::uint64_t tasks =
      plan.tasks.size() + per_box * static_cast<std::uint64_t>(grid.numblocks());
  const bool fits = chunked::detail::bookkeeping_fits(tasks, bytes_per_task);
  if (fits && tasks < std::numeric_limits<TaskId>::max())
    return;
  const std::string what = "planning an array of shape " + n.shape.to_string() + " in " +
                           std::to_string(grid.numblocks()) + " blocks";
  constexpr std::string_view advice = "use larger chunks: every block is at least one task";
  if (!fits)
    chunked::detail::throw_bookkeeping_too_large(tasks, bytes_per_task, what, "tasks", advice);
  throw OutOfMemory(what + " needs " + std::to_string(tasks) + " tasks, more than the " +
                    std::to_string(std::numeric_limits<TaskId>::max()) + " a plan can number; " +
                    std::string(advice));
}

TaskId Planner::add_task(Task t, std::vector<TaskId> deps) {
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  plan.tasks.push_back(t);
  plan.deps.push_back(std::move(deps));
  return static_cast<TaskId>(plan.tasks.size() - 1);
}

TaskId Planner::add_combine_task(std::uint32_t comb, index_t block,
                                 const std::vector<TaskId>& parts, const Output& output) {
  const auto begin = static_cast<std::uint32_t>(plan.combine_inputs.size());
  for (TaskId id : parts)
    plan.combine_inputs.push_back(InputRef{InputRef::Kind::task, id, nullptr});
  const auto end = static_cast<std::uint32_t>(plan.combine_inputs.size());
  return add_task(Task{TaskKind::combine, comb, block, begin, end, output}, parts);
}

TaskId Planner::add_program_task(std::uint32_t stage, index_t block, const Output& output) {
  std::vector<TaskId> deps;
  const auto begin = static_cast<std::uint32_t>(plan.inputs.size());
  add_program_inputs(stage, block, deps);
  const auto end = static_cast<std::uint32_t>(plan.inputs.size());
  return add_task(Task{TaskKind::program, stage, block, begin, end, output}, std::move(deps));
}

void Planner::mark_cut(std::uint32_t stage, const ChunkGrid& cut, const ChunkGrid& blocks) {
  if (cut == blocks)
    return;
  plan.stages[stage].cut = true;
  plan.stages[stage].blocks = blocks;
}

std::uint32_t Planner::add_stage(Body body, const ChunkGrid& grid) {
  Stage st;
  st.program = std::move(body.prog);
  st.grid = grid;
  for (std::size_t j = 0; j < body.stored.size(); ++j) {
    st.stored_leaves.push_back(body.stored[j].leaf);
    st.program.leaves[body.stored[j].leaf].input = static_cast<int>(j);
  }
  plan.stages.push_back(std::move(st));
  stage_reads_.push_back(std::move(body.stored));
  return static_cast<std::uint32_t>(plan.stages.size() - 1);
}

bool Planner::planned_blocks(const graph::Node& n, const Body& body, std::vector<TaskId>& ids) {
  // A node read from memory (a scan, user blocks, assembled blocks, loaded blocks) whose every
  // block is the buffer of one task is persisted as those buffers: the executors keep result
  // buffers even when other tasks read them too (a scan's next block reads its carry), so no
  // block is copied.
  if (!blocks_of_.count(&n) || !copies_blocks(body, &n))
    return false;
  std::vector<TaskId> found;
  for (const InputRef& ref : all_blocks(n)) {
    if (ref.kind != InputRef::Kind::task)
      return false;
    const Output& out = plan.tasks[ref.task].output;
    if (out.kind != Output::Kind::buffer || out.dtype != n.dtype)
      return false;
    found.push_back(ref.task);
  }
  // Each result block must be a buffer of its own.
  std::vector<TaskId> sorted = found;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return false;
  ids = std::move(found);
  return true;
}

void Planner::request(const Request& r) {
  if (r.kind == Request::Kind::destination &&
      (r.destination.shape != r.node->shape || r.destination.dtype != r.node->dtype))
    throw ShapeError("destination of shape " + r.destination.shape.to_string() + " and dtype " +
                     std::string(dtype_name(r.destination.dtype)) + " does not match the array's " +
                     r.node->shape.to_string() + " " + std::string(dtype_name(r.node->dtype)));
  plan.roots.push_back(r.node);
  if (!r.destination.strides.empty()) {
    if (r.node->kind != NodeKind::user || !r.node->as<graph::UserParams>().fn->strided)
      throw ValueError("internal: a strided destination is written only by a user function "
                       "that takes strided views");
    // A persisted stencil: its user tasks write their blocks into the one strided buffer.
    materialize_reads(user_reads(*r.node));
    plan.destinations.push_back(r.destination);
    plan_user(*r.node, static_cast<int>(plan.destinations.size() - 1));
    plan.result_blocks.emplace_back();
    return;
  }
  Body body = lower_root(r.node);
  materialize_reads(body);
  if (r.kind != Request::Kind::destination) {
    std::vector<TaskId> ids;
    if (!planned_blocks(*r.node, body, ids))
      plan_elementwise(r.node, std::move(body), Output{Output::Kind::buffer, r.node->dtype, 0, -1},
                       &ids);
    if (r.kind == Request::Kind::write) {
      // The blocks are freed once written: the write tasks are their last readers.
      add_writes(*r.node, r.sink, ids);
      ids.clear();
    }
    plan.result_blocks.push_back(std::move(ids));
    return;
  }
  plan.destinations.push_back(r.destination);
  Output out;
  out.kind = Output::Kind::destination;
  out.dtype = r.node->dtype;
  out.destination = static_cast<int>(plan.destinations.size() - 1);
  plan_elementwise(r.node, std::move(body), out, nullptr);
  plan.result_blocks.emplace_back();
}

} // namespace detail

Plan make_plan(const std::vector<Request>& requests, const TaskSplit& split) {
  return chunked::detail::reporting_out_of_memory(
      "planning " + std::to_string(requests.size()) + " array(s)",
      "use larger chunks, so that there are fewer blocks and tasks", [&] {
        detail::Planner p(split);
        p.find_shared_moments(requests);
        for (const auto& r : requests)
          p.request(r);
        order_for_locality(p.plan);
        return std::move(p.plan);
      });
}

} // namespace chunked::plan
