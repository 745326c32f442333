// SPDX-License-Identifier: Apache-2.0
// Job<R>: a computation running in the background (compute_async, persist_async, submit), with
// wait, ready, get, cancel and progress.
#pragma once

#include <chunked/core/error.hpp>
#include <chunked/runtime/progress.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace chunked {

namespace detail {

/// The part of a Job that does not depend on its result type (compiled in src/runtime/job.cpp):
/// the thread that runs it, whether it finished and how, cancellation and progress. Every member
/// but take_result() may be called from several threads at once.
class JobCore {
public:
  /// Starts `work` on a thread of its own, which is worker 0 of the computation `work` runs.
  /// OutOfMemory when the system refuses the thread.
  explicit JobCore(std::function<void()> work);
  /// Cancels the job if it has not finished, waits for its running tasks and joins its thread.
  ~JobCore();
  JobCore(const JobCore&) = delete;
  JobCore& operator=(const JobCore&) = delete;

  void wait();
  bool ready() const;
  bool cancel() noexcept;
  Progress progress() const;
  /// Waits; then, the first time, rethrows how the job failed (the cancellation when it was
  /// cancelled before it finished) or returns; later calls throw chunked::Error.
  void take_result();

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace detail

/// A computation running in the background; its result is an R (an NDArray, a tuple of them, a
/// persisted array). Made by `x.compute_async(opts)`, `x.persist_async(opts)` and
/// `chunked::submit(opts, a, b, ...)`, which return at once.
///
/// @code
/// chunked::Job<chunked::NDArray<double>> job = (x + 1.0).compute_async(opts);
/// // ... other work; job.progress().blocks_done counts finished block tasks ...
/// chunked::NDArray<double> y = job.get();   // waits, or rethrows what the computation threw
/// @endcode
///
/// **Where it runs.** Each job runs its plan on a thread of its own, which is worker 0 of the
/// computation, with `options.num_threads - 1` more workers started for it as a synchronous
/// compute() starts them: jobs share no pool, so none ever waits for another's workers (two jobs
/// with `num_threads = 0` each start a worker per hardware thread and the system shares the cores
/// between them; give each a share with `num_threads` to avoid oversubscribing). Jobs may run at
/// once, from any threads, on the same arrays: each plans and computes on its own (the compiled
/// program caches are shared, and thread-safe), and each result is bitwise the one the
/// synchronous call gives. On a GPU concurrent jobs share the device's streams and each budgets
/// its own `device_memory_limit` (80 % of the memory free when it starts, by default): give
/// concurrent jobs explicit limits that fit together. Each job's `progress_bar` draws on the same
/// terminal line; use on_progress or progress() with several jobs.
///
/// **Errors.** Options out of range (ValueError) and a backend that cannot run (BackendError)
/// are thrown by the call that makes the job; everything else (planning, memory, a user function
/// that throws, a CUDA error) by get(), as the same exception, of the same type, as the
/// synchronous call would have thrown.
///
/// **Cancellation.** cancel() drops the tasks that have not started; those running finish (on a
/// GPU, with the work they queued), then every buffer the computation held is released and the
/// runtime is ready for the next one. The flag is read before each task: planning under way when
/// it comes runs to its end first, then no task starts.
/// After cancel() of a job that had not finished, get() throws chunked::Error saying so.
/// Destroying a Job that has not finished cancels it and waits for its running tasks: it never
/// outlives its Job, so a Job going out of scope never leaks nor writes into freed memory.
///
/// Move-only. A default-constructed or moved-from Job is empty: valid() is false, ready() false,
/// cancel() returns false, and wait(), get() and progress() throw chunked::Error. wait(), ready(),
/// cancel() and progress() may be called from several threads at once; get() once, by one.
template <class R> class Job {
public:
  using result_type = R;

  /// An empty job (valid() is false), to assign a running one to later.
  Job() = default;
  Job(Job&&) noexcept = default;
  /// Cancels and waits for the job this one held (as its destruction would), then takes `other`.
  Job& operator=(Job&&) noexcept = default;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
  /// Cancels the job if it has not finished and waits for its running tasks.
  ~Job() = default;

  /// Runs `work()` (a callable returning R) as a job on a thread of its own: the building block
  /// of compute_async, persist_async and submit, which run their synchronous counterparts so.
  template <class F> static Job start(F work) {
    static_assert(std::is_convertible_v<std::invoke_result_t<F&>, R>,
                  "Job<R>::start: the work must return an R");
    Job job;
    job.state_ = std::make_unique<State>(std::move(work));
    return job;
  }

  /// Whether this Job holds a job (not default-constructed, not moved from).
  bool valid() const noexcept { return state_ != nullptr; }

  /// Waits until the job has finished: computed, failed, or cancelled and its running tasks done.
  /// May be called again; returns at once then.
  void wait() { core("wait").wait(); }
  /// True once the job has finished (always after wait()); never blocks.
  bool ready() const { return state_ && state_->core.ready(); }
  /// Drops the tasks not yet started; see the class notes. Does not wait (wait() does). Returns
  /// true when the job had not finished, so that get() throws; false when it had (or is empty),
  /// and then changes nothing.
  bool cancel() noexcept { return state_ && state_->core.cancel(); }
  /// Finished block tasks so far, as ComputeOptions::on_progress reports them, counted live;
  /// `blocks_total` is 0 until the job's tasks are planned, and `elapsed_seconds` runs from the
  /// job's start to its end. Use ready() rather than fraction() to tell a finished job.
  Progress progress() const { return core("progress").progress(); }

  /// Waits, then returns the result, or rethrows the computation's exception (chunked::Error
  /// after a cancel). May be called once: a second call throws chunked::Error.
  R get() {
    core("get").take_result();
    return std::move(*state_->result);
  }

private:
  struct State {
    template <class F>
    explicit State(F work) : core([this, w = std::move(work)]() mutable { result.emplace(w()); }) {}
    // Declared before `core`, so destroyed after it: the job's thread, which writes the result,
    // has been joined by then.
    std::optional<R> result;
    detail::JobCore core;
  };

  detail::JobCore& core(const char* what) const {
    if (!state_)
      throw Error(std::string("Job::") + what +
                  "(): this Job is empty (default-constructed or "
                  "moved from)");
    return state_->core;
  }

  std::unique_ptr<State> state_;
};

} // namespace chunked
