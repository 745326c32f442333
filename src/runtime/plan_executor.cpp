// SPDX-License-Identifier: Apache-2.0
// The executor code every backend shares (plan_executor.hpp).
#include "runtime/plan_executor.hpp"
#include "runtime/distributed/distribution.hpp"
#include "runtime/distributed/run.hpp"
#include "runtime/partition.hpp"
#include "runtime/spill.hpp"

namespace chunked::runtime {

std::vector<std::vector<plan::TaskId>> consumer_lists(const plan::Plan& plan) {
  std::vector<std::vector<plan::TaskId>> consumers(plan.tasks.size());
  for (std::size_t t = 0; t < plan.tasks.size(); ++t)
    for (plan::TaskId dep : plan.deps[t])
      consumers[dep].push_back(static_cast<plan::TaskId>(t));
  return consumers;
}

TaskGraph task_graph(const plan::Plan& plan, std::span<const int> worker, const LocalTasks* local) {
  TaskGraph graph;
  std::size_t edges = 0;
  for (const auto& deps : local ? local->deps : plan.deps)
    edges += deps.size();
  graph.reserve(plan.tasks.size(), edges);
  // Per cut stage, the number of its first block among the graph's blocks of parts.
  std::vector<std::uint32_t> first_block(plan.stages.size(), 0);
  std::uint32_t part_blocks = 0;
  for (std::size_t s = 0; s < plan.stages.size(); ++s)
    if (plan.stages[s].cut) {
      first_block[s] = part_blocks;
      part_blocks += static_cast<std::uint32_t>(plan.stages[s].blocks.numblocks());
    }
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const plan::Task& task = plan.tasks[i];
    const bool here = !local || local->here[i] != 0;
    const int w = worker.empty() || !here ? -1 : worker[i];
    const bool program = here && task.kind == plan::TaskKind::program;
    const auto& deps = local ? local->deps[i] : plan.deps[i];
    if (program && plan.stages[task.index].cut)
      graph.add_part(deps, w,
                     first_block[task.index] + static_cast<std::uint32_t>(block_of_cut_box(
                                                   plan.stages[task.index], task.block)));
    else
      graph.add(deps, w, program);
  }
  return graph;
}

std::optional<plan::TaskId> destination_copy(const plan::Plan& plan, plan::TaskId combine,
                                             std::span<const plan::TaskId> consumers,
                                             plan::BlockProgram& copy) {
  const plan::Task& c = plan.tasks[combine];
  if (!plan::finalizing_combine(plan, c) || c.output.elements <= 0 || consumers.size() != 1)
    return std::nullopt;
  const plan::TaskId id = consumers[0];
  const plan::Task& task = plan.tasks[id];
  if (task.kind != plan::TaskKind::program || task.output.kind != plan::Output::Kind::destination ||
      task.inputs_end - task.inputs_begin != 1)
    return std::nullopt;
  const plan::InputRef& ref = plan.inputs[task.inputs_begin].ref;
  if (ref.kind != plan::InputRef::Kind::task || ref.task != combine)
    return std::nullopt;
  plan.instantiate(id, copy);
  if (!copy.instrs.empty() || copy.leaves.size() != 1 ||
      copy.sink.kind != plan::Sink::Kind::store || copy.size() != c.output.elements)
    return std::nullopt;
  const plan::Leaf& leaf = copy.leaves[0];
  if (leaf.kind != plan::LeafKind::stored || leaf.input != 0 || leaf.dtype != c.output.dtype ||
      leaf.dtype != task.output.dtype || leaf.map.base != 0)
    return std::nullopt;
  // Position i of the box must read value i of the combine's output (C order over the box).
  index_t stride = 1;
  for (int k = copy.ndim; k-- > 0;) {
    if (copy.extent[k] > 1 && leaf.map.coef[k] != stride)
      return std::nullopt;
    stride *= copy.extent[k];
  }
  return id;
}

void PlanExecutor::dispatch(TaskId id, int worker) {
  const plan::Task& task = plan_.tasks[id];
  // Persisted blocks that may be spilled stay in host memory while the task reads them, whatever
  // its kind; the backends read them as any other host block.
  std::vector<SpillableBuffer*> spillable;
  for_each_input(plan_, id, [&](const plan::InputRef& ref) {
    if (ref.kind == plan::InputRef::Kind::stored)
      if (const auto* b = dynamic_cast<const SpillableBuffer*>(ref.stored))
        spillable.push_back(const_cast<SpillableBuffer*>(b)); // the manager moves its memory
  });
  const SpillPin pin(std::move(spillable));
  switch (task.kind) {
  case plan::TaskKind::program:
    run_program(id, task, worker);
    break;
  case plan::TaskKind::gather:
    run_gather(id, task, worker);
    break;
  case plan::TaskKind::combine:
    run_combine(id, task, worker);
    break;
  case plan::TaskKind::join:
    run_join(id, task, worker);
    break;
  case plan::TaskKind::assemble:
    run_assemble(id, task, worker);
    break;
  case plan::TaskKind::scan:
    run_scan(id, task, worker);
    break;
  case plan::TaskKind::user:
    run_user(id, task, worker);
    break;
  case plan::TaskKind::load:
    run_load(id, task, worker);
    break;
  case plan::TaskKind::write:
    run_write(id, task, worker);
    break;
  case plan::TaskKind::product:
    run_product(id, task, worker);
    break;
  }
}

namespace {

/// Passes everything to `inner` but the release of result tasks' outputs (persist's blocks), which
/// other tasks may read too: a scan's next block reads its carry from the block before.
class KeepingResults final : public TaskExecutor {
public:
  KeepingResults(TaskExecutor& inner, std::vector<std::uint8_t> keep)
      : inner_(inner), keep_(std::move(keep)) {}
  std::uint64_t run(TaskId task, int worker) override { return inner_.run(task, worker); }
  void release(TaskId task) override {
    if (keep_[task] == 0)
      inner_.release(task);
  }

private:
  TaskExecutor& inner_;
  std::vector<std::uint8_t> keep_;
};

} // namespace

void run_plan(const plan::Plan& plan, PlanExecutor& exec, int workers,
              const ComputeOptions& options, std::span<const int> worker) {
  std::vector<std::uint8_t> keep(plan.tasks.size(), 0);
  bool read_results = false;
  for (const auto& ids : plan.result_blocks)
    for (plan::TaskId id : ids)
      keep[id] = 1;
  for (const auto& deps : plan.deps)
    for (plan::TaskId d : deps)
      read_results = read_results || keep[d] != 0;
  std::optional<KeepingResults> keeping;
  if (read_results)
    keeping.emplace(exec, std::move(keep));
  TaskExecutor& tasks = keeping ? static_cast<TaskExecutor&>(*keeping) : exec;
  if (Distribution* d = current_distribution()) {
    run_distributed(plan, exec, tasks, workers, options, worker, *d);
    return;
  }
  run_graph(task_graph(plan, worker), tasks, workers, options);
}

} // namespace chunked::runtime
