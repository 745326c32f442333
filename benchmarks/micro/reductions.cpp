// SPDX-License-Identifier: Apache-2.0
// Reductions of a stored 2-D array over each axis and over all: one read of every element.
#include "memcpy_baseline.hpp"

#include <chunked/chunked.hpp>

#include <benchmark/benchmark.h>

#include <span>
#include <vector>

namespace {

using namespace chunked;

enum class Op { sum, max, mean, var };

constexpr index_t rows = 4096, cols = 4096; // 128 MiB of float64

template <Op O> ChunkedArray<double> reduce(const ChunkedArray<double>& a, const Axes& axes) {
  if constexpr (O == Op::sum)
    return a.sum(axes);
  else if constexpr (O == Op::max)
    return a.max(axes);
  else if constexpr (O == Op::mean)
    return a.mean(axes);
  else
    return a.var(axes);
}

// Arguments: axis (-1 = all), chunk edge, threads (0 = inline).
template <Op O> void bm_reduce(benchmark::State& state) {
  const std::vector<double> host = bench::host_values(static_cast<std::size_t>(rows * cols));
  const index_t edge = state.range(1);
  const auto a = from_host(std::span<const double>(host), Shape{rows, cols}, Chunks{edge, edge});
  const Axes axes = state.range(0) < 0 ? Axes{} : Axes{state.range(0)};
  const auto r = reduce<O>(a, axes);
  const ComputeOptions options = bench::threads(state.range(2));
  std::vector<double> out(static_cast<std::size_t>(r.size()));
  const bench::LoopClock loop;
  for (auto _ : state) {
    r.to_host(std::span<double>(out), options);
    benchmark::DoNotOptimize(out.data());
  }
  bench::report_traffic(state, host.size() * sizeof(double), rows * cols, loop);
}

void args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"axis", "chunk", "threads"});
  for (std::int64_t axis : {0, 1, -1})
    b->Args({axis, 1024, 1});
  b->Args({0, 1024, 2})->Args({1, 1024, 2})->Args({-1, 1024, 2});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(bm_reduce<Op::sum>)->Name("sum")->Apply(args);
BENCHMARK(bm_reduce<Op::max>)->Name("max")->Apply(args);
BENCHMARK(bm_reduce<Op::mean>)->Name("mean")->Apply(args);
BENCHMARK(bm_reduce<Op::var>)->Name("var")->Apply(args);

} // namespace

BENCHMARK_MAIN();
