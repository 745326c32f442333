// SPDX-License-Identifier: Apache-2.0
// chunked-b2-view-benchmark: B2 (a / a.sum() of a float64 array held in host memory, the result
// written back to host memory) with the input borrowed by from_host_view instead of copied by
// from_host: what borrowing saves, per run.
//
//   chunked-b2-view-benchmark [--gib 1] [--chunk-mib 256] [--backend cpu|cuda|auto]
//                             [--threads N] [--repeat 3] [--json FILE]
//
// Three inputs, each timed as "make the array" + "compute (a / a.sum()).to_host(out)":
//   from_host      the B2 driver's way: a copy into the backend's memory (pinned for CUDA), then
//                  the computation reads the copy;
//   view pageable  from_host_view of ordinary memory (std::vector): no copy at the call; on CUDA
//                  each block goes through the library's pinned staging buffers as it is read;
//   view pinned    from_host_view of page-locked memory (cudaHostAlloc where this build has
//                  CUDA): no copy at all, blocks go to the GPU straight from the caller's memory.
// `out` is page-locked where a GPU is usable, as in B2. Every result is checked at spread-out
// elements and must be bitwise the same for every input and run.
#include "driver_util.hpp"

#include "backend/cuda/runtime_api.hpp"
#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#if defined(CHUNKED_B2_VIEW_CUDA)
#include <cuda_runtime.h>
#endif

using namespace chunked;

namespace {

struct Config : bench::SizeOptions {
  Config() : SizeOptions(3, 256) {}
};

constexpr const char* usage_text =
    "usage: chunked-b2-view-benchmark [--gib G] [--chunk-mib M] [--backend cpu|cuda|auto]\n"
    "                                 [--threads N] [--repeat R] [--json FILE]\n"
    "  --gib        size of the host array in GiB (default 1; B2 names 32)\n"
    "  --chunk-mib  chunk size in MiB (default 256)\n" CHUNKED_BENCH_USAGE_COMMON(
        "warm runs after the first, per input (default 3)");

/// Page-locked host memory from cudaHostAlloc where the build has CUDA and a device is usable,
/// else ordinary memory (`pinned` says which).
struct HostMemory {
  explicit HostMemory(std::size_t bytes) {
#if defined(CHUNKED_B2_VIEW_CUDA)
    if (cuda_available() && cudaHostAlloc(&data, bytes, cudaHostAllocDefault) == cudaSuccess) {
      pinned = true;
      return;
    }
    cudaGetLastError();
#endif
    owned.resize(bytes / sizeof(double));
    data = owned.data();
  }
  ~HostMemory() {
#if defined(CHUNKED_B2_VIEW_CUDA)
    if (pinned)
      cudaFreeHost(data);
#endif
  }
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  void* data = nullptr;
  bool pinned = false;
  std::vector<double> owned;
};

struct Timings {
  std::string name;
  std::vector<double> make_s, compute_s;
};

using Make = std::function<void()>;

/// Runs 1 + repeat times: make the array (timed), then (a / a.sum()).to_host(out) (timed); checks
/// the probes against `reference` (set by the first input measured).
template <class B>
Timings measure(const Config& c, std::string name, std::span<const double> a, std::span<double> out,
                const ComputeOptions& options, bool view, std::vector<double>& reference) {
  const auto n = static_cast<index_t>(a.size());
  const index_t chunk = std::max<index_t>(c.chunk_mib * (index_t{1} << 20) / 8, 1);
  const double expected_sum = bench::pattern_sum(n);
  Timings t{std::move(name), {}, {}};
  for (int run = 0; run <= c.repeat; ++run) {
    ChunkedArray<double, B> x;
    const double make = bench::seconds_of([&] {
      x = view ? from_host_view<B>(a, Shape{n}, Chunks{chunk})
               : from_host<B>(a, Shape{n}, Chunks{chunk});
    });
    const double compute = bench::seconds_of([&] { (x / x.sum()).to_host(out, options); });
    std::vector<double> probes;
    const index_t count = std::min<index_t>(n, 1024);
    for (index_t k = 0; k <= count; ++k) {
      const index_t i = k == count ? n - 1 : k * n / count; // spread out, and the last element
      const double got = out[static_cast<std::size_t>(i)];
      const double want = a[static_cast<std::size_t>(i)] / expected_sum;
      if (!(std::abs(got - want) <= 1e-9 * want))
        throw std::runtime_error(
            fmt::format("{}: element {} is {:.17g}, expected {:.17g}", t.name, i, got, want));
      probes.push_back(got);
    }
    if (reference.empty())
      reference = probes;
    else if (probes != reference)
      throw std::runtime_error(t.name + ": the result differs bitwise from the first run");
    wait_for_kernels(); // warm runs launch the fused kernels
    if (run > 0 || c.repeat == 0) {
      t.make_s.push_back(make);
      t.compute_s.push_back(compute);
    }
  }
  return t;
}

} // namespace

int main(int argc, char** argv) try {
  Config c;
  if (!bench::parse_command_line(argc, argv, "chunked-b2-view-benchmark", usage_text, 0, c,
                                 [&](std::string_view arg, std::string_view value) {
                                   return bench::parse_size_option(arg, value, c);
                                 }))
    return 2;
  const std::int64_t n = c.rows(1, 1, "one element");
  const auto bytes = static_cast<std::size_t>(n) * 8;
  std::vector<double> pageable(static_cast<std::size_t>(n));
  HostMemory pinned_memory(bytes);
  auto* pinned = static_cast<double*>(pinned_memory.data);
  for (std::int64_t i = 0; i < n; ++i)
    pageable[static_cast<std::size_t>(i)] = pinned[i] = bench::pattern_value(i);
  const auto out_buffer = cuda::make_transfer_buffer(bytes);
  const std::span<double> out(static_cast<double*>(out_buffer->data()),
                              static_cast<std::size_t>(n));

  ComputeOptions options = bench::compute_options(c);
  const bench::Machine machine(c.backend);
  const std::span<const double> ordinary(pageable);
  const std::span<const double> locked(pinned, static_cast<std::size_t>(n));
  std::vector<double> reference;
  const std::vector<Timings> all = bench::with_backend(c.backend, [&]<class B>() {
    return std::vector<Timings>{
        measure<B>(c, "from_host", ordinary, out, options, false, reference),
        measure<B>(c, "view pageable", ordinary, out, options, true, reference),
        measure<B>(c, pinned_memory.pinned ? "view pinned" : "view pinned (unavailable: ordinary)",
                   locked, out, options, true, reference)};
  });

  machine.print_header("chunked-b2-view-benchmark");
  fmt::print("config:   a / a.sum(), {} float64 ({:.3g} GiB) in host memory, chunks of {} MiB; "
             "median of {} warm runs per input\n",
             n, static_cast<double>(bytes) / double(1 << 30), c.chunk_mib, c.repeat);
  const double baseline =
      bench::median(all[0].make_s) + bench::median(all[0].compute_s); // from_host's total
  std::string json_inputs;
  for (const Timings& t : all) {
    const double make = bench::median(t.make_s), compute = bench::median(t.compute_s);
    const double total = make + compute;
    fmt::print("{:<38} make {:8.4f} s  compute {:8.4f} s  total {:8.4f} s  {:6.2f} GB/s per pass  "
               "saving vs from_host {:+.1f} %\n",
               t.name, make, compute, total, 2.0 * static_cast<double>(bytes) / compute / 1e9,
               100.0 * (baseline - total) / baseline);
    json_inputs += fmt::format(
        R"({}    {{"input": "{}", "make_s": {}, "compute_s": {}, "median_total_s": {:.6g}}})",
        json_inputs.empty() ? "" : ",\n", t.name, bench::json_list(t.make_s),
        bench::json_list(t.compute_s), total);
  }
  fmt::print("result:   ok at up to 1025 probes; bitwise the same for every input and run\n");
  if (!c.json.empty())
    bench::write_file(
        c.json,
        machine.json_header("B2-view") +
            fmt::format(
                R"(  "config": {{"elements": {}, "chunk_mib": {}, "backend": "{}", "repeat": {}}},
  "inputs": [
{}
  ]
}}
)",
                n, c.chunk_mib, c.backend, c.repeat, json_inputs));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "chunked-b2-view-benchmark: %s\n", e.what());
  return 1;
}
