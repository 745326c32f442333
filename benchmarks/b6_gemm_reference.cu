// SPDX-License-Identifier: Apache-2.0
// B6's limit on the GPU: one cublasDgemm of n x n float64 operands already in device memory.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "b6 reference: %s failed\n", what);
    std::exit(1);
  }
}

/// Uniform values in [-0.5, 0.5) from a hash of the index: a GPU draws more power, and may clock
/// lower, on random operands than on zeros, so the reference multiplies data like chunked's.
__global__ void fill(double* x, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 16;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = h * (1.0 / 4294967296.0) - 0.5;
  }
}

} // namespace

double b6_cublas_dgemm_seconds(long n, int repeat) {
  const std::size_t bytes = static_cast<std::size_t>(n) * static_cast<std::size_t>(n) * 8;
  double *a = nullptr, *b = nullptr, *c = nullptr;
  check(cudaMalloc(&a, bytes) == cudaSuccess && cudaMalloc(&b, bytes) == cudaSuccess &&
            cudaMalloc(&c, bytes) == cudaSuccess,
        "cudaMalloc");
  fill<<<1024, 256>>>(a, bytes / 8, 1u);
  fill<<<1024, 256>>>(b, bytes / 8, 2u);
  check(cudaDeviceSynchronize() == cudaSuccess, "the fill");
  cublasHandle_t h = nullptr;
  check(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  const double one = 1, zero = 0;
  auto call = [&] {
    check(cublasDgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n) ==
              CUBLAS_STATUS_SUCCESS,
          "cublasDgemm");
    check(cudaDeviceSynchronize() == cudaSuccess, "the DGEMM");
  };
  call();
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  cublasDestroy(h);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}
