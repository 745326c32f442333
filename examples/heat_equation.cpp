// SPDX-License-Identifier: Apache-2.0
// An explicit 2-D heat solver with map_overlap: u <- u + alpha * laplacian(u) on a periodic
// square, 100 steps, the total heat ("energy", which periodic boundaries conserve) printed every
// 10 steps. Runs on the GPU when this build has CUDA and a device is visible (the step is then
// a device kernel, heat_equation_kernel.cu), else on the CPU. The step takes strided views, so
// each persisted step keeps the plate in one buffer with a frame of halos, and the next step
// reads and writes it in place (rows are contiguous: strides[1] is 1).
//
//   chunked_example_heat_equation [--size N] [--chunk C] [--steps S]
#include <chunked/chunked.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef CHUNKED_EXAMPLE_CUDA
// heat_equation_kernel.cu: the same step as heat_step below, as a kernel on info.stream.
void heat_step_device(const chunked::BlockInfo& info, chunked::View<double> out,
                      chunked::View<const double> in, double alpha);
#endif

namespace {

constexpr double alpha = 0.2; // stable for the explicit scheme: alpha <= 1/4

/// One step on one block: `in` is the block with one element of halo on every side, its rows
/// in.strides[0] elements apart; out's rows are out.strides[0] apart.
void heat_step(const chunked::BlockInfo& info, chunked::View<double> out,
               chunked::View<const double> in) {
  const chunked::index_t rows = info.shape.extents()[0], cols = info.shape.extents()[1];
  const chunked::index_t w = in.strides[0];
  for (chunked::index_t i = 0; i < rows; ++i)
    for (chunked::index_t j = 0; j < cols; ++j) {
      const chunked::index_t m = (i + 1) * w + j + 1;
      const double lap =
          in.data[m - w] + in.data[m + w] + in.data[m - 1] + in.data[m + 1] - 4 * in.data[m];
      out.data[i * out.strides[0] + j] = in.data[m] + alpha * lap;
    }
}

/// A hot square in the middle of a cold plate.
std::vector<double> initial(chunked::index_t n) {
  std::vector<double> u(static_cast<std::size_t>(n * n), 0.0);
  for (chunked::index_t i = n / 4; i < 3 * n / 4; ++i)
    for (chunked::index_t j = n / 4; j < 3 * n / 4; ++j)
      u[static_cast<std::size_t>(i * n + j)] = 100.0;
  return u;
}

template <class B, class Step>
int solve(const char* where, chunked::index_t n, chunked::index_t chunk, int steps, Step step) {
  std::printf("heat equation: %lld x %lld in %lld x %lld chunks, %d steps on %s\n",
              static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(chunk),
              static_cast<long long>(chunk), steps, where);
  auto u = chunked::from_host<B>(initial(n), chunked::Shape{n, n}, chunked::Chunks{chunk, chunk});
  const double energy0 = u.sum().item();
  std::printf("step %4d  energy %.6f\n", 0, energy0);
  for (int s = 1; s <= steps; ++s) {
    // persist() keeps each step's blocks, so that step s + 1 reads them instead of recomputing
    // every earlier step (a user function runs once per block per computation).
    u = chunked::map_overlap<double>(step, u, {1, 1}, chunked::Boundary::periodic).persist();
    if (s % 10 == 0 || s == steps) {
      const double energy = u.sum().item();
      std::printf("step %4d  energy %.6f  max %.6f\n", s, energy, u.max().item());
      if (std::abs(energy - energy0) > 1e-9 * std::abs(energy0)) {
        std::printf("energy not conserved\n");
        return 1;
      }
    }
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  chunked::index_t n = 256, chunk = 64;
  int steps = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--size") == 0)
      n = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--chunk") == 0)
      chunk = std::atoll(argv[i + 1]);
    else if (std::strcmp(argv[i], "--steps") == 0)
      steps = std::atoi(argv[i + 1]);
  }
  try {
#ifdef CHUNKED_EXAMPLE_CUDA
    if (chunked::cuda_available())
      return solve<chunked::Cuda>(
          "the GPU", n, chunk, steps,
          [](const chunked::BlockInfo& info, chunked::View<double> out,
             chunked::View<const double> in) { heat_step_device(info, out, in, alpha); });
#endif
    return solve<chunked::Cpu>("the CPU", n, chunk, steps, heat_step);
  } catch (const chunked::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
