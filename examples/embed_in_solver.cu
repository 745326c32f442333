// SPDX-License-Identifier: Apache-2.0
// chunked embedded in a solver that owns its GPU state: an explicit 2-D heat solver keeps its
// grid in its own device buffers and steps it with its own kernel on its own stream; every few
// steps it asks chunked for statistics of the state (total heat, hottest cell, mean, largest
// change since the last report) and for a derived field, written straight into another device
// buffer of the solver, which the solver's own kernel then reads. The state never goes to the
// host: chunked reads the buffers in place (from_device) and writes into them (to_device).
//
//   chunked_example_embed_in_solver [--size N] [--chunk C] [--steps S] [--every K]
//
// Exits 0 with a message where no CUDA device is visible (the build compiles it wherever CUDA is
// built).
#include <chunked/chunked.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace {

constexpr double alpha = 0.2; // stable for the explicit scheme: alpha <= 1/4

/// Throws with the call's text when a CUDA call fails: the solver's own error handling.
void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}
#define SOLVER_CUDA(call) cuda_check((call), #call)

/// A hot square in the middle of a cold plate.
__global__ void init_kernel(double* u, long long n) {
  const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (idx >= n * n)
    return;
  const long long i = idx / n, j = idx % n;
  const bool hot = i > n / 3 && i < 2 * n / 3 && j > n / 3 && j < 2 * n / 3;
  u[idx] = hot ? 100.0 : 0.0;
}

/// next = u + alpha * laplacian(u), the border held at 0.
__global__ void step_kernel(double* next, const double* u, long long n) {
  const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (idx >= n * n)
    return;
  const long long i = idx / n, j = idx % n;
  if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
    next[idx] = 0.0;
    return;
  }
  const double lap = u[idx - n] + u[idx + n] + u[idx - 1] + u[idx + 1] - 4 * u[idx];
  next[idx] = u[idx] + alpha * lap;
}

/// The solver's use of the derived field: counts the cells that changed by more than `tol`.
__global__ void count_active_kernel(const double* change, long long n, double tol,
                                    unsigned long long* count) {
  const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (idx < n * n && change[idx] > tol)
    atomicAdd(count, 1ull);
}

unsigned blocks_for(long long n) { return static_cast<unsigned>((n + 255) / 256); }

struct Args {
  long long size = 512;
  long long chunk = 128;
  int steps = 200;
  int every = 50;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const long long v = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--size") == 0)
      a.size = v;
    else if (std::strcmp(argv[i], "--chunk") == 0)
      a.chunk = v;
    else if (std::strcmp(argv[i], "--steps") == 0)
      a.steps = static_cast<int>(v);
    else if (std::strcmp(argv[i], "--every") == 0)
      a.every = static_cast<int>(v);
    else
      throw std::runtime_error(std::string("unknown argument ") + argv[i]);
  }
  if (a.size < 3 || a.chunk < 1 || a.steps < 1 || a.every < 1)
    throw std::runtime_error("--size must be at least 3; --chunk, --steps and --every positive");
  return a;
}

/// The solver: its state (two grids, swapped each step), a buffer for the derived field, a
/// counter and the stream its kernels run on, all its own.
class Solver {
public:
  explicit Solver(long long n) : n_(n) {
    const std::size_t bytes = static_cast<std::size_t>(n * n) * sizeof(double);
    SOLVER_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    SOLVER_CUDA(cudaMalloc(&u_, bytes));
    SOLVER_CUDA(cudaMalloc(&next_, bytes));
    SOLVER_CUDA(cudaMalloc(&reported_, bytes));
    SOLVER_CUDA(cudaMalloc(&change_, bytes));
    SOLVER_CUDA(cudaMalloc(&count_, sizeof(unsigned long long)));
    init_kernel<<<blocks_for(n * n), 256, 0, stream_>>>(u_, n);
    SOLVER_CUDA(cudaGetLastError());
    SOLVER_CUDA(cudaMemcpyAsync(reported_, u_, bytes, cudaMemcpyDeviceToDevice, stream_));
  }
  ~Solver() {
    cudaStreamSynchronize(stream_);
    cudaFree(u_);
    cudaFree(next_);
    cudaFree(reported_);
    cudaFree(change_);
    cudaFree(count_);
    cudaStreamDestroy(stream_);
  }
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  void step() {
    step_kernel<<<blocks_for(n_ * n_), 256, 0, stream_>>>(next_, u_, n_);
    SOLVER_CUDA(cudaGetLastError());
    std::swap(u_, next_);
  }

  /// Statistics of the state by chunked, the state read where it is.
  void report(int step, long long chunk) {
    // chunked's computations wait for the steps queued on the solver's stream (an event, no
    // synchronisation), and the solver's later work on it comes after what they write.
    chunked::ComputeOptions opts;
    opts.stream = stream_;
    const chunked::Shape shape{n_, n_};
    const chunked::Chunks chunks{chunk, chunk};
    const auto u = chunked::from_device<chunked::Cuda>(u_, shape, chunks, device_);
    const auto before = chunked::from_device<chunked::Cuda>(reported_, shape, chunks, device_);
    // One pass over the state for the three statistics; only the scalars come to the host.
    const auto [total, hottest, mean, largest] =
        chunked::compute(opts, u.sum(), u.max(), u.mean(), chunked::abs(u - before).max());
    // The derived field goes into the solver's own buffer, then the solver's kernel reads it.
    chunked::abs(u - before).to_device(change_, device_, opts);
    SOLVER_CUDA(cudaMemsetAsync(count_, 0, sizeof(unsigned long long), stream_));
    count_active_kernel<<<blocks_for(n_ * n_), 256, 0, stream_>>>(change_, n_, 1e-3, count_);
    SOLVER_CUDA(cudaGetLastError());
    unsigned long long active = 0;
    SOLVER_CUDA(cudaMemcpyAsync(&active, count_, sizeof active, cudaMemcpyDeviceToHost, stream_));
    // The state at this report is the baseline of the next one (a device-to-device copy).
    SOLVER_CUDA(cudaMemcpyAsync(reported_, u_, static_cast<std::size_t>(n_ * n_) * sizeof(double),
                                cudaMemcpyDeviceToDevice, stream_));
    SOLVER_CUDA(cudaStreamSynchronize(stream_));
    std::printf("step %5d  total heat %.6e  hottest %8.4f  mean %.6f  largest change %.4e  "
                "cells changing > 1e-3: %llu\n",
                step, total.item(), hottest.item(), mean.item(), largest.item(), active);
  }

private:
  long long n_;
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  double* u_ = nullptr;
  double* next_ = nullptr;
  double* reported_ = nullptr;
  double* change_ = nullptr;
  unsigned long long* count_ = nullptr;
};

} // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse(argc, argv);
    if (!chunked::cuda_available()) {
      std::printf("embed_in_solver: no CUDA device is visible; skipping\n");
      return 0;
    }
    SOLVER_CUDA(cudaSetDevice(0));
    Solver solver(args.size);
    solver.report(0, args.chunk);
    for (int s = 1; s <= args.steps; ++s) {
      solver.step();
      if (s % args.every == 0 || s == args.steps)
        solver.report(s, args.chunk);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "embed_in_solver: %s\n", e.what());
    return 1;
  }
}
