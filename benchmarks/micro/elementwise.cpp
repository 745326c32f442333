// SPDX-License-Identifier: Apache-2.0
// Elementwise chains over a stored array, fused into one pass: read once, write once, vs memcpy.
#include "memcpy_baseline.hpp"

#include <chunked/chunked.hpp>

#include <benchmark/benchmark.h>

#include <memory>
#include <span>
#include <type_traits>
#include <vector>

namespace {

using namespace chunked;

// Arguments: elements, chunk length, chain length (operations), threads (0 = inline).
void bm_chain(benchmark::State& state) {
  const index_t n = state.range(0);
  const std::vector<double> host = bench::host_values(static_cast<std::size_t>(n));
  const auto a = from_host(std::span<const double>(host), Shape{n}, Chunks{state.range(1)});
  const ComputeOptions options = bench::threads(state.range(3));
  // Alternating multiply and add keeps the values bounded however long the chain.
  ChunkedArray<double> x = a;
  for (std::int64_t k = 0; k < state.range(2); ++k)
    x = k % 2 ? x + 0.25 : x * 0.5;
  std::vector<double> out(host.size());
  // One run first, so that the loop measures the steady state: a program split at the planner's
  // caps stores an intermediate, whose first allocation maps fresh pages (about 0.4 s on
  // machine A, where the kernel zeroes pages slowly).
  x.to_host(std::span<double>(out), options);
  const bench::LoopClock loop;
  for (auto _ : state) {
    x.to_host(std::span<double>(out), options);
    benchmark::DoNotOptimize(out.data());
  }
  bench::report_traffic(state, 2 * host.size() * sizeof(double), n, loop);
}

// a * b + c of three stored arrays: three reads and one write per element.
void bm_fma3(benchmark::State& state) {
  const index_t n = state.range(0);
  const std::vector<double> host = bench::host_values(static_cast<std::size_t>(n));
  const Chunks chunks{state.range(1)};
  const auto a = from_host(std::span<const double>(host), Shape{n}, chunks);
  const auto b = from_host(std::span<const double>(host), Shape{n}, chunks);
  const auto c = from_host(std::span<const double>(host), Shape{n}, chunks);
  const ComputeOptions options = bench::threads(state.range(2));
  const auto x = a * b + c;
  std::vector<double> out(host.size());
  const bench::LoopClock loop;
  for (auto _ : state) {
    x.to_host(std::span<double>(out), options);
    benchmark::DoNotOptimize(out.data());
  }
  bench::report_traffic(state, 4 * host.size() * sizeof(double), n, loop);
}

// One operation other than arithmetic on a stored array (argument: which, as named below), read
// once and written once; the traffic counts the result's own bytes (a bool result is one byte).
void bm_op(benchmark::State& state) {
  const index_t n = state.range(0);
  const std::vector<double> host = bench::host_values(static_cast<std::size_t>(n));
  const auto x = from_host(std::span<const double>(host), Shape{n}, Chunks{state.range(1)});
  const ComputeOptions options = bench::threads(1);
  auto time = [&](const char* name, const auto& y) {
    using T = typename std::remove_cvref_t<decltype(y)>::value_type;
    std::unique_ptr<T[]> out(new T[static_cast<std::size_t>(n)]);
    const std::span<T> dst(out.get(), static_cast<std::size_t>(n));
    y.to_host(dst, options);
    const bench::LoopClock loop;
    for (auto _ : state) {
      y.to_host(dst, options);
      benchmark::DoNotOptimize(out.get());
    }
    state.SetLabel(name);
    bench::report_traffic(state, host.size() * (sizeof(double) + sizeof(T)), n, loop);
  };
  switch (state.range(2)) {
  case 0:
    return time("minimum(x, 1.5)", minimum(x, 1.5));
  case 1:
    return time("clip(x, 1.2, 1.8)", clip(x, 1.2, 1.8));
  case 2:
    return time("x < 1.5", x < 1.5);
  case 3:
    return time("where(x > 1.5, x, 0.0)", where(x > 1.5, x, 0.0));
  case 4:
    return time("sqrt(x)", sqrt(x));
  case 5:
    return time("abs(x - 1.5)", abs(x - 1.5));
  default:
    return time("x.astype<float>()", x.astype<float>());
  }
}

constexpr std::int64_t n = 1 << 24; // 128 MiB of float64, well past the caches

BENCHMARK(bm_chain)
    ->Name("chain")
    ->ArgNames({"n", "chunk", "ops", "threads"})
    ->Args({n, 1 << 20, 1, 1})
    ->Args({n, 1 << 20, 4, 1})
    ->Args({n, 1 << 20, 16, 1})
    ->Args({n, 1 << 20, 1, 2})
    ->Args({n, 1 << 20, 16, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_op)
    ->Name("op")
    ->ArgNames({"n", "chunk", "which"})
    ->ArgsProduct({{n}, {1 << 20}, {0, 1, 2, 3, 4, 5, 6}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_fma3)
    ->Name("a_mul_b_add_c")
    ->ArgNames({"n", "chunk", "threads"})
    ->Args({n, 1 << 20, 1})
    ->Args({n, 1 << 20, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

BENCHMARK_MAIN();
