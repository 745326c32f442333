// SPDX-License-Identifier: Apache-2.0
// chunked-reshape-benchmark: the data-moving shape operations on an n x n float64 array held in
// the backend's memory, against the copy rate of the same machine.
//
//   chunked-reshape-benchmark [--n 16384] [--chunk 4096] [--backend cpu|cuda|auto]
//                             [--threads N] [--repeat 3] [--json FILE]
//
// x is a random normal array persisted in backend memory (device memory on Cuda), in square
// chunks. Two computations are timed, each reading x once:
//   (a) transpose(x).sum(Axes{0})                   a view: the reduction reads x's blocks
//                                                   through the transposed index map
//   (b) reshape(reshape(x, {2n, n/2}), {n, n}).sum() two reshapes whose blocks are assembled by
//                                                   copies of x's blocks, then reduced
// and reported as x's bytes over the time (GB/s), beside the copy limit measured here in the same
// process: a device-to-device cudaMemcpy of x's size on Cuda, a memcpy of x's size split over
// the worker threads on the CPU. Results are checked against x.sum(Axes{1}) and x.sum().
#include "driver_util.hpp"

#include <chunked/chunked.hpp>

#if CHUNKED_RESHAPE_BENCH_CUDA
#include <cuda_runtime.h>
#endif

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace chunked;

namespace {

struct Config : bench::CommonOptions {
  Config() : CommonOptions(3) {}
  std::int64_t n = 16384;
  std::int64_t chunk = 4096;
};

constexpr const char* usage_text =
    "usage: chunked-reshape-benchmark [--n N] [--chunk C] [--backend cpu|cuda|auto]\n"
    "                                 [--threads N] [--repeat R] [--json FILE]\n"
    "  --n          the array is N x N float64 (default 16384: 2 GiB); N even\n"
    "  --chunk      square chunks of C x C (default 4096)\n" CHUNKED_BENCH_USAGE_COMMON(
        "timed runs after a warm-up run (default 3)");

bool parse_args(int argc, char** argv, Config& c) {
  return bench::parse_command_line(argc, argv, "chunked-reshape-benchmark", usage_text, 1, c,
                                   [&](std::string_view arg, std::string_view value) {
                                     if (arg == "--n")
                                       c.n = bench::parse_int(arg, value, 2);
                                     else if (arg == "--chunk")
                                       c.chunk = bench::parse_int(arg, value, 1);
                                     else
                                       return false;
                                     if (c.n % 2 != 0)
                                       throw std::invalid_argument(
                                           "--n must be even (the reshape is to 2N x N/2)");
                                     return true;
                                   });
}

/// Seconds of the median of `repeat` copies of `bytes` bytes between two host buffers, the copy
/// split over `threads` threads (each its own contiguous part), after one untimed copy.
double host_copy_seconds(std::size_t bytes, int threads, int repeat) {
  std::vector<char> from(bytes, 1), to(bytes, 0);
  const auto parts = static_cast<std::size_t>(std::max(threads, 1));
  auto copy = [&] {
    std::vector<std::thread> pool;
    for (std::size_t p = 0; p < parts; ++p)
      pool.emplace_back([&, p] {
        const std::size_t lo = bytes * p / parts, hi = bytes * (p + 1) / parts;
        std::memcpy(to.data() + lo, from.data() + lo, hi - lo);
      });
    for (auto& t : pool)
      t.join();
  };
  copy();
  std::vector<double> s;
  for (int r = 0; r < repeat; ++r)
    s.push_back(bench::seconds_of(copy));
  return bench::median(s);
}

/// The same for one device-to-device cudaMemcpy on device 0; 0 without a CUDA build.
double device_copy_seconds([[maybe_unused]] std::size_t bytes, [[maybe_unused]] int repeat) {
#if CHUNKED_RESHAPE_BENCH_CUDA
  void *from = nullptr, *to = nullptr;
  auto check = [](cudaError_t e, const char* what) {
    if (e != cudaSuccess)
      throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
  };
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaMalloc(&from, bytes), "cudaMalloc");
  check(cudaMalloc(&to, bytes), "cudaMalloc");
  check(cudaMemset(from, 1, bytes), "cudaMemset");
  auto copy = [&] {
    check(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  };
  copy();
  std::vector<double> s;
  for (int r = 0; r < repeat; ++r)
    s.push_back(bench::seconds_of(copy));
  cudaFree(from);
  cudaFree(to);
  return bench::median(s);
#else
  throw std::runtime_error("this build of chunked-reshape-benchmark has no CUDA");
#endif
}

struct Result {
  std::vector<double> transpose_s, round_trip_s;
  double transpose_error = 0, round_trip_error = 0;
};

template <class B> Result measure(const Config& c, const ComputeOptions& options) {
  const index_t n = c.n;
  Generator rng(7);
  const auto x =
      rng.normal<double, B>(Shape{n, n}, Chunks{c.chunk, c.chunk}, 0.0, 1.0).persist(options);
  const NDArray<double> rows = x.sum(Axes{1}).compute(options);
  const double total = x.sum().item(options);
  Result r;
  for (int run = 0; run <= c.repeat; ++run) {
    NDArray<double> cols;
    const double t = bench::seconds_of([&] { cols = transpose(x).sum(Axes{0}).compute(options); });
    double err = 0;
    for (index_t i = 0; i < n; ++i)
      err = std::max(err,
                     std::abs(cols.data()[i] - rows.data()[i]) / (1.0 + std::abs(rows.data()[i])));
    r.transpose_error = std::max(r.transpose_error, err);
    double s = 0;
    const double u = bench::seconds_of([&] {
      s = reshape(reshape(x, {2 * n, n / 2}), {n, n}).sum().item(options);
    });
    r.round_trip_error =
        std::max(r.round_trip_error, std::abs(s - total) / (1.0 + std::abs(total)));
    wait_for_kernels(); // warm runs launch the fused kernels
    if (run > 0) {
      r.transpose_s.push_back(t);
      r.round_trip_s.push_back(u);
    }
  }
  if (r.transpose_error > 1e-9 || r.round_trip_error > 1e-9)
    throw std::runtime_error(fmt::format("wrong result: relative errors {:.3g} (transpose), "
                                         "{:.3g} (reshape round trip)",
                                         r.transpose_error, r.round_trip_error));
  return r;
}

} // namespace

int main(int argc, char** argv) try {
  Config c;
  if (!parse_args(argc, argv, c))
    return 2;
  ComputeOptions options = bench::compute_options(c);
  const bench::Machine machine(c.backend);
  const double bytes = static_cast<double>(c.n) * static_cast<double>(c.n) * 8.0;
  const Result r =
      bench::with_backend(c.backend, [&]<class B>() { return measure<B>(c, options); });
  const int threads = c.threads > 0 ? c.threads : static_cast<int>(machine.cores);
  const double copy_s = machine.gpu
                            ? device_copy_seconds(static_cast<std::size_t>(bytes), c.repeat)
                            : host_copy_seconds(static_cast<std::size_t>(bytes), threads, c.repeat);
  const double copy_rate = bytes / copy_s / 1e9;
  const double transpose_rate = bytes / bench::median(r.transpose_s) / 1e9;
  const double round_trip_rate = bytes / bench::median(r.round_trip_s) / 1e9;

  machine.print_header("chunked-reshape-benchmark");
  fmt::print(
      "config:   x = normal {} x {} float64 ({:.3g} GiB) persisted, chunks {} x {}; 1 warm-up "
      "+ {} runs\n",
      c.n, c.n, bytes / double(1 << 30), c.chunk, c.chunk, c.repeat);
  fmt::print("copy:     {} of {:.3g} GB: {:.2f} GB/s (the limit below)\n",
             machine.gpu ? "device-to-device cudaMemcpy"
                         : fmt::format("memcpy over {} threads", threads),
             bytes / 1e9, copy_rate);
  fmt::print("(a)       transpose(x).sum(Axes{{0}}): median {:.4f} s, {:.2f} GB/s = {:.2f} of the "
             "copy rate (relative error {:.2g})\n",
             bench::median(r.transpose_s), transpose_rate, transpose_rate / copy_rate,
             r.transpose_error);
  fmt::print(
      "(b)       reshape(reshape(x, {{2n, n/2}}), {{n, n}}).sum(): median {:.4f} s, {:.2f} GB/s "
      "= {:.2f} of the copy rate (relative error {:.2g})\n",
      bench::median(r.round_trip_s), round_trip_rate, round_trip_rate / copy_rate,
      r.round_trip_error);
  if (!c.json.empty())
    bench::write_file(c.json, machine.json_header("reshape") +
                                  fmt::format(R"(  "n": {}, "chunk": {}, "bytes": {},
  "copy_gbps": {:.6g},
  "transpose_sum_s": {}, "transpose_sum_gbps": {:.6g},
  "reshape_round_trip_s": {}, "reshape_round_trip_gbps": {:.6g}
}}
)",
                                              c.n, c.chunk, bytes, copy_rate,
                                              bench::json_list(r.transpose_s), transpose_rate,
                                              bench::json_list(r.round_trip_s), round_trip_rate));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "chunked-reshape-benchmark: %s\n", e.what());
  return 1;
}
