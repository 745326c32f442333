// SPDX-License-Identifier: Apache-2.0
// The heat equation example's step as a CUDA kernel (compiled where the build has CUDA): the
// user's own kernel, launched on the stream chunked gives the block, reading and writing through
// the views' row strides.
#include <chunked/core/block_info.hpp>
#include <chunked/core/view.hpp>

#include <cuda_runtime.h>

namespace {

__global__ void heat_kernel(double* out, const double* in, long long rows, long long cols,
                            long long in_row, long long out_row, double alpha) {
  const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (idx >= rows * cols)
    return;
  const long long i = idx / cols, j = idx % cols, w = in_row, m = (i + 1) * w + j + 1;
  const double lap = in[m - w] + in[m + w] + in[m - 1] + in[m + 1] - 4 * in[m];
  out[i * out_row + j] = in[m] + alpha * lap;
}

} // namespace

void heat_step_device(const chunked::BlockInfo& info, chunked::View<double> out,
                      chunked::View<const double> in, double alpha) {
  const long long rows = info.shape.extents()[0], cols = info.shape.extents()[1];
  const long long n = rows * cols;
  if (n == 0)
    return;
  // Enqueue only: chunked orders the stream after the inputs and before the readers.
  heat_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0,
                static_cast<cudaStream_t>(info.stream)>>>(out.data, in.data, rows, cols,
                                                          in.strides[0], out.strides[0], alpha);
}
