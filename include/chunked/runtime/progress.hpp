// SPDX-License-Identifier: Apache-2.0
// Progress counts of a running computation and the reporter that throttles and serializes them.
#pragma once

#include <chunked/core/types.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

namespace chunked {

struct ComputeOptions;

/// A snapshot of a running computation, passed to `ComputeOptions::on_progress`. It counts
/// blocks: each block a program computes, whether stored, written into a caller's array or
/// reduced. Where the CPU backend cuts an array of few large blocks into more tasks
/// (`cpu::task_split`), the tasks of one block count as that one block, done when the last of
/// them is, so the count is the same on every backend; `bytes_done` counts every task as it
/// finishes. The partial sums of a reduction combined across blocks are not blocks.
struct Progress {
  index_t blocks_done = 0;      ///< finished blocks
  index_t blocks_total = 0;     ///< blocks in the computation
  std::uint64_t bytes_done = 0; ///< bytes produced by the finished tasks
  double elapsed_seconds = 0;   ///< since the computation started

  /// `blocks_done / blocks_total`, and 1 when there are no blocks.
  double fraction() const {
    return blocks_total > 0 ? static_cast<double>(blocks_done) / static_cast<double>(blocks_total)
                            : 1.0;
  }
};

namespace runtime {

class ProgressBar;

/// Collects progress from worker threads and forwards it to `on_progress` and the progress bar,
/// at most once per interval and never from two threads at once.
///
/// Workers call `add()` for each finished task and then `maybe_report()`; the thread that started
/// the computation calls `finish()` once all workers are done. Disabled reporters (no callback,
/// no bar) cost one branch per call.
class ProgressReporter {
public:
  /// Reports every `interval` for a computation of `blocks_total` block tasks; the clock starts
  /// now. What it needs of `options` is copied: the reporter never refers to them afterwards.
  ProgressReporter(const ComputeOptions& options, index_t blocks_total,
                   std::chrono::nanoseconds interval = std::chrono::milliseconds(100));
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  /// True when there is a callback or a bar to report to.
  bool enabled() const { return enabled_; }

  /// Counts work even with nothing to report to, for snapshot() (a Job's progress()). Call
  /// before the workers start.
  void count_always() { counting_ = true; }

  /// Counts finished work. Thread-safe and lock-free.
  void add(index_t blocks, std::uint64_t bytes) {
    if (!counting_)
      return;
    blocks_done_.fetch_add(blocks, std::memory_order_relaxed);
    bytes_done_.fetch_add(bytes, std::memory_order_relaxed);
  }

  /// Reports if the interval has passed since the last report and no other thread is reporting
  /// (it never waits for one). Rethrows what the callback throws.
  void maybe_report();

  /// Reports the final counts (and ends the bar's line). After a failed computation pass
  /// `failed = true`: the bar's line is ended but the callback is not called.
  void finish(bool failed = false);

  /// The counts now.
  Progress snapshot() const;

private:
  void report_locked(const Progress& p);

  bool enabled_ = false;
  bool counting_ = false; // enabled_, or count_always()
  /// A copy of the caller's `on_progress`, made when the computation starts: the callback may
  /// clear or replace the caller's one (or the options may go away) while it runs.
  std::function<void(const Progress&)> callback_;
  std::unique_ptr<ProgressBar> bar_;
  index_t blocks_total_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::nanoseconds interval_;
  std::atomic<index_t> blocks_done_{0};
  std::atomic<std::uint64_t> bytes_done_{0};
  std::atomic<std::int64_t> next_due_ns_{0}; // since start_
  std::mutex report_mutex_;
};

} // namespace runtime
} // namespace chunked
