// SPDX-License-Identifier: Apache-2.0
// JobControl: what a running chunked::Job shares with the computation it runs (its cancel flag
// and live progress), found by run_graph through the thread that computes the job.
#pragma once

#include <chunked/runtime/progress.hpp>

#include <atomic>
#include <mutex>

namespace chunked::runtime {

/// The message of the chunked::Error that a cancelled computation ends with (Job::get()).
inline constexpr const char* cancelled_message =
    "the computation was cancelled (chunked::Job::cancel): tasks that had started finished, the "
    "others never ran, and their memory was released";

/// One job's controls. The Job sets the flag; the scheduler reads it before each task starts and
/// publishes its progress counts here while it runs. Thread-safe.
class JobControl {
public:
  /// Asks the computation to stop: no task starts after the scheduler sees the flag.
  void cancel() noexcept { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const noexcept { return cancelled_.load(std::memory_order_relaxed); }
  /// The flag itself, for the scheduler's workers to poll without a call.
  const std::atomic<bool>& flag() const noexcept { return cancelled_; }

  /// The counts of the running graph, else those it ended with (zeros before it started).
  Progress progress() const;

  /// run_graph's reporter, counting, for progress() to read until detach(); detach() keeps its
  /// last counts.
  void attach(const ProgressReporter& reporter);
  void detach() noexcept;

private:
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mutex_; // guards the two below
  const ProgressReporter* live_ = nullptr;
  Progress last_;
};

/// The job whose computation the calling thread runs, or null: the Job's thread sets it, and
/// run_graph takes it (clearing it, so that a computation started from inside a task of this one
/// is not taken for it).
JobControl* current_job() noexcept;

/// Sets current_job() for the life of the scope, restoring the previous one after.
class JobScope {
public:
  explicit JobScope(JobControl* job) noexcept;
  ~JobScope();
  JobScope(const JobScope&) = delete;
  JobScope& operator=(const JobScope&) = delete;

private:
  JobControl* previous_;
};

} // namespace chunked::runtime
