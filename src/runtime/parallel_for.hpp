// SPDX-License-Identifier: Apache-2.0
// A loop over independent jobs on a few short-lived threads, for work outside a computation's
// task graph (copying host data in, compiling kernels ahead of a run).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace chunked::runtime {

/// Calls fn(i) for every i in [0, count) on up to `threads` threads, the calling thread being one
/// of them; each thread takes the next index not yet taken, so uneven jobs balance. Every job
/// runs even when one throws; the first exception thrown is rethrown once all have finished.
/// With threads <= 1 or count <= 1 the jobs run in order on the calling thread; where the system
/// starts fewer threads than asked, the jobs run on those it started.
template <class F> void parallel_for(std::size_t count, std::size_t threads, F&& fn) {
  threads = std::min(threads, count);
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error)
          error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  try {
    pool.reserve(threads > 1 ? threads - 1 : 0);
    for (std::size_t k = 1; k < threads; ++k)
      pool.emplace_back(work);
  } catch (...) {
    // The system refused a thread (or the memory for one). The jobs are independent, so the
    // threads already started and this one run them all; letting the error leave here would
    // destroy running threads, which ends the program.
  }
  work();
  for (std::thread& thread : pool)
    thread.join();
  if (error)
    std::rethrow_exception(error);
}

/// The machine's hardware threads, at least 1.
inline std::size_t hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

} // namespace chunked::runtime
