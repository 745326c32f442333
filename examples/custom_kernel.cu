// SPDX-License-Identifier: Apache-2.0
// A user's own nvcc kernel through map_blocks: chunked hands each block's device pointers and the
// stream to enqueue on; the kernel is ordinary CUDA. Exits 0 with a message where no device is
// visible (the build compiles it wherever CUDA is built).
#include <chunked/chunked.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

/// Softplus of a*x + b, elementwise: the user's kernel.
__global__ void softplus_kernel(float* out, const float* x, const float* y, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = log1pf(expf(2.0f * x[i] + y[i]));
}

} // namespace

int main() {
  if (!chunked::cuda_available()) {
    std::printf("custom_kernel: no CUDA device is visible; skipping\n");
    return 0;
  }
  try {
    chunked::Generator rng(7);
    auto x =
        rng.normal<float, chunked::Cuda>(chunked::Shape{2000, 3000}, chunked::Chunks{512, 512});
    auto y = chunked::full<float, chunked::Cuda>(chunked::Shape{3000}, chunked::Chunks{1000}, 0.5f);
    // y is broadcast to x's shape and handed over x's chunks: every view below has out's shape.
    auto s = chunked::map_blocks<float>(
        [](const chunked::BlockInfo& info, chunked::BlockView<float> out,
           chunked::BlockView<const float> a, chunked::BlockView<const float> b) {
          const long long n = out.size();
          softplus_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0,
                            static_cast<cudaStream_t>(info.stream)>>>(out.data, a.data, b.data, n);
        },
        x, y);
    // The result composes with the library's own fused operations.
    const double mean = s.mean().item();
    const double want = (chunked::log1p(chunked::exp(2.0f * x + y))).mean().item();
    std::printf("mean softplus(2x + 0.5) over %lld elements: %.6f (library: %.6f)\n",
                static_cast<long long>(s.size()), mean, want);
    return std::abs(mean - want) <= 1e-4 * std::abs(want) ? 0 : 1;
  } catch (const chunked::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
