// SPDX-License-Identifier: Apache-2.0
// host_copy_rate: how fast this machine copies host memory, the yardstick of the report's rates.
#include "runtime/backend.hpp"
#include "runtime/parallel_for.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace chunked::runtime {

namespace {

Backend::CopyRate measure_host_copy_rate() {
  // Large enough to leave every cache, small enough to take a few tens of milliseconds.
  constexpr std::size_t bytes = std::size_t{256} << 20;
  const std::size_t threads = std::max<std::size_t>(hardware_threads(), 1);
  const std::size_t piece = (bytes / threads + 4095) / 4096 * 4096;
  std::vector<char> from(bytes, 1), to(bytes, 0); // written: their pages exist before timing
  double best = 0;
  for (int repeat = 0; repeat < 3; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    parallel_for(threads, threads, [&](std::size_t i) {
      const std::size_t lo = std::min(bytes, i * piece), hi = std::min(bytes, lo + piece);
      std::memcpy(to.data() + lo, from.data() + lo, hi - lo);
    });
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, static_cast<double>(bytes) / std::max(s, 1e-9));
  }
  return {best, "host memcpy on " + std::to_string(threads) + " threads, bytes copied per second"};
}

} // namespace

Backend::CopyRate host_copy_rate() {
  static const Backend::CopyRate rate = measure_host_copy_rate();
  return rate;
}

} // namespace chunked::runtime
