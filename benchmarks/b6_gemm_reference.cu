// SPDX-License-Identifier: Apache-2.0
// B6's limit on the GPU: one cublasDgemm of float64 operands already in device memory, and the
// page-locked memory of the driver's streamed operands.
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

void* b6_pinned_alloc(std::size_t bytes) {
  void* p = nullptr;
  check(cudaHostAlloc(&p, bytes, cudaHostAllocDefault) == cudaSuccess, "cudaHostAlloc");
  return p;
}

void b6_pinned_free(void* p) { cudaFreeHost(p); }

double b6_cublas_dgemm_seconds(long m, long k, long n, int repeat) {
  const auto elements = [](long r, long c) { return static_cast<std::size_t>(r) * c; };
  double *a = nullptr, *b = nullptr, *c = nullptr;
  check(cudaMalloc(&a, elements(m, k) * 8) == cudaSuccess &&
            cudaMalloc(&b, elements(k, n) * 8) == cudaSuccess &&
            cudaMalloc(&c, elements(m, n) * 8) == cudaSuccess,
        "cudaMalloc");
  fill<<<1024, 256>>>(a, elements(m, k), 1u);
  fill<<<1024, 256>>>(b, elements(k, n), 2u);
  check(cudaDeviceSynchronize() == cudaSuccess, "the fill");
  cublasHandle_t h = nullptr;
  check(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  const double one = 1, zero = 0;
  auto call = [&] {
    check(cublasDgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n) ==
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
