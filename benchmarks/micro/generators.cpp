// SPDX-License-Identifier: Apache-2.0
// Random arrays written to host memory: normal, uniform and integers, against memcpy.
#include "memcpy_baseline.hpp"

#include <chunked/chunked.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <span>
#include <vector>

namespace {

using namespace chunked;

enum class Dist { normal, uniform, integers };

// Arguments: elements, chunk length, threads (0 = inline).
template <Dist D, class T> void bm_generate(benchmark::State& state) {
  const index_t n = state.range(0);
  const index_t chunk = state.range(1);
  const ComputeOptions options = bench::threads(state.range(2));
  std::vector<T> out(static_cast<std::size_t>(n));
  Generator rng(1);
  const bench::LoopClock loop;
  for (auto _ : state) {
    ChunkedArray<T> x = [&] {
      if constexpr (D == Dist::normal)
        return rng.normal<T>(Shape{n}, Chunks{chunk}, T(10), T(1));
      else if constexpr (D == Dist::uniform)
        return rng.uniform<T>(Shape{n}, Chunks{chunk});
      else
        return rng.integers<T>(Shape{n}, Chunks{chunk}, 0, 1000);
    }();
    x.to_host(std::span<T>(out), options);
    benchmark::DoNotOptimize(out.data());
  }
  bench::report_traffic(state, static_cast<std::size_t>(n) * sizeof(T), n, loop);
}

void args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "chunk", "threads"});
  for (std::int64_t threads : {1, 2})
    b->Args({1 << 24, 1 << 20, threads});
  b->Args({1 << 24, 1 << 14, 1});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(bm_generate<Dist::normal, double>)->Name("normal_f64")->Apply(args);
BENCHMARK(bm_generate<Dist::normal, float>)->Name("normal_f32")->Apply(args);
BENCHMARK(bm_generate<Dist::uniform, double>)->Name("uniform_f64")->Apply(args);
BENCHMARK(bm_generate<Dist::integers, std::int64_t>)->Name("integers_i64")->Apply(args);

} // namespace

BENCHMARK_MAIN();
