// SPDX-License-Identifier: Apache-2.0
// The seed benchmark on one GPU: the library through the public API (first and warm runs) beside
// a hand-written fused kernel that generates only the kept elements (cuRAND Philox + Box-Muller),
// adds 1 and sums; both timed in the same process.
//
//   cuda_reference_kernel [n = 500000] [chunk = 10000]
//
// nvcc compiles the kernel half (the public API's fmt headers do not go through nvcc's C++20
// host pass), the host compiler the driver half, from this one file:
//   nvcc -std=c++17 -O3 -arch=sm_90 -c cuda_reference_kernel.cu -o kernel.o
//   g++ -std=c++20 -O2 -x c++ cuda_reference_kernel.cu -x none kernel.o -lchunked -lcudart ...
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

/// Runs the reference kernel once; returns the sum and sets *ms to its event-timed duration.
double chunked_reference_seed_sum(long long n, int variant, float* ms);

/// Both halves exit on any failing CUDA runtime call, naming it.
#define CHECK(call)                                                                                \
  do {                                                                                             \
    const cudaError_t s_ = (call);                                                                 \
    if (s_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(s_));                             \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

#if defined(__CUDACC__)
#include <curand_philox4x32_x.h>

namespace {

// Element (2r, 2c) of normal(10, 1) over an n x n array, seed 42, stream 0: flat index e is even,
// so it takes the sinpi half of the Box-Muller pair of Philox block e / 2.
__device__ __forceinline__ double kept_value(unsigned long long block, bool sin_only) {
  const uint2 key = make_uint2(42u, 0u);
  const uint4 w = curand_Philox4x32_10(
      make_uint4(static_cast<unsigned>(block), static_cast<unsigned>(block >> 32), 0u, 0u), key);
  const double u = (w.x ^ (static_cast<unsigned long long>(w.y) << 21)) * 0x1p-53 + 0x1p-54;
  const double v = (w.z ^ (static_cast<unsigned long long>(w.w) << 21)) * 0x1p-52 + 0x1p-53;
  double s, co;
  if (sin_only)
    s = sinpi(v);
  else
    sincospi(v, &s, &co);
  return __fma_rn(1.0, sqrt(-2.0 * log(u)) * s, 10.0) + 1.0;
}

__device__ __forceinline__ void block_sum(double acc, double* result) {
  __shared__ double shared[256];
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      shared[threadIdx.x] += shared[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(result, shared[0]);
}

// One flat grid-stride loop over the kept elements: a 64-bit division per element.
__global__ void __launch_bounds__(256) reference_flat(long long n, bool sin_only, double* result) {
  const long long half = n / 2, kept = half * half;
  double acc = 0.0;
  for (long long k = blockIdx.x * 256ll + threadIdx.x; k < kept; k += 256ll * gridDim.x) {
    const long long r = k / half, c = k - r * half;
    acc += kept_value(static_cast<unsigned long long>((2 * r) * n + 2 * c) >> 1, sin_only);
  }
  block_sum(acc, result);
}

// CUDA blocks walk kept rows, threads walk columns: no division.
__global__ void __launch_bounds__(256) reference_rows(long long n, bool sin_only, double* result) {
  const long long half = n / 2;
  double acc = 0.0;
  for (long long r = blockIdx.x; r < half; r += gridDim.x)
    for (long long c = threadIdx.x; c < half; c += 256)
      acc += kept_value(static_cast<unsigned long long>(r * n + c), sin_only);
  block_sum(acc, result);
}

} // namespace

/// Variants: 0 flat + sincospi, 1 rows + sincospi, 2 rows + sinpi only.
double chunked_reference_seed_sum(long long n, int variant, float* ms) {
  static double* result = nullptr;
  static cudaEvent_t start, stop;
  static int sms = 0;
  if (!result) {
    CHECK(cudaMalloc(&result, sizeof(double)));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  }
  CHECK(cudaMemset(result, 0, sizeof(double)));
  CHECK(cudaEventRecord(start));
  if (variant == 0)
    reference_flat<<<sms * 8, 256>>>(n, false, result);
  else
    reference_rows<<<sms * 8, 256>>>(n, variant == 2, result);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaEventElapsedTime(ms, start, stop));
  double s = 0;
  CHECK(cudaMemcpy(&s, result, sizeof(double), cudaMemcpyDeviceToHost));
  return s;
}
#else
#include <chunked/chunked.hpp>

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv) {
  using namespace chunked;
  const index_t n = argc > 1 ? std::atoll(argv[1]) : 500000;
  const index_t chunk = argc > 2 ? std::atoll(argv[2]) : 10000;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs; n = %lld, chunks %lld\n", prop.name, prop.multiProcessorCount,
              static_cast<long long>(n), static_cast<long long>(chunk));

  // Interleaved, so that both see the same clocks: library warm runs and the best kernel variant.
  ComputeOptions one_gpu;
  one_gpu.devices = {0};
  std::vector<double> ours, reference;
  const char* variants[] = {"flat, sincospi", "rows, sincospi", "rows, sinpi only"};
  for (int run = 0; run < 6; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    Generator rng(42);
    auto x = rng.normal<double, Cuda>(Shape{n, n}, Chunks{chunk, chunk}, 10.0, 1.0);
    const double s = (x + 1.0)(slice(none, none, 2), slice(none, none, 2)).sum().item(one_gpu);
    const double t = seconds_since(t0);
    if (run > 0)
      ours.push_back(t);
    std::printf("chunked %s run: %.4f s, sum %.17g\n", run == 0 ? "first" : "warm ", t, s);
    for (int variant = run == 0 ? 0 : 2; variant < 3; ++variant) {
      float ms = 0;
      const double r = chunked_reference_seed_sum(n, variant, &ms);
      if (variant == 2 && run > 0)
        reference.push_back(ms / 1000.0);
      std::printf("reference kernel (%s): %.4f s, sum %.17g\n", variants[variant], ms / 1000.0, r);
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf(
      "median warm: chunked %.4f s, reference kernel (rows, sinpi only) %.4f s, ratio %.3f\n",
      median(ours), median(reference), median(ours) / median(reference));
  return 0;
}
#endif
