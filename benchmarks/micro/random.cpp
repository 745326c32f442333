// SPDX-License-Identifier: Apache-2.0
// CPU random kernels per instruction set: normal, uniform and integer tiles, contiguous and step 2.
//
// Arguments are (instruction set: 0 scalar, 1 avx2, 2 avx512; step). Read ns_per_element, and
// bytes_per_second as the rate at which a tile of output is produced. Step 2 is the seed
// benchmark's pattern x[::2, ::2]: every kept element is its own Philox block.
#include "backend/cpu/random_kernels.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

using namespace chunked;
using namespace chunked::cpu;

constexpr index_t tile = 2048; // the CPU interpreter's tile length

struct Normal {
  template <class T> static void fill(IndexRun run, T* out) {
    random_normal({42, 0}, 10.0, 1.0, run, out);
  }
};
struct Uniform {
  template <class T> static void fill(IndexRun run, T* out) {
    random_uniform({42, 1}, -1.0, 1.0, run, out);
  }
};
struct Integers {
  template <class T> static void fill(IndexRun run, T* out) {
    random_integers({42, 2}, T{-1000}, T{1000}, run, out);
  }
};

template <class Dist, class T> void bm_random(benchmark::State& state) {
  const auto isa = static_cast<SimdIsa>(state.range(0));
  const index_t step = state.range(1);
  const SimdIsa saved = simd_isa();
  if (!set_simd_isa(isa)) {
    state.SkipWithError("instruction set not built or not supported by this CPU");
    return;
  }
  std::vector<T> out(tile);
  index_t first = 0;
  for (auto _ : state) {
    Dist::fill(IndexRun{first, step, tile}, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
    first += tile * step; // fresh counters each time, as a real sweep over an array
  }
  set_simd_isa(saved);
  const auto elements = static_cast<std::int64_t>(state.iterations()) * tile;
  state.SetItemsProcessed(elements);
  state.SetBytesProcessed(elements * static_cast<std::int64_t>(sizeof(T)));
  state.counters["ns_per_element"] =
      benchmark::Counter(static_cast<double>(elements) * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(simd_isa_name(isa));
}

void isa_and_step(benchmark::internal::Benchmark* b) {
  for (int isa = 0; isa < 3; ++isa) {
    for (int step : {1, 2}) {
      b->Args({isa, step});
    }
  }
  b->ArgNames({"isa", "step"});
}

BENCHMARK(bm_random<Normal, double>)->Name("normal_f64")->Apply(isa_and_step);
BENCHMARK(bm_random<Normal, float>)->Name("normal_f32")->Apply(isa_and_step);
BENCHMARK(bm_random<Uniform, double>)->Name("uniform_f64")->Apply(isa_and_step);
BENCHMARK(bm_random<Integers, std::int64_t>)->Name("integers_i64")->Apply(isa_and_step);

} // namespace

BENCHMARK_MAIN();
