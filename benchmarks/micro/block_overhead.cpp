// SPDX-License-Identifier: Apache-2.0
// BENCHMARKS.md B4: cost of a block task, from many tiny blocks against the same work in one.
#include "memcpy_baseline.hpp"

#include <chunked/chunked.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace {

using namespace chunked;

constexpr index_t block_elements = 16;

// (2 x + 1).sum() over x = 0, 1, ..., n - 1: the sum is n^2, exact in double for these n.
double run(index_t n, index_t chunk, const ComputeOptions& options) {
  const auto x = arange<double>(0.0, static_cast<double>(n), 1.0, chunk);
  return (x * 2.0 + 1.0).sum().item(options);
}

double seconds_one_block(index_t n, const ComputeOptions& options) {
  std::vector<double> t;
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(run(n, n, options));
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Arguments: blocks, threads (0 = inline). Counter per_task_us: (time - time of the same
// elements in one block) / blocks; the target is <= 2 us.
void bm_tiny_blocks(benchmark::State& state) {
  const index_t blocks = state.range(0);
  const index_t n = blocks * block_elements;
  const ComputeOptions options = bench::threads(state.range(1));
  const double one_block = seconds_one_block(n, options);
  const double expected = static_cast<double>(n) * static_cast<double>(n);
  const bench::LoopClock loop;
  for (auto _ : state) {
    const double s = run(n, block_elements, options);
    if (s != expected) {
      state.SkipWithError(
          ("sum is " + std::to_string(s) + ", expected " + std::to_string(expected)).c_str());
      break;
    }
  }
  const double per_iteration =
      loop.seconds() / static_cast<double>(std::max<std::int64_t>(state.iterations(), 1));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * blocks);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * n *
                          static_cast<std::int64_t>(sizeof(double)));
  state.counters["one_block_ms"] = one_block * 1e3;
  state.counters["per_task_us"] = (per_iteration - one_block) / static_cast<double>(blocks) * 1e6;
}

BENCHMARK(bm_tiny_blocks)
    ->Name("tiny_blocks_sum")
    ->ArgNames({"blocks", "threads"})
    ->Args({10000, 1})
    ->Args({100000, 1})
    ->Args({1000000, 0})
    ->Args({1000000, 1})
    ->Args({1000000, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

// The same with a trace (ComputeOptions::trace_path): what tracing costs per task. Argument
// `written` 0: the time until compute() returns, the previous file written (by the library's
// writer thread) outside the time measured; 1: until the file is complete too. Each iteration
// also runs the computation untraced, outside the time measured, so that counter
// `over_plain` compares medians of runs made side by side (this machine's speed drifts more
// than the difference measured).
void bm_tiny_blocks_traced(benchmark::State& state) {
  const index_t blocks = state.range(0);
  const index_t n = blocks * block_elements;
  const ComputeOptions plain = bench::threads(state.range(1));
  ComputeOptions options = plain;
  const bool written = state.range(2) != 0;
  options.trace_path = "chunked-block-overhead-trace.json";
  const double expected = static_cast<double>(n) * static_cast<double>(n);
  wait_for_diagnostics();
  std::vector<double> plain_s, traced_s;
  for (auto _ : state) {
    state.PauseTiming();
    auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(run(n, block_elements, plain));
    plain_s.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    state.ResumeTiming();
    start = std::chrono::steady_clock::now();
    if (run(n, block_elements, options) != expected) {
      state.SkipWithError("wrong sum");
      break;
    }
    if (written)
      wait_for_diagnostics();
    traced_s.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!written) {
      state.PauseTiming();
      wait_for_diagnostics();
      state.ResumeTiming();
    }
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * blocks);
  state.counters["plain_ms"] = median(plain_s) * 1e3;
  state.counters["traced_ms"] = median(traced_s) * 1e3;
  state.counters["over_plain"] = median(traced_s) / std::max(median(plain_s), 1e-12) - 1.0;
}

BENCHMARK(bm_tiny_blocks_traced)
    ->Name("tiny_blocks_sum_traced")
    ->ArgNames({"blocks", "threads", "written"})
    ->Args({100000, 1, 0})
    ->Args({100000, 2, 0})
    ->Args({100000, 1, 1})
    ->Args({100000, 2, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
