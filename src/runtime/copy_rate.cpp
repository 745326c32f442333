// SPDX-License-Identifier: Apache-2.0
// host_copy_rate: how fast this machine copies host memory, the yardstick of the report's rates.
#include "runtime/backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace chunked::runtime {

namespace {

/// One thread's rate: a CPU task runs on one core, so a report sets each task's rate (bytes over
/// its own time) beside what one core copies.
Backend::CopyRate measure_host_copy_rate() {
  // Large enough to leave every cache, small enough to take a few tens of milliseconds.
  constexpr std::size_t bytes = std::size_t{128} << 20;
  std::vector<char> from(bytes, 1), to(bytes, 0); // written: their pages exist before timing
  double best = 0;
  for (int repeat = 0; repeat < 3; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(to.data(), from.data(), bytes);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, 2.0 * static_cast<double>(bytes) / std::max(s, 1e-9));
  }
  return {best, "host memcpy on one thread (a task runs on one core), bytes read and written"};
}

} // namespace

Backend::CopyRate host_copy_rate() {
  static const Backend::CopyRate rate = measure_host_copy_rate();
  return rate;
}

} // namespace chunked::runtime
