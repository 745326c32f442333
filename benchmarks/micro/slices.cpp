// SPDX-License-Identifier: Apache-2.0
// Views of a stored 2-D array written to host memory: strided, reversed and interior slices.
#include "memcpy_baseline.hpp"

#include <chunked/chunked.hpp>

#include <benchmark/benchmark.h>

#include <span>
#include <vector>

namespace {

using namespace chunked;

enum class View { every_other, reversed_columns, interior, row_band };

constexpr index_t rows = 4096, cols = 4096; // 128 MiB of float64

ChunkedArray<double> view_of(const ChunkedArray<double>& a, View v) {
  switch (v) {
  case View::every_other:
    return a(slice(none, none, 2), slice(none, none, 2));
  case View::reversed_columns:
    return a(all, slice(none, none, -1));
  case View::interior:
    return a(slice(1, -1), slice(1, -1));
  case View::row_band:
    return a(slice(1000, 3000));
  }
  return a;
}

// Arguments: chunk edge, threads (0 = inline). Traffic: each kept element read once, written once.
template <View V> void bm_slice(benchmark::State& state) {
  const std::vector<double> host = bench::host_values(static_cast<std::size_t>(rows * cols));
  const index_t edge = state.range(0);
  const auto a = from_host(std::span<const double>(host), Shape{rows, cols}, Chunks{edge, edge});
  const auto x = view_of(a, V);
  const ComputeOptions options = bench::threads(state.range(1));
  std::vector<double> out(static_cast<std::size_t>(x.size()));
  const bench::LoopClock loop;
  for (auto _ : state) {
    x.to_host(std::span<double>(out), options);
    benchmark::DoNotOptimize(out.data());
  }
  bench::report_traffic(state, 2 * out.size() * sizeof(double), x.size(), loop);
}

void args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"chunk", "threads"})->Args({1024, 1})->Args({1024, 2})->Args({1000, 1});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(bm_slice<View::every_other>)->Name("every_other")->Apply(args);
BENCHMARK(bm_slice<View::reversed_columns>)->Name("reversed_columns")->Apply(args);
BENCHMARK(bm_slice<View::interior>)->Name("interior")->Apply(args);
BENCHMARK(bm_slice<View::row_band>)->Name("row_band")->Apply(args);

} // namespace

BENCHMARK_MAIN();
