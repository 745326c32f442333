// SPDX-License-Identifier: Apache-2.0
// What every backend's executor shares: a plan's task graph, its tasks' output sizes, inputs and
// consumers, the dispatch of a task on its kind, and the copies a finalize can write through.
#pragma once

#include "plan/partial.hpp"
#include "plan/plan.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/task_graph.hpp"
#include <chunked/runtime/compute_options.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace chunked::runtime {

using plan::output_bytes;

/// Calls f(InputRef&) for every buffer task `t` of `plan` reads, in order; the references are
/// writable when `plan` is.
template <class P, class F> void for_each_input(P& plan, std::size_t t, F&& f) {
  const plan::Task& task = plan.tasks[t];
  switch (task.kind) {
  case plan::TaskKind::program:
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
      f(plan.inputs[j].ref);
    break;
  case plan::TaskKind::gather:
  case plan::TaskKind::assemble:
    for (auto& piece : plan.gathers[task.index])
      f(piece.source);
    break;
  case plan::TaskKind::combine:
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
      f(plan.combine_inputs[j]);
    break;
  case plan::TaskKind::join:
  case plan::TaskKind::load:
    break; // its pieces wrote its buffer; a load reads outside memory
  case plan::TaskKind::scan:
  case plan::TaskKind::user:
  case plan::TaskKind::write:
  case plan::TaskKind::product:
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
      f(plan.inputs[j].ref);
    break;
  }
}

/// Per task of `plan`, the tasks that depend on it, in increasing order.
std::vector<std::vector<plan::TaskId>> consumer_lists(const plan::Plan& plan);

/// One rank's part of a plan run over a cluster (runtime/distributed/run.cpp): per task, the
/// dependencies it keeps and whether this rank computes it (only those count for progress and
/// are pinned to their worker).
struct LocalTasks {
  std::vector<std::vector<plan::TaskId>> deps;
  std::vector<std::uint8_t> here;
};

/// The task graph of `plan`: its dependencies, each task pinned to `worker[task]` (any worker
/// when `worker` is empty); with `local`, that rank's part. Progress counts the blocks of program
/// tasks: one per task, but where a stage cuts an array's blocks into several tasks (Stage::cut:
/// pieces of a materialised block, boxes of a result or of a reduction's input), the tasks of one
/// block are parts of it, so the count is the array's blocks whatever the backend's cut. Work bytes
/// count every task.
TaskGraph task_graph(const plan::Plan& plan, std::span<const int> worker = {},
                     const LocalTasks* local = nullptr);

/// When finalizing task `combine` (plan::finalizing_combine: a combine, or a program task that
/// finalizes its own partials) produces values that its one consumer, a program task
/// writing a caller's destination, only copies there unchanged and in the order the combine
/// wrote them (`x.sum().item()`, a reduction's to_host()): that consumer, with its program in
/// `copy` (whose sink map places value i of the combine in the destination). The backend then
/// finalizes straight into the destination and the copy has nothing left to do. `consumers` is
/// consumer_lists(plan)[combine].
std::optional<plan::TaskId> destination_copy(const plan::Plan& plan, plan::TaskId combine,
                                             std::span<const plan::TaskId> consumers,
                                             plan::BlockProgram& copy);

/// A backend's executor of plan tasks: the shared dispatch on plan::TaskKind, with the work of
/// each kind left to the backend. Thread-safety as runtime::TaskExecutor asks.
class PlanExecutor : public TaskExecutor {
public:
  explicit PlanExecutor(const plan::Plan& plan) : plan_(plan) {}

  /// Runs the task's kind-specific work; returns its work bytes for progress.
  std::uint64_t run(TaskId id, int worker) override {
    dispatch(id, worker);
    return plan_.work_bytes(id);
  }

  // ---- Over a cluster (runtime/distributed/run.cpp)
  /// Makes `buffer`, host memory of the backend's host_buffer() holding the output of task
  /// `id` that another rank computed, that task's output here, as if it had run here.
  virtual void adopt_output(TaskId id, std::shared_ptr<Buffer> buffer) = 0;
  /// The output of task `id`, which ran on worker `worker`, complete and in host memory (the
  /// buffer itself where it is there), to send to another rank.
  virtual std::shared_ptr<const Buffer> host_output(TaskId id, int worker) = 0;

protected:
  /// Calls the member below that the task's kind names.
  void dispatch(TaskId id, int worker);

  /// A stage's program over one block (Plan::instantiate), into the task's output.
  virtual void run_program(TaskId id, const plan::Task& task, int worker) = 0;
  /// Copies of source pieces into one new buffer.
  virtual void run_gather(TaskId id, const plan::Task& task, int worker) = 0;
  /// Partials folded in order, then finalized unless the output is a partial.
  virtual void run_combine(TaskId id, const plan::Task& task, int worker) = 0;
  /// A block whose pieces (its dependencies) have been written.
  virtual void run_join(TaskId id, const plan::Task& task, int worker) = 0;
  /// A reshape or concatenate block from copies of input pieces into one new buffer. Its pieces
  /// are copy programs as a gather's are, so a backend without a faster copy runs it as one.
  virtual void run_assemble(TaskId id, const plan::Task& task, int worker) {
    run_gather(id, task, worker);
  }

  /// One block scanned along an axis, with the carry read from its second input (if any).
  virtual void run_scan(TaskId id, const plan::Task& task, int worker) = 0;

  /// A user block function on one output block, into a new buffer (usercode helper).
  virtual void run_user(TaskId id, const plan::Task& task, int worker) = 0;

  /// One term of a product of blocks (Plan::product_terms): the product of its first two inputs,
  /// added into its third (the term before, whose buffer becomes this task's output) if any.
  virtual void run_product(TaskId id, const plan::Task& task, int worker) = 0;

  /// A lazy leaf's block read from its source (runtime/block_io_call.hpp) into a new buffer.
  virtual void run_load(TaskId id, const plan::Task& task, int worker) = 0;
  /// A computed block (the task's one input) handed to its sink in host memory.
  virtual void run_write(TaskId id, const plan::Task& task, int worker) = 0;

  const plan::Plan& plan_;
};

/// Runs every task of `plan` with `exec` on `workers` workers (see run_graph), tasks pinned as
/// `worker` says (empty: any worker). In a computation over a cluster (current_distribution()),
/// only this rank's part, exchanging blocks with the other ranks.
void run_plan(const plan::Plan& plan, PlanExecutor& exec, int workers,
              const ComputeOptions& options, std::span<const int> worker = {});

} // namespace chunked::runtime
