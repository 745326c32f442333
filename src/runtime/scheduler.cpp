// SPDX-License-Identifier: Apache-2.0
// run_graph: join-counter scheduling of a TaskGraph on worker threads or inline.
#include "runtime/scheduler.hpp"
#include "runtime/external_gate.hpp"
#include "runtime/job_control.hpp"
#include "runtime/trace.hpp"
#include "runtime/trace_clock.hpp"

#include <chunked/core/error.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace chunked::runtime {

namespace {

using Counter = std::atomic<std::uint32_t>;
using Clock = std::chrono::steady_clock;

/// The job's cancel flag (null outside a Job): read before each task starts.
using CancelFlag = const std::atomic<bool>*;

bool cancel_requested(CancelFlag cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

// Min-heaps of ready task ids: the lowest id is the task the planner wants first. A list pushed in
// increasing order is already a valid heap, which is how the initial ready tasks arrive.
void heap_push(std::vector<TaskId>& heap, TaskId task) {
  heap.push_back(task);
  std::push_heap(heap.begin(), heap.end(), std::greater<>{});
}

TaskId heap_pop(std::vector<TaskId>& heap) {
  std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
  const TaskId task = heap.back();
  heap.pop_back();
  return task;
}

// The graph stores each task's dependencies; scheduling needs the reverse, built once per run as
// two flat arrays.
class Successors {
public:
  explicit Successors(const TaskGraph& graph) : begin_(graph.size() + 1, 0) {
    const std::size_t n = graph.size();
    for (TaskId t = 0; t < n; ++t)
      for (TaskId d : graph.dependencies(t))
        ++begin_[d + 1];
    for (std::size_t t = 0; t < n; ++t)
      begin_[t + 1] += begin_[t];
    list_.resize(graph.num_edges());
    std::vector<std::uint32_t> cursor(begin_.begin(), begin_.end() - 1);
    for (TaskId t = 0; t < n; ++t)
      for (TaskId d : graph.dependencies(t))
        list_[cursor[d]++] = t;
  }

  std::span<const TaskId> of(TaskId task) const {
    return {list_.data() + begin_[task], list_.data() + begin_[task + 1]};
  }
  std::uint32_t count(TaskId task) const { return begin_[task + 1] - begin_[task]; }

private:
  std::vector<std::uint32_t> begin_;
  std::vector<TaskId> list_;
};

// How many tasks a worker takes from the shared queue at once. Tiny tasks make workers queue on the
// lock; taking several per visit divides that traffic, while long tasks are taken one at a time
// so that none waits behind another on a busy worker.
class BatchSizer {
public:
  void record(Clock::duration task_time) {
    const double ns = std::chrono::duration<double, std::nano>(task_time).count();
    average_ns_ += 0.2 * (ns - average_ns_);
  }
  std::size_t batch() const {
    const double n = target_ns / std::max(average_ns_, 1.0);
    return n >= max_batch ? max_batch : n <= 1 ? 1 : static_cast<std::size_t>(n);
  }

private:
  static constexpr double target_ns = 20'000;  // work per batch: far above the cost of a visit
  static constexpr std::size_t max_batch = 32; // bounds what a batch delays, memory included
  double average_ns_ = 1e6;                    // until measured, tasks count as long
};

// Runs a task and records it on its worker's lane of the trace, with the memory it left live.
std::uint64_t traced_run(Trace& trace, TaskExecutor& executor, TaskId task, int w) {
  const std::int64_t start = trace_ticks();
  const std::uint64_t bytes = executor.run(task, w);
  const std::int64_t end = trace_ticks();
  trace.task(w, task, start, end);
  trace.sample_memory_after_task(end);
  return bytes;
}

// Per-worker state, on its own cache line: workers touch each other's only to wake them.
struct alignas(64) WorkerSlot {
  std::condition_variable cv;
  std::vector<TaskId> pinned; // ready tasks pinned to this worker, a min-heap
  bool idle = false;          // in ThreadedRun::idle_
  bool wake = false;          // set by whoever wakes it
};

// One run of a graph on worker threads. Counters are atomics decremented outside the lock, so a
// worker takes the shared lock once per visit: to queue the successors it made ready and take its
// next tasks. One queue keeps the lowest-id-first order exact for block-sized tasks; for tiny
// tasks, workers take small batches (BatchSizer) and the order is lowest-first per batch.
class ThreadedRun final : public ExternalGate::Listener {
public:
  ThreadedRun(const TaskGraph& graph, TaskExecutor& executor, int num_workers,
              ProgressReporter& progress, CancelFlag cancel, ExternalGate* gate)
      : graph_(graph), executor_(executor), progress_(progress), cancel_(cancel), gate_(gate),
        trace_(current_trace()), num_workers_(num_workers), successors_(graph),
        join_(new Counter[graph.size()]), consumers_(new Counter[graph.size()]),
        parts_left_(new Counter[graph.parts().size()]), finished_(new std::uint8_t[graph.size()]()),
        slots_(new WorkerSlot[static_cast<std::size_t>(num_workers)]), remaining_(graph.size()) {
    const std::size_t n = graph.size();
    for (std::size_t b = 0; b < graph.parts().size(); ++b)
      parts_left_[b].store(graph.parts()[b], std::memory_order_relaxed);
    std::vector<std::size_t> pinned_count(static_cast<std::size_t>(num_workers), 0);
    std::size_t unpinned_count = 0;
    for (TaskId t = 0; t < n; ++t) {
      join_[t].store(static_cast<std::uint32_t>(graph.dependencies(t).size()) + waits(t),
                     std::memory_order_relaxed);
      consumers_[t].store(successors_.count(t), std::memory_order_relaxed);
      const int w = graph.worker(t);
      ++(w >= 0 ? pinned_count[static_cast<std::size_t>(w)] : unpinned_count);
    }
    // Room for every task up front, so no heap reallocates while the lock is held.
    ready_.reserve(unpinned_count);
    for (int w = 0; w < num_workers; ++w)
      slots_[w].pinned.reserve(pinned_count[static_cast<std::size_t>(w)]);
    idle_.reserve(static_cast<std::size_t>(num_workers));
    for (TaskId t = 0; t < n; ++t)
      if (graph.dependencies(t).empty() && waits(t) == 0)
        (graph.worker(t) >= 0 ? slots_[graph.worker(t)].pinned : ready_).push_back(t);
  }

  // A gated task whose gate opened: one dependency fewer.
  void opened(TaskId task) override {
    if (join_[task].fetch_sub(1, std::memory_order_acq_rel) != 1)
      return;
    std::vector<int> to_wake;
    {
      std::lock_guard lock(mutex_);
      if (stop_)
        return;
      push_ready_locked({task}, to_wake);
      if (graph_.worker(task) < 0)
        wake_idle_locked(1, to_wake); // any sleeping worker takes it
    }
    notify(to_wake);
  }

  void failed(std::exception_ptr error) override { record_error(std::move(error)); }

  // Runs the graph with the calling thread as worker 0; rethrows the first error after cleanup.
  void execute() {
    if (trace_)
      trace_->begin_graph(num_workers_);
    Listening listening(gate_, this);
    std::vector<std::thread> threads;
    try {
      threads.reserve(static_cast<std::size_t>(num_workers_ - 1));
      for (int w = 1; w < num_workers_; ++w)
        threads.emplace_back([this, w] { worker_main(w); });
    } catch (const std::exception& e) {
      // The system refused a thread (or the memory for one): the error stops the workers already
      // started, which are joined below like those of any failed run.
      record_error(std::make_exception_ptr(
          OutOfMemory("starting worker thread " + std::to_string(threads.size() + 1) + " of " +
                      std::to_string(num_workers_) + " failed (" + e.what() +
                      "); ask for fewer with ComputeOptions::num_threads")));
    }
    worker_main(0);
    for (std::thread& thread : threads)
      thread.join();
    listening.stop();
    if (error_) {
      release_held();
      progress_.finish(true);
      std::rethrow_exception(error_);
    }
    progress_.finish();
  }

private:
  std::uint32_t waits(TaskId t) const { return gate_ && gate_->gated(t) ? 1 : 0; }

  void worker_main(int w) {
    const TraceScope traced(trace_, w); // what the tasks record (code generation) goes to its lane
    std::vector<int> to_wake;
    try {
      worker_loop(w, to_wake);
    } catch (...) {
      // Only bookkeeping (allocation) can get here: task errors are caught around the task.
      record_error(std::current_exception());
    }
    notify(to_wake);
  }

  void worker_loop(int w, std::vector<int>& to_wake) {
    WorkerSlot& slot = slots_[w];
    std::vector<TaskId> taken; // tasks this worker took and has not started, a min-heap
    std::vector<TaskId> ready; // successors made ready, not yet queued
    BatchSizer sizer;
    unsigned visits = 0;
    std::unique_lock lock(mutex_);
    while (!stop_ && remaining_ > 0) {
      if (!take_locked(w, sizer.batch(), taken)) {
        slot.idle = true;
        slot.wake = false;
        idle_.push_back(w);
        lock.unlock();
        notify(to_wake);
        lock.lock();
        const std::int64_t idle_since = trace_ ? trace_ticks() : 0;
        slot.cv.wait(lock, [&] { return slot.wake; });
        if (trace_)
          trace_->wait(w, idle_since, trace_ticks());
        continue;
      }
      // Ready tasks this worker does not take go to sleeping workers.
      wake_idle_locked(ready_.size(), to_wake);
      lock.unlock();
      notify(to_wake);

      ready.clear();
      const std::size_t limit = taken.size();
      std::size_t done = 0;
      bool ok = true;
      // Timing costs two clock reads per visit: for single tasks only every few visits.
      const bool timed = num_workers_ > 1 && (limit > 1 || ++visits % 8 == 0);
      const auto start = timed ? Clock::now() : Clock::time_point{};
      while (done < limit && !taken.empty() && !stopping_.load(std::memory_order_relaxed)) {
        if (cancel_requested(cancel_)) {
          // Dropped like the tasks after a failure: the workers stop, held outputs are released.
          record_error(std::make_exception_ptr(Error(cancelled_message)));
          ok = false;
          break;
        }
        const TaskId task = heap_pop(taken);
        const std::size_t first_new = ready.size();
        ok = run_task(task, w, ready);
        if (!ok)
          break;
        ++done;
        if (!taken.empty())
          keep_lowest(w, taken, ready, first_new);
      }
      if (timed && done > 0)
        sizer.record((Clock::now() - start) / done);

      lock.lock();
      if (!ok)
        continue; // stop_ is set
      remaining_ -= done;
      if (remaining_ == 0) {
        wake_all_locked(to_wake);
      } else {
        push_ready_locked(ready, to_wake);
        push_ready_locked(taken, to_wake); // left over when stopping or when successors ran here
        taken.clear();
      }
    }
  }

  // Takes up to `batch` of the lowest ready tasks this worker may run, but no more than its fair
  // share, so that batching never leaves other workers idle while tasks wait here.
  bool take_locked(int w, std::size_t batch, std::vector<TaskId>& taken) {
    if (num_workers_ == 1) {
      batch = 1; // nothing to contend with; and one worker keeps the exact lowest-first order
    } else if (batch > 1) {
      const std::size_t available = ready_.size() + slots_[w].pinned.size();
      batch = std::min(
          batch, std::max<std::size_t>(1, available / static_cast<std::size_t>(num_workers_)));
    }
    TaskId task;
    while (taken.size() < batch && pop_locked(w, task))
      taken.push_back(task); // increasing, hence a heap
    return !taken.empty();
  }

  // A successor this worker may run that comes before every task it holds runs next, here, instead
  // of going through the shared queue: it would be the next task taken anyway.
  void keep_lowest(int w, std::vector<TaskId>& taken, std::vector<TaskId>& ready,
                   std::size_t first_new) const {
    for (std::size_t i = first_new; i < ready.size();) {
      const TaskId s = ready[i];
      const int owner = graph_.worker(s);
      if ((owner < 0 || owner == w) && !taken.empty() && s < taken.front()) {
        heap_push(taken, s);
        ready[i] = ready.back();
        ready.pop_back();
      } else {
        ++i;
      }
    }
  }

  bool pop_locked(int w, TaskId& task) {
    std::vector<TaskId>& pinned = slots_[w].pinned;
    if (!pinned.empty() && (ready_.empty() || pinned.front() < ready_.front())) {
      task = heap_pop(pinned);
      return true;
    }
    if (ready_.empty())
      return false;
    task = heap_pop(ready_);
    return true;
  }

  void push_ready_locked(const std::vector<TaskId>& ready, std::vector<int>& to_wake) {
    for (TaskId t : ready) {
      const int w = graph_.worker(t);
      if (w < 0) {
        heap_push(ready_, t);
        continue;
      }
      WorkerSlot& owner = slots_[w];
      heap_push(owner.pinned, t);
      if (owner.idle) {
        idle_.erase(std::find(idle_.begin(), idle_.end(), w));
        wake_locked(w, to_wake);
      }
    }
  }

  void wake_locked(int w, std::vector<int>& to_wake) {
    slots_[w].idle = false;
    slots_[w].wake = true;
    to_wake.push_back(w);
  }

  // Wakes up to `count` sleeping workers, the most recently idle first (its cache is warmest).
  void wake_idle_locked(std::size_t count, std::vector<int>& to_wake) {
    for (; count > 0 && !idle_.empty(); --count) {
      wake_locked(idle_.back(), to_wake);
      idle_.pop_back();
    }
  }

  void wake_all_locked(std::vector<int>& to_wake) { wake_idle_locked(idle_.size(), to_wake); }

  // Notifying after the lock is released spares the woken worker from blocking on it at once.
  void notify(std::vector<int>& to_wake) {
    for (int w : to_wake)
      slots_[w].cv.notify_one();
    to_wake.clear();
  }

  bool run_task(TaskId task, int w, std::vector<TaskId>& ready) {
    try {
      const std::uint64_t bytes =
          trace_ ? traced_run(*trace_, executor_, task, w) : executor_.run(task, w);
      finished_[task] = 1;
      // Inputs are released before successors are queued: memory first.
      for (TaskId d : graph_.dependencies(task))
        if (consumers_[d].fetch_sub(1, std::memory_order_acq_rel) == 1)
          executor_.release(d);
      for (TaskId s : successors_.of(task))
        if (join_[s].fetch_sub(1, std::memory_order_acq_rel) == 1)
          ready.push_back(s);
      const std::int64_t part_of = graph_.part_of(task);
      const bool block =
          part_of >= 0 ? parts_left_[part_of].fetch_sub(1) == 1 : graph_.is_block(task);
      progress_.add(block ? 1 : 0, bytes);
      progress_.maybe_report();
      return true;
    } catch (...) {
      record_error(std::current_exception());
      return false;
    }
  }

  void record_error(std::exception_ptr error) {
    std::vector<int> to_wake;
    {
      std::lock_guard lock(mutex_);
      if (!error_)
        error_ = std::move(error);
      stop_ = true;
      stopping_.store(true, std::memory_order_relaxed);
      wake_all_locked(to_wake);
    }
    notify(to_wake);
  }

  // After a failure, once every worker has stopped: free the outputs still waiting for consumers
  // that will never run.
  void release_held() noexcept {
    for (TaskId t = 0; t < graph_.size(); ++t) {
      if (finished_[t] == 0 || consumers_[t].load(std::memory_order_relaxed) == 0)
        continue;
      try {
        executor_.release(t);
      } catch (...) {
        // The first error is the one reported; later ones come from the same failed computation.
      }
    }
  }

  const TaskGraph& graph_;
  TaskExecutor& executor_;
  ProgressReporter& progress_;
  const CancelFlag cancel_;
  ExternalGate* const gate_; // tasks opened from outside, or null
  Trace* const trace_;       // the computation's, or null
  const int num_workers_;
  const Successors successors_;
  std::unique_ptr<Counter[]> join_;          // dependencies not yet finished
  std::unique_ptr<Counter[]> consumers_;     // successors not yet finished
  std::unique_ptr<Counter[]> parts_left_;    // per block of parts, its parts not yet finished
  std::unique_ptr<std::uint8_t[]> finished_; // written by the task's worker, read after joins
  std::unique_ptr<WorkerSlot[]> slots_;

  std::mutex mutex_;          // guards everything below and WorkerSlot::{pinned, idle, wake}
  std::vector<TaskId> ready_; // ready tasks any worker may run, a min-heap
  std::vector<int> idle_;     // sleeping workers
  std::size_t remaining_;     // tasks not yet finished
  bool stop_ = false;
  std::exception_ptr error_;
  std::atomic<bool> stopping_{false}; // stop_, readable without the lock between batched tasks
};

// Single worker in id order: ids are topological, so the lowest ready task is always the next id.
void run_inline(const TaskGraph& graph, TaskExecutor& executor, ProgressReporter& progress,
                CancelFlag cancel, ExternalGate* gate) {
  GateWaiter gated(gate ? graph.size() : 0);
  Listening listening(gate, &gated);
  const std::size_t n = graph.size();
  std::vector<std::uint32_t> consumers(n, 0);
  for (TaskId t = 0; t < n; ++t)
    for (TaskId d : graph.dependencies(t))
      ++consumers[d];
  std::vector<std::uint32_t> parts_left(graph.parts().begin(), graph.parts().end());
  std::size_t finished = 0;
  Trace* const trace = current_trace();
  if (trace)
    trace->begin_graph(std::max(graph.max_worker() + 1, 1));
  try {
    for (TaskId t = 0; t < n; ++t) {
      if (cancel_requested(cancel))
        throw Error(cancelled_message);
      if (gate) {
        gated.check();
        if (gate->gated(t))
          gated.wait(t);
      }
      const int w = std::max(graph.worker(t), 0);
      const std::uint64_t bytes = trace ? traced_run(*trace, executor, t, w) : executor.run(t, w);
      finished = t + 1;
      for (TaskId d : graph.dependencies(t))
        if (--consumers[d] == 0)
          executor.release(d);
      const std::int64_t part_of = graph.part_of(t);
      const bool block =
          part_of >= 0 ? --parts_left[static_cast<std::size_t>(part_of)] == 0 : graph.is_block(t);
      progress.add(block ? 1 : 0, bytes);
      progress.maybe_report();
    }
  } catch (...) {
    listening.stop();
    for (TaskId t = 0; t < finished; ++t) {
      if (consumers[t] == 0)
        continue;
      try {
        executor.release(t);
      } catch (...) {
        // Keep the first error.
      }
    }
    progress.finish(true);
    throw;
  }
  progress.finish();
}

/// Makes a job's progress() read a run's counts while it lasts.
class AttachedToJob {
public:
  AttachedToJob(JobControl* job, ProgressReporter& progress) : job_(job) {
    if (!job_)
      return;
    progress.count_always();
    job_->attach(progress);
  }
  ~AttachedToJob() {
    if (job_)
      job_->detach();
  }
  AttachedToJob(const AttachedToJob&) = delete;
  AttachedToJob& operator=(const AttachedToJob&) = delete;

private:
  JobControl* job_;
};

} // namespace

void run_graph(const TaskGraph& graph, TaskExecutor& executor, int num_workers,
               const ComputeOptions& options, ExternalGate* gate) {
  if (num_workers < 1)
    throw ValueError("run_graph: num_workers is " + std::to_string(num_workers) +
                     "; expected at least 1");
  if (graph.max_worker() >= num_workers)
    throw ValueError("run_graph: a task is pinned to worker " + std::to_string(graph.max_worker()) +
                     " but there are only " + std::to_string(num_workers) + " workers");
  // The job this thread computes for is this run's; a computation that one of its tasks starts
  // on this thread is a computation of its own.
  JobControl* const job = current_job();
  const JobScope tasks_outside_job(nullptr);
  ProgressReporter progress(options, static_cast<index_t>(graph.num_blocks()));
  const AttachedToJob attached(job, progress); // after `progress`, so gone before it
  const CancelFlag cancel = job ? &job->flag() : nullptr;
  if (cancel_requested(cancel)) {
    progress.finish(true);
    throw Error(cancelled_message);
  }
  if (options.scheduler == Scheduler::single_threaded) {
    run_inline(graph, executor, progress, cancel, gate);
    return;
  }
  if (graph.empty()) {
    progress.finish();
    return;
  }
  // Workers beyond the number of tasks would only sleep; pinned workers must exist.
  const int workers = std::max(
      static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(num_workers), graph.size())),
      graph.max_worker() + 1);
  ThreadedRun(graph, executor, workers, progress, cancel, gate).execute();
}

int default_num_threads(const ComputeOptions& options) {
  validate(options);
  if (options.num_threads > 0)
    return options.num_threads;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

} // namespace chunked::runtime
