// SPDX-License-Identifier: Apache-2.0
// map_blocks and map_overlap with a user's own nvcc kernels launched on info.stream, against the
// same functions written for the CPU; CUDA errors and exceptions from user code; Auto telling
// host from device by info.device. Skips where no CUDA device is visible.
#include "support/cuda_test.hpp"
#include <chunked/chunked.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace chunked;

__global__ void affine_kernel(double* out, const double* a, const double* b, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = 3 * a[i] - b[i];
}

/// out (r x c) = 5-point Laplacian of in, the block with a halo of 1: rows of `in` `ir` apart,
/// of `out` `orow` apart (c + 2 and c for dense blocks).
__global__ void laplacian_kernel(double* out, const double* in, long long r, long long c,
                                 long long ir, long long orow) {
  const long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (idx >= r * c)
    return;
  const long long i = idx / c, j = idx % c, m = (i + 1) * ir + j + 1;
  out[i * orow + j] = in[m - ir] + in[m + ir] + in[m - 1] + in[m + 1] - 4 * in[m];
}

unsigned blocks_for(long long n) { return static_cast<unsigned>((n + 255) / 256); }

void affine_host(const BlockInfo&, BlockView<double> out, BlockView<const double> a,
                 BlockView<const double> b) {
  for (index_t i = 0; i < out.size(); ++i)
    out.data[i] = 3 * a.data[i] - b.data[i];
}

void affine_device(const BlockInfo& info, BlockView<double> out, BlockView<const double> a,
                   BlockView<const double> b) {
  const long long n = out.size();
  if (n > 0)
    affine_kernel<<<blocks_for(n), 256, 0, static_cast<cudaStream_t>(info.stream)>>>(
        out.data, a.data, b.data, n);
}

void laplacian_host(const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
  const index_t r = info.shape.extents()[0], c = info.shape.extents()[1], w = c + 2;
  for (index_t i = 0; i < r; ++i)
    for (index_t j = 0; j < c; ++j) {
      const index_t m = (i + 1) * w + j + 1;
      out.data[i * c + j] =
          in.data[m - w] + in.data[m + w] + in.data[m - 1] + in.data[m + 1] - 4 * in.data[m];
    }
}

void laplacian_device(const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
  const long long r = info.shape.extents()[0], c = info.shape.extents()[1];
  if (r * c > 0)
    laplacian_kernel<<<blocks_for(r * c), 256, 0, static_cast<cudaStream_t>(info.stream)>>>(
        out.data, in.data, r, c, c + 2, c);
}

/// Counts the calls whose `in` is a view into a persisted stencil's buffer rather than dense.
std::atomic<int> strided_calls{0};

void laplacian_strided_device(const BlockInfo& info, View<double> out, View<const double> in) {
  const long long r = info.shape.extents()[0], c = info.shape.extents()[1];
  if (!in.is_c_contiguous())
    ++strided_calls;
  if (in.strides[1] != 1 || out.strides[1] != 1)
    throw std::invalid_argument("rows must be contiguous");
  if (r * c > 0)
    laplacian_kernel<<<blocks_for(r * c), 256, 0, static_cast<cudaStream_t>(info.stream)>>>(
        out.data, in.data, r, c, in.strides[0], out.strides[0]);
}

/// The boundaries and chunkings of the stencil tests (30 x 41 arrays).
const Boundary stencil_boundaries[] = {Boundary::periodic, Boundary::reflect, Boundary::nearest,
                                       Boundary::constant(2.0)};
const Chunks stencil_chunkings[] = {Chunks{30, 41}, Chunks{7, 9}, Chunks{1, 2}};

std::vector<double> values(index_t n, double scale) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<double>((i * 37) % 101) / 8.0 * scale;
  return v;
}

template <class T> std::vector<T> as_vector(const NDArray<T>& a) {
  return std::vector<T>(a.begin(), a.end());
}

TEST(UserKernels, MapBlocksWithAnNvccKernelMatchesTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const Shape shape{37, 23};
  const auto av = values(shape.size(), 1.0), bv = values(23, -0.5);
  for (const Chunks& chunks : {Chunks{37, 23}, Chunks{8, 5}, Chunks{1, 23}}) {
    const auto a = from_host<Cuda>(av, shape, chunks);
    const auto b = from_host<Cuda>(bv, Shape{23}, Chunks{7});
    const auto got = map_blocks<double>(affine_device, a, b).compute();
    const auto want = map_blocks<double>(affine_host, from_host<Cpu>(av, shape, chunks),
                                         from_host<Cpu>(bv, Shape{23}, Chunks{7}))
                          .compute();
    EXPECT_EQ(as_vector(got), as_vector(want));
  }
}

TEST(UserKernels, MapOverlapWithAnNvccStencilMatchesTheCpuOnEveryBoundary) {
  SKIP_WITHOUT_DEVICE();
  const Shape shape{30, 41};
  const auto v = values(shape.size(), 1.0);
  for (const Boundary b : stencil_boundaries)
    for (const Chunks& chunks : stencil_chunkings) {
      const auto x = from_host<Cuda>(v, shape, chunks);
      const auto y = map_overlap<double>(laplacian_device, x, {1, 1}, b);
      // Twice, the second step reading the first's blocks on the device.
      const auto got = map_overlap<double>(laplacian_device, y, {1, 1}, b).compute();
      const auto xc = from_host<Cpu>(v, shape, chunks);
      const auto yc = map_overlap<double>(laplacian_host, xc, {1, 1}, b);
      const auto want = map_overlap<double>(laplacian_host, yc, {1, 1}, b).compute();
      EXPECT_EQ(as_vector(got), as_vector(want));
    }
}

TEST(UserKernels, PersistedStridedStencilStepsMatchTheCpuOnEveryBoundary) {
  SKIP_WITHOUT_DEVICE();
  const Shape shape{30, 41};
  const auto v = values(shape.size(), 1.0);
  for (const Boundary b : stencil_boundaries)
    for (const Chunks& chunks : stencil_chunkings) {
      // Three persisted steps: the second and third read the frame the step before filled.
      auto x = from_host<Cuda>(v, shape, chunks);
      auto xc = from_host<Cpu>(v, shape, chunks);
      strided_calls = 0;
      for (int s = 0; s < 3; ++s) {
        x = map_overlap<double>(laplacian_strided_device, x, {1, 1}, b).persist();
        xc = map_overlap<double>(laplacian_host, xc, {1, 1}, b).persist();
      }
      EXPECT_EQ(as_vector(x.compute()), as_vector(xc.compute())) << static_cast<int>(b.kind);
      if (chunks.lengths()[1] < 41)
        EXPECT_EQ(strided_calls.load(), 2 * x.numblocks()) << "read in place after the first step";
      // The persisted stencil as any other array on the device: a reduction and a slice.
      EXPECT_NEAR(x.sum().item(), xc.sum().item(), 1e-9 * (1 + std::abs(xc.sum().item())));
      EXPECT_EQ(as_vector(x(Slice(2, 9), Slice(none, none, 3)).compute()),
                as_vector(xc(Slice(2, 9), Slice(none, none, 3)).compute()));
    }
}

TEST(UserKernels, AutoTellsHostFromDeviceByInfoDevice) {
  SKIP_WITHOUT_DEVICE();
  const auto v = values(100, 1.0);
  std::atomic<int> on_device{0};
  const auto x = from_host<Auto>(v, Shape{10, 10}, Chunks{4, 4});
  const auto y = map_overlap<double>(
      [&](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
        if (info.device >= 0) {
          ++on_device;
          laplacian_device(info, out, in);
        } else {
          laplacian_host(info, out, in);
        }
      },
      x, 1, Boundary::periodic);
  const auto got = y.compute();
  EXPECT_EQ(on_device.load(), 9);
  const auto want =
      map_overlap<double>(laplacian_host, from_host<Cpu>(v, Shape{10, 10}, Chunks{4, 4}), 1,
                          Boundary::periodic)
          .compute();
  EXPECT_EQ(as_vector(got), as_vector(want));
}

TEST(UserKernels, ACudaErrorIsABackendErrorAndTheNextComputeWorks) {
  SKIP_WITHOUT_DEVICE();
  const auto v = values(64, 1.0);
  const auto x = from_host<Cuda>(v, Shape{64}, Chunks{16});
  // 0 threads per block: cudaErrorInvalidConfiguration, reported by cudaGetLastError.
  const auto bad = map_blocks<double>(
      [](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
        affine_kernel<<<1, 0, 0, static_cast<cudaStream_t>(info.stream)>>>(out.data, in.data,
                                                                           in.data, out.size());
      },
      x);
  EXPECT_THROW((void)bad.compute(), BackendError);
  const auto thrower = map_blocks<double>(
      [](const BlockInfo& info, BlockView<double>, BlockView<const double>) {
        if (info.block[0] == 2)
          throw std::runtime_error("user failure on the device path");
      },
      x);
  try {
    (void)thrower.compute();
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("user failure on the device path"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("(2,)"), std::string::npos);
  }
  const auto good =
      map_blocks<double>([](const BlockInfo& info, BlockView<double> out,
                            BlockView<const double> in) { affine_device(info, out, in, in); },
                         x);
  const auto got = good.compute();
  for (index_t i = 0; i < 64; ++i)
    EXPECT_EQ(got.data()[i], 2 * v[static_cast<std::size_t>(i)]);
}

} // namespace
