// SPDX-License-Identifier: Apache-2.0
// B7's device half (built where CUDA is): the 5-point heat step as the user's own kernel, launched
// on the stream chunked gives each block, and the device copy rate that B7 is measured against.
#include <chunked/core/block_info.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// out (rows x cols) = in + alpha * Laplacian(in) at the centre of in ((rows + 2) x (cols + 2)).
/// One thread per output element, consecutive threads on consecutive columns: every load and
/// the store coalesce, and the three rows a thread block reads stay in L1/L2.
__global__ void heat_kernel(double* __restrict__ out, const double* __restrict__ in, long long rows,
                            long long cols, double alpha) {
  const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (idx >= rows * cols)
    return;
  const long long i = idx / cols, j = idx % cols, w = cols + 2, m = (i + 1) * w + j + 1;
  const double c = in[m];
  out[idx] = c + alpha * (in[m - w] + in[m + w] + in[m - 1] + in[m + 1] - 4 * c);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("b7: ") + what + ": " + cudaGetErrorString(e));
}

} // namespace

void b7_step_device(const chunked::BlockInfo& info, chunked::BlockView<double> out,
                    chunked::BlockView<const double> in, double alpha) {
  const long long rows = info.shape.extents()[0], cols = info.shape.extents()[1];
  const long long n = rows * cols;
  if (n > 0)
    heat_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0,
                  static_cast<cudaStream_t>(info.stream)>>>(out.data, in.data, rows, cols, alpha);
}

/// The device-to-device copy rate in GB/s (bytes read + written), the best of 5 copies of
/// `bytes` on device 0 timed with events.
double b7_device_copy_rate(std::size_t bytes) {
  void *src = nullptr, *dst = nullptr;
  check(cudaMalloc(&src, bytes), "cudaMalloc");
  check(cudaMalloc(&dst, bytes), "cudaMalloc");
  check(cudaMemset(src, 1, bytes), "cudaMemset");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "warm-up copy");
  float best_ms = 1e30f;
  for (int i = 0; i < 5; ++i) {
    check(cudaEventRecord(start), "cudaEventRecord");
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "copy");
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    best_ms = std::min(best_ms, ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * static_cast<double>(bytes) / (best_ms * 1e-3) / 1e9;
}
