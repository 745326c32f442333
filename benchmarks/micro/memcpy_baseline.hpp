// SPDX-License-Identifier: Apache-2.0
// The machine's own limit for the micro benchmarks: a memcpy moving the same bytes, timed in-run.
#pragma once

#include <chunked/chunked.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

namespace chunked::bench {

/// Seconds a single-threaded memcpy takes to move `traffic` bytes (half read, half written), the
/// median of several copies between buffers that are touched first so no page faults are timed.
/// Measured once per size and process, inside the run it is compared with.
inline double memcpy_seconds(std::size_t traffic) {
  static std::map<std::size_t, double> cache;
  if (auto it = cache.find(traffic); it != cache.end())
    return it->second;
  const std::size_t n = std::max<std::size_t>(traffic / 2, 1);
  auto src = std::make_unique<unsigned char[]>(n);
  auto dst = std::make_unique<unsigned char[]>(n);
  std::memset(src.get(), 1, n);
  std::memset(dst.get(), 2, n);
  std::vector<double> times;
  for (int i = 0; i < 7; ++i) {
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(dst.get(), src.get(), n);
    benchmark::ClobberMemory();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return cache[traffic] = times[times.size() / 2];
}

/// Wall time of a benchmark loop, for counters that need it (Google Benchmark keeps its own).
class LoopClock {
public:
  LoopClock() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

private:
  std::chrono::steady_clock::time_point start_;
};

/// Sets bytes and items per second and the `vs_memcpy` counter: the time of a memcpy moving the
/// same traffic divided by ours, so 1.0 means the program ran at copy speed (BENCHMARKS.md B3
/// asks >= 0.7 on the CPU). `traffic` counts each byte the program must read or write once per
/// iteration; `loop` is the clock started just before the benchmark loop.
inline void report_traffic(benchmark::State& state, std::size_t traffic, std::int64_t items,
                           const LoopClock& loop) {
  const double per_iteration = loop.seconds() / static_cast<double>(state.iterations());
  const auto iters = static_cast<std::int64_t>(state.iterations());
  state.SetBytesProcessed(iters * static_cast<std::int64_t>(traffic));
  state.SetItemsProcessed(iters * items);
  state.counters["vs_memcpy"] = memcpy_seconds(traffic) / per_iteration;
}

/// Compute options for a benchmark argument: 0 = the calling thread only, n = n worker threads.
inline ComputeOptions threads(std::int64_t n) {
  ComputeOptions o;
  if (n == 0)
    o.scheduler = Scheduler::single_threaded;
  else
    o.num_threads = static_cast<int>(n);
  return o;
}

/// n doubles of varied values near 1, for arrays made with from_host.
inline std::vector<double> host_values(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = 1.0 + static_cast<double>(i % 977) * 1e-3;
  return v;
}

} // namespace chunked::bench
