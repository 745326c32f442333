// SPDX-License-Identifier: Apache-2.0
// ComputeOptions: how a compute() call runs (scheduler, workers, devices, memory, progress).
#pragma once

#include <chunked/runtime/progress.hpp>

#include <cstddef>
#include <functional>
#include <vector>

namespace chunked {

/// Where block tasks run on the host.
enum class Scheduler {
  threads,         ///< a pool of worker threads (one per CPU core, or one per GPU)
  single_threaded, ///< inline on the calling thread, in task order: for debugging and profiling
};

/// The most CPU worker threads ComputeOptions::num_threads may ask for.
inline constexpr int max_num_threads = 4096;

/// Options of `compute()`, `item()`, `persist()` and `to_host()`. The defaults use the whole
/// machine.
///
/// @code
/// chunked::ComputeOptions opts;
/// opts.num_threads = 8;
/// opts.progress_bar = true;
/// double s = x.sum().item(opts);
/// @endcode
struct ComputeOptions {
  /// `threads` runs tasks on worker threads; `single_threaded` runs them on the calling thread.
  Scheduler scheduler = Scheduler::threads;
  /// CPU worker threads; 0 = all hardware threads. At most max_num_threads: more workers than
  /// any machine has hardware threads only contend, and each reserves a stack.
  int num_threads = 0;
  /// CUDA devices to use, each named once; empty = all visible. One worker per GPU.
  std::vector<int> devices;
  /// CUDA streams per device; 0 = the backend's choice (4); at most 16 are used.
  int streams_per_device = 0;
  /// Bytes each device may hold; 0 = 80 % of the memory free when the computation starts.
  std::size_t device_memory_limit = 0;
  /// Called about every 100 ms while tasks finish and once at the end with the final counts.
  /// Calls never overlap; they come from worker threads, so keep the callback short. The
  /// computation calls a copy made when it starts, so the callback may clear or replace this one
  /// (state it keeps by value is the copy's; capture by reference what the caller reads back).
  std::function<void(const Progress&)> on_progress;
  /// Draw a one-line progress bar on stderr.
  bool progress_bar = false;
};

/// Throws ValueError naming the field when an option is out of range (a negative thread or
/// stream count, more threads than max_num_threads, a negative or repeated device); every backend
/// checks its options with it before running anything.
void validate(const ComputeOptions& options);

} // namespace chunked
