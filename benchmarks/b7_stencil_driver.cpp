// SPDX-License-Identifier: Apache-2.0
// chunked-b7-benchmark: BENCHMARKS.md B7, steps of a 5-point heat stencil (u + alpha *
// Laplacian(u), periodic) by map_overlap with a halo of 1, each step persisted.
//
//   chunked-b7-benchmark [--size 32768] [--chunk 4096] [--steps 100] [--backend cpu|cuda|auto]
//                        [--probe stencil|interior|halo|copy] [--views strided|dense]
//
// The stencil takes strided views by default (user_code.hpp): each persisted step keeps the
// array in one buffer with a frame of halos, and the next step reads and writes it in place.
// `--views dense` runs the same stencil on dense blocks, each step gathering every block's halo
// into a padded copy first.
// The probes time what surrounds the user's kernel: `interior` runs map_overlap with a kernel
// that only copies its block out of the padded input (the halo gather and a copy), `halo` one that
// does nothing (the gather alone; the values are then garbage and not checked), `copy` runs
// map_blocks with a plain copy of each block (no halo).
// Prints the time per step and the rate of one read and one write of the array per step, beside
// the copy limit measured in the same process: a device-to-device copy on a GPU
// (b7_stencil_kernel.cu), the fastest multi-threaded memcpy on the CPU. The energy (sum of u),
// which periodic boundaries conserve, is checked at the end.
#include <chunked/chunked.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#ifdef CHUNKED_B7_CUDA
void b7_step_device(const chunked::BlockInfo& info, chunked::BlockView<double> out,
                    chunked::BlockView<const double> in, double alpha);
void b7_step_device_strided(const chunked::BlockInfo& info, chunked::View<double> out,
                            chunked::View<const double> in, double alpha);
void b7_interior_device(const chunked::BlockInfo& info, chunked::BlockView<double> out,
                        chunked::BlockView<const double> in);
void b7_copy_device(const chunked::BlockInfo& info, chunked::BlockView<double> out,
                    chunked::BlockView<const double> in);
double b7_device_copy_rate(std::size_t bytes);
#endif

using namespace chunked;

namespace {

constexpr double alpha = 0.2;

struct Config {
  index_t size = 32768, chunk = 4096;
  int steps = 100;
  std::string backend = "auto";
  std::string probe = "stencil";
  std::string views = "strided";
};

/// One step of `rows` x `cols` values: `in` starts at the block's halo, its rows `w` apart, and
/// `out`'s rows are `ow` apart.
void step_rows(index_t rows, index_t cols, const double* in, index_t w, double* out, index_t ow) {
  for (index_t i = 0; i < rows; ++i) {
    const double* up = in + i * w + 1;
    const double* mid = up + w;
    const double* down = mid + w;
    double* o = out + i * ow;
    for (index_t j = 0; j < cols; ++j)
      o[j] = mid[j] + alpha * (up[j] + down[j] + mid[j - 1] + mid[j + 1] - 4 * mid[j]);
  }
}

void step_host(const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
  const index_t rows = info.shape.extents()[0], cols = info.shape.extents()[1];
  step_rows(rows, cols, in.data, cols + 2, out.data, cols);
}

void step_host_strided(const BlockInfo& info, View<double> out, View<const double> in) {
  step_rows(info.shape.extents()[0], info.shape.extents()[1], in.data, in.strides[0], out.data,
            out.strides[0]);
}

void interior_host(const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
  const index_t rows = info.shape.extents()[0], cols = info.shape.extents()[1], w = cols + 2;
  for (index_t i = 0; i < rows; ++i)
    std::memcpy(out.data + i * cols, in.data + (i + 1) * w + 1,
                static_cast<std::size_t>(cols) * sizeof(double));
}

void nothing_host(const BlockInfo&, BlockView<double>, BlockView<const double>) {}

void copy_host(const BlockInfo&, BlockView<double> out, BlockView<const double> in) {
  std::memcpy(out.data, in.data, static_cast<std::size_t>(out.size()) * sizeof(double));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The fastest memcpy of `bytes` (read + written counted) over 1, 2, 4, ... hardware threads.
double host_copy_rate(std::size_t bytes) {
  const std::size_t n = bytes;
  auto src = std::make_unique<unsigned char[]>(n), dst = std::make_unique<unsigned char[]>(n);
  std::memset(src.get(), 1, n);
  std::memset(dst.get(), 2, n);
  const int hw = std::max(1u, std::thread::hardware_concurrency());
  double best = 0;
  for (int count = 1;; count = std::min(2 * count, hw)) {
    const std::size_t part =
        (n + static_cast<std::size_t>(count) - 1) / static_cast<std::size_t>(count);
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> pool;
      for (int t = 0; t < count; ++t)
        pool.emplace_back([&, t] {
          const std::size_t lo = std::min(n, static_cast<std::size_t>(t) * part);
          const std::size_t hi = std::min(n, lo + part);
          std::memcpy(dst.get() + lo, src.get() + lo, hi - lo);
        });
      for (auto& th : pool)
        th.join();
      best = std::max(best, 2.0 * static_cast<double>(n) / seconds_since(t0) / 1e9);
    }
    if (count == hw)
      return best;
  }
}

/// The functions of one run: the stencil (or the interior probe) by map_overlap, or the copy
/// probe by map_blocks.
template <class Step, class Copy> struct StepFunctions {
  Step step;
  Copy copy;
};

template <class B, class Step, class Copy>
int run(const Config& c, const char* where, StepFunctions<Step, Copy> fns, double limit) {
  const index_t n = c.size;
  std::vector<double> init(static_cast<std::size_t>(n * n));
  for (index_t i = 0; i < n * n; ++i)
    init[static_cast<std::size_t>(i)] = static_cast<double>(i % 1009) * 1e-3;
  auto u = from_host<B>(init, Shape{n, n}, Chunks{c.chunk, c.chunk}).persist();
  init = {};
  const double energy0 = u.sum().item();
  auto advance = [&] {
    u = c.probe == "copy" ? map_blocks<double>(fns.copy, u).persist()
                          : map_overlap<double>(fns.step, u, {1, 1}, Boundary::periodic).persist();
  };
  // Two untimed steps: they compile and allocate what the steps need (a persisted stencil on
  // strided views alternates between two buffers, the step's input and its output).
  advance();
  advance();
  const auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < c.steps; ++s)
    advance();
  const double total = seconds_since(t0);
  const double per_step = total / c.steps;
  const double bytes = 2.0 * static_cast<double>(n) * static_cast<double>(n) * sizeof(double);
  const double rate = bytes / per_step / 1e9;
  const double energy = u.sum().item();
  std::printf("B7 %s (%s views) on %s: %lld^2 float64 in %lld^2 chunks, %d steps\n",
              c.probe.c_str(), c.probe == "stencil" ? c.views.c_str() : "dense", where,
              static_cast<long long>(n), static_cast<long long>(c.chunk), c.steps);
  std::printf("  time per step   %.6f s\n", per_step);
  std::printf("  rate            %.2f GB/s (one read + one write per step)\n", rate);
  std::printf("  copy limit      %.2f GB/s  -> %.1f %% of it\n", limit, 100.0 * rate / limit);
  std::printf("  energy          %.9g (start %.9g)\n", energy, energy0);
  return c.probe == "halo" || std::abs(energy - energy0) <= 1e-8 * std::abs(energy0) ? 0 : 1;
}

bool parse(int argc, char** argv, Config& c) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc)
      return false;
    const char* v = argv[++i];
    if (a == "--size")
      c.size = std::atoll(v);
    else if (a == "--chunk")
      c.chunk = std::atoll(v);
    else if (a == "--steps")
      c.steps = std::atoi(v);
    else if (a == "--backend")
      c.backend = v;
    else if (a == "--probe")
      c.probe = v;
    else if (a == "--views")
      c.views = v;
    else
      return false;
  }
  return c.size > 0 && c.chunk > 0 && c.steps > 0 &&
         (c.backend == "cpu" || c.backend == "cuda" || c.backend == "auto") &&
         (c.probe == "stencil" || c.probe == "interior" || c.probe == "halo" ||
          c.probe == "copy") &&
         (c.views == "strided" || c.views == "dense");
}

} // namespace

int main(int argc, char** argv) {
  Config c;
  if (!parse(argc, argv, c)) {
    std::fprintf(stderr, "usage: chunked-b7-benchmark [--size N] [--chunk C] [--steps S] "
                         "[--backend cpu|cuda|auto] [--probe stencil|interior|halo|copy] "
                         "[--views strided|dense]\n");
    return 2;
  }
  const std::size_t bytes =
      static_cast<std::size_t>(c.size) * static_cast<std::size_t>(c.size) * sizeof(double);
  try {
    const bool gpu = c.backend == "cuda" || (c.backend == "auto" && cuda_available());
    if (gpu) {
#ifdef CHUNKED_B7_CUDA
      if (c.probe == "stencil" && c.views == "strided") {
        auto step = [](const BlockInfo& info, View<double> out, View<const double> in) {
          b7_step_device_strided(info, out, in, alpha);
        };
        return run<Cuda>(
            c, "the GPU",
            StepFunctions<decltype(step), decltype(&b7_copy_device)>{step, &b7_copy_device},
            b7_device_copy_rate(bytes));
      }
      const bool interior = c.probe == "interior", halo = c.probe == "halo";
      auto step = [interior, halo](const BlockInfo& info, BlockView<double> out,
                                   BlockView<const double> in) {
        if (halo)
          return;
        if (interior)
          b7_interior_device(info, out, in);
        else
          b7_step_device(info, out, in, alpha);
      };
      return run<Cuda>(
          c, "the GPU",
          StepFunctions<decltype(step), decltype(&b7_copy_device)>{step, &b7_copy_device},
          b7_device_copy_rate(bytes));
#else
      std::fprintf(stderr, "chunked-b7-benchmark: this build has no CUDA\n");
      return 1;
#endif
    }
    using HostFn = void (*)(const BlockInfo&, BlockView<double>, BlockView<const double>);
    if (c.probe == "stencil" && c.views == "strided") {
      using StridedFn = void (*)(const BlockInfo&, View<double>, View<const double>);
      return run<Cpu>(c, "the CPU",
                      StepFunctions<StridedFn, HostFn>{&step_host_strided, &copy_host},
                      host_copy_rate(bytes));
    }
    const HostFn step = c.probe == "interior" ? &interior_host
                        : c.probe == "halo"   ? &nothing_host
                                              : &step_host;
    return run<Cpu>(c, "the CPU", StepFunctions<HostFn, HostFn>{step, &copy_host},
                    host_copy_rate(bytes));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
