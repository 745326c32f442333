// SPDX-License-Identifier: Apache-2.0
// device_copy_rate: how fast GPU 0 copies its own memory, the yardstick of the report's rates on
// the Cuda backend.
#include "backend/cuda/runtime.hpp"
#include "backend/cuda/runtime_api.hpp"

#include <algorithm>

namespace chunked::cuda {

namespace {

double measure_device_copy_rate() {
  if (usable_device_count() == 0)
    return 0;
  constexpr std::size_t bytes = std::size_t{512} << 20;
  const DeviceGuard guard(0);
  void* from = nullptr;
  void* to = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  double best = 0;
  if (cudaMalloc(&from, bytes) == cudaSuccess && cudaMalloc(&to, bytes) == cudaSuccess &&
      cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess) {
    cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice); // the first copy pays for setup
    for (int repeat = 0; repeat < 3; ++repeat) {
      cudaEventRecord(start);
      cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice);
      cudaEventRecord(stop);
      float ms = 0;
      if (cudaEventSynchronize(stop) == cudaSuccess &&
          cudaEventElapsedTime(&ms, start, stop) == cudaSuccess && ms > 0)
        best = std::max(best, 2.0 * static_cast<double>(bytes) / (ms * 1e-3));
    }
  }
  if (start)
    cudaEventDestroy(start);
  if (stop)
    cudaEventDestroy(stop);
  cudaFree(from);
  cudaFree(to);
  cudaGetLastError(); // a failure here only leaves the rate unknown
  return best;
}

} // namespace

double device_copy_rate() {
  static const double rate = measure_device_copy_rate();
  return rate;
}

} // namespace chunked::cuda
