// SPDX-License-Identifier: Apache-2.0
// BENCHMARKS.md B3 on the CPU: programs over arrays stored from host data, against memcpy.
#include "memcpy_baseline.hpp"

#include <chunked/chunked.hpp>

#include <benchmark/benchmark.h>

#include <span>
#include <vector>

namespace {

using namespace chunked;

constexpr index_t rows = 2048, cols = 4096; // 64 MiB per float64 array

// (a * b + c).sum(Axes{0}): each of the three inputs read once; the row of sums is negligible.
// Arguments: chunk rows, threads (0 = inline).
void bm_fma_sum_axis0(benchmark::State& state) {
  const std::vector<double> host = bench::host_values(static_cast<std::size_t>(rows * cols));
  const Chunks chunks{state.range(0), cols};
  const Shape shape{rows, cols};
  const auto a = from_host(std::span<const double>(host), shape, chunks);
  const auto b = from_host(std::span<const double>(host), shape, chunks);
  const auto c = from_host(std::span<const double>(host), shape, chunks);
  const auto r = (a * b + c).sum(Axes{0});
  const ComputeOptions options = bench::threads(state.range(1));
  std::vector<double> out(static_cast<std::size_t>(cols));
  const bench::LoopClock loop;
  for (auto _ : state) {
    r.to_host(std::span<double>(out), options);
    benchmark::DoNotOptimize(out.data());
  }
  bench::report_traffic(state, 3 * host.size() * sizeof(double), 3 * rows * cols, loop);
}

// (x - x.mean(Axes{0})) / x.std(Axes{0}): at least one read and one write of every element.
void bm_standardize(benchmark::State& state) {
  const std::vector<double> host = bench::host_values(static_cast<std::size_t>(rows * cols));
  const auto x =
      from_host(std::span<const double>(host), Shape{rows, cols}, Chunks{state.range(0), cols});
  const auto r = (x - x.mean(Axes{0})) / x.std(Axes{0});
  const ComputeOptions options = bench::threads(state.range(1));
  std::vector<double> out(host.size());
  const bench::LoopClock loop;
  for (auto _ : state) {
    r.to_host(std::span<double>(out), options);
    benchmark::DoNotOptimize(out.data());
  }
  bench::report_traffic(state, 2 * host.size() * sizeof(double), rows * cols, loop);
}

void args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"chunk_rows", "threads"})->Args({256, 1})->Args({256, 2})->Args({32, 2});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(bm_fma_sum_axis0)->Name("a_mul_b_add_c_sum_axis0")->Apply(args);
BENCHMARK(bm_standardize)->Name("standardize_axis0")->Apply(args);

} // namespace

BENCHMARK_MAIN();
