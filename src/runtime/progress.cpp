// SPDX-License-Identifier: Apache-2.0
// ProgressReporter: throttled, serialized progress reports from worker threads.
#include <chunked/runtime/progress.hpp>

#include "runtime/progress_bar.hpp"
#include <chunked/runtime/compute_options.hpp>

namespace chunked::runtime {

ProgressReporter::ProgressReporter(const ComputeOptions& options, index_t blocks_total,
                                   std::chrono::nanoseconds interval)
    : callback_(options.on_progress), blocks_total_(blocks_total),
      start_(std::chrono::steady_clock::now()), interval_(interval),
      next_due_ns_(interval.count()) {
  if (options.progress_bar)
    bar_ = std::make_unique<ProgressBar>();
  enabled_ = callback_ || bar_ != nullptr;
  counting_ = enabled_;
}

ProgressReporter::~ProgressReporter() = default;

Progress ProgressReporter::snapshot() const {
  Progress p;
  p.blocks_done = blocks_done_.load(std::memory_order_relaxed);
  p.blocks_total = blocks_total_;
  p.bytes_done = bytes_done_.load(std::memory_order_relaxed);
  p.elapsed_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return p;
}

void ProgressReporter::maybe_report() {
  if (!enabled_)
    return;
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now() - start_)
                                  .count();
  if (now_ns < next_due_ns_.load(std::memory_order_relaxed))
    return;
  // A worker never waits for another's report: the counts it added show up in the next one.
  std::unique_lock lock(report_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || now_ns < next_due_ns_.load(std::memory_order_relaxed))
    return;
  next_due_ns_.store(now_ns + interval_.count(), std::memory_order_relaxed);
  // Counts are read under the lock, so successive reports never go backwards.
  report_locked(snapshot());
}

void ProgressReporter::finish(bool failed) {
  if (!enabled_)
    return;
  std::lock_guard lock(report_mutex_);
  if (failed) {
    if (bar_)
      bar_->abandon();
    return;
  }
  const Progress p = snapshot();
  if (bar_)
    bar_->finish(p);
  if (callback_)
    callback_(p);
}

void ProgressReporter::report_locked(const Progress& p) {
  if (bar_)
    bar_->draw(p);
  if (callback_)
    callback_(p);
}

} // namespace chunked::runtime
