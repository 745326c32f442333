// SPDX-License-Identifier: Apache-2.0
// chunked-fresh-pages-benchmark: persists into memory the process has never used (issue 27):
// `--persists` standardizes `((x - m) / s).persist()` of `--mib` MiB of float64 on `--threads`
// CPU threads, each result kept alive so that none reuses another's memory, beside
//   - the copy rate of the same bytes on the same threads (memcpy between warm buffers, bytes
//     read and written), the rate a persist is measured against;
//   - the operating system's own cost of fresh memory: the same number of bytes mapped anew and
//     written once (memset) on the same threads, per round, without the library.
// Run one thread count per process: memory freed by an earlier round would be used again.
//
//   chunked-fresh-pages-benchmark [--mib 256] [--persists 6] [--threads 1]
#include <chunked/chunked.hpp>

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>
#include <vector>

using namespace chunked;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Runs f(lo, hi) over [0, n) cut into `threads` ranges, one thread each.
template <class F> void split(std::size_t n, int threads, F f) {
  std::vector<std::thread> pool;
  const std::size_t part = (n + static_cast<std::size_t>(threads) - 1) / threads;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const std::size_t lo = std::min(n, static_cast<std::size_t>(t) * part);
      f(lo, std::min(n, lo + part));
    });
  for (auto& th : pool)
    th.join();
}

/// Fresh anonymous memory of `bytes` written once on `threads` threads: seconds.
double touch_fresh(std::size_t bytes, int threads) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw std::runtime_error("mmap failed");
  auto* c = static_cast<unsigned char*>(p);
  const auto t0 = std::chrono::steady_clock::now();
  split(bytes, threads, [&](std::size_t lo, std::size_t hi) { std::memset(c + lo, 1, hi - lo); });
  const double s = seconds_since(t0);
  ::munmap(p, bytes);
  return s;
}

/// The best memcpy rate of `bytes` between warm buffers on `threads` threads, read + written.
double copy_rate(std::size_t bytes, int threads) {
  std::vector<unsigned char> a(bytes, 1), b(bytes, 2);
  double best = 0;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    split(bytes, threads, [&](std::size_t lo, std::size_t hi) {
      std::memcpy(b.data() + lo, a.data() + lo, hi - lo);
    });
    best = std::max(best, 2.0 * static_cast<double>(bytes) / seconds_since(t0) / 1e9);
  }
  return best;
}

} // namespace

int main(int argc, char** argv) {
  index_t mib = 256;
  int persists = 6, threads = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view a = argv[i];
    if (a == "--mib")
      mib = std::atoll(argv[i + 1]);
    else if (a == "--persists")
      persists = std::atoi(argv[i + 1]);
    else if (a == "--threads")
      threads = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: chunked-fresh-pages-benchmark [--mib M] [--persists P] "
                           "[--threads T]\n");
      return 2;
    }
  }
  const index_t cols = 4096, rows = mib * (index_t{1} << 20) / 8 / cols;
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * 8;
  ComputeOptions o;
  o.num_threads = threads;
  Generator rng(11);
  const auto x =
      rng.normal<double, Cpu>(Shape{rows, cols}, Chunks{1024, cols}, 3.0, 2.0).persist(o);
  const double m = x.mean().item(o), s = x.std().item(o);
  std::printf("fresh pages: %lld MiB float64, %d persists of (x - m) / s kept alive, %d threads\n",
              static_cast<long long>(mib), persists, threads);
  std::vector<ChunkedArray<double, Cpu>> kept;
  std::vector<double> ms;
  for (int p = 0; p < persists; ++p) {
    const auto t0 = std::chrono::steady_clock::now();
    kept.push_back(((x - m) / s).persist(o));
    ms.push_back(1e3 * seconds_since(t0));
  }
  std::vector<double> touch;
  for (int p = 0; p < persists; ++p)
    touch.push_back(1e3 * touch_fresh(bytes, threads));
  const double rate = copy_rate(bytes, threads);
  std::printf("  copy rate          %.2f GB/s (memcpy, warm, read + write)\n", rate);
  for (int p = 0; p < persists; ++p) {
    const double gbs = 2.0 * static_cast<double>(bytes) / (ms[p] * 1e-3) / 1e9;
    std::printf("  persist %d          %8.1f ms  %6.2f GB/s  %.2f of the copy rate;  fresh memset "
                "%.1f ms (%.2f GB/s)\n",
                p, ms[p], gbs, gbs / rate, touch[p],
                static_cast<double>(bytes) / (touch[p] * 1e-3) / 1e9);
  }
  const auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
  std::printf("  spread (max/min)   %.2f\n", *hi / *lo);
  return 0;
}
