// SPDX-License-Identifier: Apache-2.0
// B7's device half (built where CUDA is): the 5-point heat step as the user's own kernel, launched
// on the stream chunked gives each block, and the device copy rate that B7 is measured against.
#include <chunked/core/block_info.hpp>
#include <chunked/core/view.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/// out (rows x cols) = in + alpha * Laplacian(in) at the centre of in ((rows + 2) x (cols + 2)).
/// Thread blocks cover a piece of one row (grid.y walks rows), consecutive threads on consecutive
/// columns: every load and the store coalesce, the three rows a thread block reads stay in L1/L2,
/// and no thread divides to find its row.
__global__ void heat_kernel(double* __restrict__ out, const double* __restrict__ in, long long rows,
                            long long cols, double alpha) {
  const long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (j >= cols)
    return;
  const long long w = cols + 2;
  for (long long i = blockIdx.y; i < rows; i += gridDim.y) {
    const long long m = (i + 1) * w + j + 1;
    const double c = in[m];
    out[i * cols + j] = c + alpha * (in[m - w] + in[m + w] + in[m - 1] + in[m + 1] - 4 * c);
  }
}

/// The same step on strided views: `in` starts at the block's halo, rows `in_row` apart, and `out`
/// rows `out_row` apart (inside a persisted stencil's one buffer, both are that buffer's rows).
/// Each thread walks `strided_rows` rows of one column, keeping the rows above and below in
/// registers: one new load per output from memory, its left and right neighbours from L1.
constexpr int strided_rows = 8;
__global__ void heat_kernel_strided(double* __restrict__ out, const double* __restrict__ in,
                                    long long rows, long long cols, long long in_row,
                                    long long out_row, double alpha) {
  const long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long i0 = static_cast<long long>(blockIdx.y) * strided_rows;
  if (j >= cols || i0 >= rows)
    return;
  const long long i1 = i0 + strided_rows < rows ? i0 + strided_rows : rows;
  const double* p = in + (i0 + 1) * in_row + j + 1;
  double up = p[-in_row], mid = p[0];
  for (long long i = i0; i < i1; ++i, p += in_row) {
    const double down = p[in_row];
    out[i * out_row + j] = mid + alpha * (up + down + p[-1] + p[1] - 4 * mid);
    up = mid;
    mid = down;
  }
}

/// out (rows x cols) = the centre of in ((rows + 2) x (cols + 2)): the probe that times what
/// map_overlap costs around a kernel that only moves its block.
__global__ void interior_kernel(double* __restrict__ out, const double* __restrict__ in,
                                long long rows, long long cols) {
  const long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (j >= cols)
    return;
  for (long long i = blockIdx.y; i < rows; i += gridDim.y)
    out[i * cols + j] = in[(i + 1) * (cols + 2) + j + 1];
}

constexpr int row_threads = 256;

dim3 row_grid(long long rows, long long cols) {
  return dim3(static_cast<unsigned>((cols + row_threads - 1) / row_threads),
              static_cast<unsigned>(std::min<long long>(rows, 65535)));
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("b7: ") + what + ": " + cudaGetErrorString(e));
}

} // namespace

void b7_step_device(const chunked::BlockInfo& info, chunked::BlockView<double> out,
                    chunked::BlockView<const double> in, double alpha) {
  const long long rows = info.shape.extents()[0], cols = info.shape.extents()[1];
  if (rows > 0 && cols > 0)
    heat_kernel<<<row_grid(rows, cols), row_threads, 0, static_cast<cudaStream_t>(info.stream)>>>(
        out.data, in.data, rows, cols, alpha);
}

void b7_step_device_strided(const chunked::BlockInfo& info, chunked::View<double> out,
                            chunked::View<const double> in, double alpha) {
  const long long rows = info.shape.extents()[0], cols = info.shape.extents()[1];
  if (in.strides[1] != 1 || out.strides[1] != 1)
    throw std::invalid_argument("b7: rows must be contiguous");
  if ((rows + strided_rows - 1) / strided_rows > 65535)
    throw std::invalid_argument("b7: blocks of at most 524280 rows");
  const dim3 grid(static_cast<unsigned>((cols + row_threads - 1) / row_threads),
                  static_cast<unsigned>((rows + strided_rows - 1) / strided_rows));
  if (rows > 0 && cols > 0)
    heat_kernel_strided<<<grid, row_threads, 0, static_cast<cudaStream_t>(info.stream)>>>(
        out.data, in.data, rows, cols, in.strides[0], out.strides[0], alpha);
}

void b7_interior_device(const chunked::BlockInfo& info, chunked::BlockView<double> out,
                        chunked::BlockView<const double> in) {
  const long long rows = info.shape.extents()[0], cols = info.shape.extents()[1];
  if (rows > 0 && cols > 0)
    interior_kernel<<<row_grid(rows, cols), row_threads, 0,
                      static_cast<cudaStream_t>(info.stream)>>>(out.data, in.data, rows, cols);
}

void b7_copy_device(const chunked::BlockInfo& info, chunked::BlockView<double> out,
                    chunked::BlockView<const double> in) {
  check(cudaMemcpyAsync(out.data, in.data, static_cast<std::size_t>(out.size()) * sizeof(double),
                        cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(info.stream)),
        "block copy");
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
