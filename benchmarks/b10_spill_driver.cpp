// SPDX-License-Identifier: Apache-2.0
// chunked-b10-benchmark: B10, a standardize (x - x.mean()) / x.std() of a persisted float64
// array several times ComputeOptions::device_memory_limit, so that most of its blocks live in
// page-locked host memory, against the pinned host-to-device copy rate measured in the same run.
//
//   chunked-b10-benchmark [--gib 16] [--limit-gib 4] [--chunk-mib 256] [--backend cpu|cuda|auto]
//                         [--threads N] [--repeat 3] [--spill-dir DIR] [--json FILE]
//
// On a GPU the array is persisted with device_memory_limit = --limit-gib: blocks beyond half of
// it move to pinned host memory, and every run reads them back over the bus. The standardize
// reads x twice (its moments, then the elementwise pass) and writes the result to page-locked
// host memory, so the bytes that must cross the bus host-to-device are 2 x the array (the
// device-resident part excepted); the limit is that over the copy rate measured by
// cudaMemcpyAsync of a large pinned buffer. On the CPU the array is persisted with
// host_memory_limit = --limit-gib, its other blocks in files under --spill-dir; there is no
// copy rate to compare with, and the driver reports the time and the bytes read only. Results
// are checked bitwise against the same standardize of the array persisted without limits.
#include "driver_util.hpp"

#include "backend/cuda/runtime_api.hpp"
#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#if defined(CHUNKED_B10_CUDA)
#include <cuda_runtime.h>
#endif

using namespace chunked;

namespace {

struct Config : bench::SizeOptions {
  Config() : SizeOptions(3, 256) { gib = 16.0; }
  double limit_gib = 4.0;
  std::string spill_dir;
};

constexpr const char* usage_text =
    "usage: chunked-b10-benchmark [--gib G] [--limit-gib L] [--chunk-mib M]\n"
    "                             [--backend cpu|cuda|auto] [--threads N] [--repeat R]\n"
    "                             [--spill-dir DIR] [--json FILE]\n"
    "  --gib        size of the persisted array in GiB (default 16)\n"
    "  --limit-gib  device_memory_limit on a GPU, host_memory_limit on the CPU (default 4)\n"
    "  --chunk-mib  chunk size in MiB (default 256)\n"
    "  --spill-dir  spill_directory (default: the system's temporary "
    "directory)\n" CHUNKED_BENCH_USAGE_COMMON("timed runs after a warm-up (default 3)");

/// The name of device 0 and its pinned host-to-device copy rate in bytes per second (median of
/// five cudaMemcpyAsync of a 1 GiB page-locked buffer); an empty name and 0 without CUDA.
std::pair<std::string, double> pinned_copy_rate() {
#if defined(CHUNKED_B10_CUDA)
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
    throw std::runtime_error("cudaGetDeviceProperties failed");
  const std::size_t bytes = std::size_t{1} << 30;
  void* host = nullptr;
  void* device = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  if (cudaMallocHost(&host, bytes) != cudaSuccess || cudaMalloc(&device, bytes) != cudaSuccess ||
      cudaStreamCreate(&stream) != cudaSuccess || cudaEventCreate(&start) != cudaSuccess ||
      cudaEventCreate(&stop) != cudaSuccess)
    throw std::runtime_error("cannot allocate the copy-rate probe's buffers");
  std::memset(host, 1, bytes);
  std::vector<double> rates;
  for (int run = 0; run < 6; ++run) {
    cudaEventRecord(start, stream);
    cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream);
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (run > 0)
      rates.push_back(static_cast<double>(bytes) / (static_cast<double>(ms) * 1e-3));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  cudaFree(device);
  cudaFreeHost(host);
  return {prop.name, bench::median(rates)};
#else
  return {"", 0.0};
#endif
}

template <class B> auto standardize(const ChunkedArray<double, B>& x) {
  return (x - x.mean()) / x.std();
}

} // namespace

int main(int argc, char** argv) try {
  Config c;
  if (!bench::parse_command_line(argc, argv, "chunked-b10-benchmark", usage_text, 0, c,
                                 [&](std::string_view arg, std::string_view value) {
                                   if (arg == "--limit-gib") {
                                     c.limit_gib = bench::parse_positive(arg, value);
                                     return true;
                                   }
                                   if (arg == "--spill-dir") {
                                     c.spill_dir = std::string(value);
                                     return true;
                                   }
                                   return bench::parse_size_option(arg, value, c);
                                 }))
    return 2;
  const bench::Machine machine(c.backend);
  const std::int64_t cols = 4096;
  const std::int64_t rows = c.rows(cols, 1, "one row of 4096");
  const std::int64_t chunk_rows =
      std::max<std::int64_t>(c.chunk_mib * (std::int64_t{1} << 20) / (8 * cols), 1);
  const auto bytes = static_cast<std::size_t>(rows * cols) * 8;
  const auto limit = static_cast<std::size_t>(c.limit_gib * double(1 << 30));
  const auto [gpu_name, copy_rate] =
      machine.gpu ? pinned_copy_rate() : std::pair<std::string, double>{"", 0.0};

  ComputeOptions plain = bench::compute_options(c);
  ComputeOptions limited = plain;
  limited.spill_directory = c.spill_dir;
  if (machine.gpu)
    limited.device_memory_limit = limit;
  else
    limited.host_memory_limit = limit;
  const auto out_buffer = cuda::make_transfer_buffer(bytes);
  const std::span<double> out(static_cast<double*>(out_buffer->data()), bytes / 8);

  std::vector<double> seconds;
  bench::with_backend(c.backend, [&]<class B>() {
    Generator g(10);
    const auto source = g.normal<double, B>(Shape{rows, cols}, Chunks{chunk_rows, cols});
    // The reference: the same standardize with every block where the backend computes.
    std::vector<double> reference;
    {
      const auto whole = source.persist(plain);
      standardize(whole).to_host(out, plain);
      const std::size_t step = std::max<std::size_t>(out.size() / 4096, 1);
      for (std::size_t i = 0; i < out.size(); i += step)
        reference.push_back(out[i]);
    }
    const auto x = source.persist(limited);
    for (int run = 0; run <= c.repeat; ++run) {
      // Under the same limit: the computation's own copies of the blocks count against it too.
      const double s = bench::seconds_of([&] { standardize(x).to_host(out, limited); });
      const std::size_t step = std::max<std::size_t>(out.size() / 4096, 1);
      for (std::size_t i = 0, k = 0; i < out.size(); i += step, ++k)
        if (std::memcmp(&out[i], &reference[k], sizeof(double)) != 0)
          throw std::runtime_error(fmt::format(
              "element {} is {:.17g} with spilling, {:.17g} without", i, out[i], reference[k]));
      if (run > 0 || c.repeat == 0)
        seconds.push_back(s);
    }
    return 0;
  });

  // Half the device limit keeps persisted blocks on the device; the rest cross the bus twice.
  const std::size_t resident = machine.gpu ? std::min(bytes, limit / 2) : 0;
  const double bus_bytes = 2.0 * static_cast<double>(bytes - resident);
  const double median = bench::median(seconds);
  const double limit_s = copy_rate > 0 ? bus_bytes / copy_rate : 0.0;
  machine.print_header("chunked-b10-benchmark");
  if (machine.gpu)
    fmt::print("gpu:      {}; pinned host-to-device copy {:.2f} GB/s (cudaMemcpyAsync, 1 GiB)\n",
               gpu_name, copy_rate / 1e9);
  fmt::print("config:   (x - x.mean()) / x.std() of a persisted {} x {} float64 ({:.3g} GiB), "
             "chunks of {} rows; {} {:.3g} GiB; median of {} runs\n",
             rows, cols, static_cast<double>(bytes) / double(1 << 30), chunk_rows,
             machine.gpu ? "device_memory_limit" : "host_memory_limit", c.limit_gib, c.repeat);
  fmt::print("time:     {:.4f} s; {:.3g} GB read back {}, {:.2f} GB/s\n", median, bus_bytes / 1e9,
             machine.gpu ? "over the bus" : "from memory and spill files",
             bus_bytes / median / 1e9);
  if (limit_s > 0)
    fmt::print("limit:    {:.4f} s at the pinned copy rate; ratio {:.1f} % (target >= 85 %)\n",
               limit_s, 100.0 * limit_s / median);
  else
    fmt::print("limit:    none measured (needs a GPU: the CPU run spills to files)\n");
  fmt::print("result:   bitwise equal to the standardize without limits at {} probes\n",
             std::min<std::size_t>(out.size(), 4097));
  if (!c.json.empty())
    bench::write_file(c.json, machine.json_header("B10") +
                                  fmt::format(
                                      R"(  "gpu": "{}",
  "config": {{"rows": {}, "cols": {}, "chunk_rows": {}, "limit_bytes": {}, "repeat": {}}},
  "seconds": {},
  "median_s": {:.6g},
  "bus_bytes": {:.6g},
  "pinned_copy_rate_bytes_per_s": {:.6g},
  "limit_s": {:.6g},
  "ratio": {:.4g}
}}
)",
                                      bench::json_escape(gpu_name), rows, cols, chunk_rows, limit,
                                      c.repeat, bench::json_list(seconds), median, bus_bytes,
                                      copy_rate, limit_s, limit_s > 0 ? limit_s / median : 0.0));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "chunked-b10-benchmark: %s\n", e.what());
  return 1;
}
