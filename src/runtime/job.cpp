// SPDX-License-Identifier: Apache-2.0
// The thread and state of a chunked::Job (job.hpp), and the controls it shares with the
// scheduler (job_control.hpp).
#include "runtime/job_control.hpp"
#include <chunked/core/error.hpp>
#include <chunked/runtime/job.hpp>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <string>
#include <system_error>
#include <thread>

namespace chunked {

namespace runtime {

namespace {
thread_local JobControl* current = nullptr;
} // namespace

JobControl* current_job() noexcept { return current; }

JobScope::JobScope(JobControl* job) noexcept : previous_(current) { current = job; }

JobScope::~JobScope() { current = previous_; }

Progress JobControl::progress() const {
  std::lock_guard lock(mutex_);
  return live_ ? live_->snapshot() : last_;
}

void JobControl::attach(const ProgressReporter& reporter) {
  std::lock_guard lock(mutex_);
  live_ = &reporter;
}

void JobControl::detach() noexcept {
  std::lock_guard lock(mutex_);
  if (live_)
    last_ = live_->snapshot();
  live_ = nullptr;
}

} // namespace runtime

namespace detail {

using Clock = std::chrono::steady_clock;

struct JobCore::State {
  runtime::JobControl control;
  const Clock::time_point start = Clock::now();

  mutable std::mutex mutex; // guards what follows
  std::condition_variable finished_cv;
  bool finished = false;
  bool cancelled_unfinished = false; // cancel() came before the job finished
  bool taken = false;                // take_result() was called
  Clock::time_point end;
  std::exception_ptr error;

  std::thread thread; // last: started once the rest exists

  void run(std::function<void()>& work) {
    std::exception_ptr failure;
    {
      runtime::JobScope scope(&control);
      try {
        work();
      } catch (...) {
        failure = std::current_exception();
      }
    }
    // What the work holds (the arrays' graphs, the options' callbacks) goes before the job says
    // it has finished, so that nothing of it outlives wait().
    work = nullptr;
    std::lock_guard lock(mutex);
    error = std::move(failure);
    finished = true;
    end = Clock::now();
    finished_cv.notify_all();
  }
};

JobCore::JobCore(std::function<void()> work) : state_(std::make_unique<State>()) {
  try {
    state_->thread =
        std::thread([state = state_.get(), w = std::move(work)]() mutable { state->run(w); });
  } catch (const std::system_error& e) {
    throw OutOfMemory(std::string("starting the thread of a chunked::Job failed (") + e.what() +
                      "); wait for running jobs before starting more");
  }
}

JobCore::~JobCore() {
  if (!state_)
    return;
  cancel();
  if (state_->thread.joinable())
    state_->thread.join(); // the thread's last act is to say it finished
}

void JobCore::wait() {
  std::unique_lock lock(state_->mutex);
  state_->finished_cv.wait(lock, [&] { return state_->finished; });
}

bool JobCore::ready() const {
  std::lock_guard lock(state_->mutex);
  return state_->finished;
}

bool JobCore::cancel() noexcept {
  {
    std::lock_guard lock(state_->mutex);
    if (state_->finished)
      return false;
    state_->cancelled_unfinished = true;
  }
  state_->control.cancel();
  return true;
}

Progress JobCore::progress() const {
  Progress p = state_->control.progress();
  std::lock_guard lock(state_->mutex);
  const Clock::time_point until = state_->finished ? state_->end : Clock::now();
  p.elapsed_seconds = std::chrono::duration<double>(until - state_->start).count();
  return p;
}

void JobCore::take_result() {
  wait();
  std::lock_guard lock(state_->mutex);
  if (state_->taken)
    throw Error("Job::get(): the result was already taken; get() may be called once");
  state_->taken = true;
  // Cancelled before it finished: the cancel wins even where the last tasks completed anyway,
  // so that what get() does after cancel() never depends on timing.
  if (state_->cancelled_unfinished)
    throw Error(runtime::cancelled_message);
  if (state_->error)
    std::rethrow_exception(state_->error);
}

} // namespace detail
} // namespace chunked
