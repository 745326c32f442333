// SPDX-License-Identifier: Apache-2.0
// run_graph: runs a TaskGraph on worker threads or inline, with progress and cancellation on error.
#pragma once

#include "runtime/task_graph.hpp"
#include <chunked/runtime/compute_options.hpp>

#include <cstdint>

namespace chunked::runtime {

class ExternalGate;

/// Runs the tasks of a TaskGraph; the scheduler knows tasks only by id.
///
/// With `Scheduler::threads`, `run` and `release` are called from several threads at once (for
/// different tasks), so an executor must be thread-safe across tasks.
class TaskExecutor {
public:
  virtual ~TaskExecutor() = default;
  /// Runs `task` on worker `worker` (its pinned worker, if any). Returns the bytes it produced,
  /// for progress. May throw: the computation is then cancelled (see `run_graph`).
  virtual std::uint64_t run(TaskId task, int worker) = 0;
  /// Every consumer of `task`'s output has finished (or the computation was cancelled): free the
  /// output. Called exactly once per finished task that has consumers, never for tasks without.
  virtual void release(TaskId task) = 0;
};

/// Runs every task of `graph` and returns when all have finished.
///
/// `options.scheduler == threads`: `num_workers` workers run tasks (the calling thread is worker 0,
/// so at most `num_workers` threads run tasks; workers are started per call and joined before it
/// returns). Among ready tasks the lowest id starts first: exactly with one worker, and with
/// several as long as tasks take more than about 10 us; for shorter tasks workers take
/// small batches of the lowest ready ids to avoid queueing on one another. A pinned task runs only
/// on its worker. Idle workers sleep. `single_threaded`: tasks run on the calling thread in id
/// order, each with its pinned worker's index (or 0).
///
/// Progress goes to `options.on_progress` and the bar at most every 100 ms and once at the end.
///
/// If a task (or the progress callback) throws, no further task starts, running ones finish,
/// `release()` is called for every finished task whose output is still held, and the first
/// exception is rethrown here, whatever its type. The graph, the executor and the scheduler can
/// be used again afterwards.
///
/// Run for a chunked::Job (its thread calls run_graph; see job_control.hpp), the job's progress
/// reads this run's counts, and its cancel flag is read before each task starts: once set, the
/// run ends as after a failure, with chunked::Error(cancelled_message).
///
/// With a `gate`, its gated tasks also wait for the gate to open them, and the gate's fail()
/// ends the run as a failing task does (runtime/external_gate.hpp).
///
/// Throws ValueError when `num_workers < 1` or a task is pinned to a worker `>= num_workers`.
void run_graph(const TaskGraph& graph, TaskExecutor& executor, int num_workers,
               const ComputeOptions& options, ExternalGate* gate = nullptr);

/// `options.num_threads` when positive, else the number of hardware threads (at least 1).
/// Throws ValueError when `options.num_threads` is negative.
int default_num_threads(const ComputeOptions& options);

} // namespace chunked::runtime
