// SPDX-License-Identifier: Apache-2.0
// chunked-clock-probe: how fast one thread computes while T threads compute at once, on a loop
// that touches no memory (independent chains of multiply-adds in registers). Its ratio to
// one thread is the most parallel efficiency any compute-bound program can show on this machine:
// cores slow their clock as more of them are busy (turbo limits, AVX-512 frequency levels), and
// nothing in a scheduler can win that back.
//
//   chunked-clock-probe [T1 T2 ...]      # default: 1, 2, 4, 8, 16 and every hardware thread
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

constexpr int chains = 16;
constexpr long iterations = 100'000'000;
// Read at run time, so the compiler cannot evaluate the chains ahead of time.
volatile double factor = 0.999999999;
volatile double offset = 1e-9;

// Scalar double multiply-adds: sixteen independent chains keep the arithmetic units busy.
double scalar_work() {
  double x[chains];
  const double f = factor, o = offset;
  for (int c = 0; c < chains; ++c)
    x[c] = 1.0 + c * 1e-9;
  for (long i = 0; i < iterations; ++i)
    for (int c = 0; c < chains; ++c) {
      x[c] = x[c] * f + o;
      asm volatile("" : "+x"(x[c])); // one chain step per iteration, in a register
    }
  double s = 0;
  for (double v : x)
    s += v;
  return s;
}

#if defined(__x86_64__) && defined(__GNUC__)
typedef double v8d __attribute__((vector_size(64)));
// The same with 512-bit vectors (the width of the library's AVX-512 kernels).
__attribute__((target("avx512f"))) double avx512_work() {
  v8d x[chains / 2];
  const double f = factor, o = offset;
  for (int c = 0; c < chains / 2; ++c)
    x[c] = v8d{} + (1.0 + c * 1e-9);
  for (long i = 0; i < iterations; ++i)
    for (int c = 0; c < chains / 2; ++c) {
      x[c] = x[c] * f + o;
      asm volatile("" : "+v"(x[c]));
    }
  double s = 0;
  for (int c = 0; c < chains / 2; ++c)
    for (int k = 0; k < 8; ++k)
      s += x[c][k];
  return s;
}
bool has_avx512() { return __builtin_cpu_supports("avx512f"); }
#else
double avx512_work() { return 0; }
bool has_avx512() { return false; }
#endif

/// Seconds each of `threads` threads takes for one `work` call, all started together (median).
double seconds_per_thread(int threads, double (*work)()) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<double> seconds(static_cast<std::size_t>(threads));
  std::atomic<double> sink{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load())
        std::this_thread::yield();
      const auto t0 = std::chrono::steady_clock::now();
      sink.store(work());
      seconds[static_cast<std::size_t>(t)] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
  while (ready.load() < threads)
    std::this_thread::yield();
  go.store(true);
  for (auto& th : pool)
    th.join();
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> counts;
  for (int i = 1; i < argc; ++i)
    counts.push_back(std::max(1, std::atoi(argv[i])));
  if (counts.empty())
    for (int t : {1, 2, 4, 8, 16, hw})
      if (t <= hw && (counts.empty() || counts.back() < t))
        counts.push_back(t);
  std::printf("chunked-clock-probe: %d hardware threads; per-thread speed relative to one thread\n",
              hw);
  struct Kind {
    const char* name;
    double (*work)();
    bool usable;
  };
  const Kind kinds[] = {{"scalar", scalar_work, true}, {"AVX-512", avx512_work, has_avx512()}};
  for (const Kind& k : kinds) {
    if (!k.usable)
      continue;
    const double one = seconds_per_thread(1, k.work);
    for (int t : counts) {
      const double s = t == 1 ? one : seconds_per_thread(t, k.work);
      std::printf("%-12s threads %3d: %.3f s per thread, efficiency ceiling %.1f %%\n", k.name, t,
                  s, 100.0 * one / s);
    }
  }
  return 0;
}
