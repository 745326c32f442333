// SPDX-License-Identifier: Apache-2.0
// Borrowed device memory (from_device) and results written into device memory (to_device), with
// the device memory owned by the test (cudaMalloc, filled by a kernel) and checked on the host;
// host views from page-locked and pageable memory on the GPU; the argument checks. Skips where no
// CUDA device is visible.
#include "support/cuda_test.hpp"
#include <chunked/chunked.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

namespace {

using namespace chunked;

/// The value the test data hold at flat index i: exact in double, varied in sign and size.
__host__ __device__ double pattern(long long i) {
  return static_cast<double>((i * 37) % 101) - 50.0 + 0.25 * static_cast<double>(i % 4);
}

__global__ void fill_kernel(double* a, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n)
    a[i] = pattern(i);
}

/// Device memory of n doubles on `device`, freed at the end of the scope.
struct DeviceArray {
  DeviceArray(long long n, int device) : n(n), device(device) {
    cudaSetDevice(device);
    if (cudaMalloc(&data, static_cast<std::size_t>(n) * sizeof(double)) != cudaSuccess)
      data = nullptr;
  }
  ~DeviceArray() {
    cudaSetDevice(device);
    cudaFree(data);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  void fill() const {
    cudaSetDevice(device);
    fill_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(data, n);
    cudaDeviceSynchronize();
  }
  std::vector<double> to_host() const {
    std::vector<double> h(static_cast<std::size_t>(n));
    cudaSetDevice(device);
    cudaMemcpy(h.data(), data, h.size() * sizeof(double), cudaMemcpyDeviceToHost);
    return h;
  }

  double* data = nullptr;
  long long n;
  int device;
};

std::vector<double> host_pattern(long long n) {
  std::vector<double> h(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i)
    h[static_cast<std::size_t>(i)] = pattern(i);
  return h;
}

constexpr index_t rows = 37, cols = 53;

TEST(DeviceViews, FromDeviceReadsTheDeviceMemoryInPlace) {
  SKIP_WITHOUT_DEVICE();
  DeviceArray a(rows * cols, 0);
  ASSERT_NE(a.data, nullptr);
  a.fill();
  const std::vector<double> h = host_pattern(rows * cols);
  for (const Chunks& chunks : {Chunks{rows, cols}, Chunks{10, 16}, Chunks{1, cols}, Chunks{7, 1}}) {
    SCOPED_TRACE(chunks.to_string());
    const auto x = from_device<Cuda>(a.data, Shape{rows, cols}, chunks, 0);
    const NDArray<double> got = x.compute();
    for (index_t i = 0; i < rows * cols; ++i)
      ASSERT_EQ(got.data()[i], h[static_cast<std::size_t>(i)]) << "element " << i;
    double sum = 0, mx = h[0];
    for (double v : h) {
      sum += v;
      mx = std::max(mx, v);
    }
    EXPECT_NEAR(x.sum().item(), sum, 1e-9);
    EXPECT_EQ(x.max().item(), mx);
    // Slices across blocks, reversed, and a transpose read the memory in place.
    const NDArray<double> s = x(slice(3, none, 4), slice(none, none, -3)).compute();
    for (index_t i = 0; i < s.shape()[0]; ++i)
      for (index_t j = 0; j < s.shape()[1]; ++j)
        ASSERT_EQ(s(i, j), h[static_cast<std::size_t>((3 + 4 * i) * cols + (cols - 1 - 3 * j))]);
    const NDArray<double> t = x.transpose().compute();
    EXPECT_EQ(t(5, 9), h[9 * cols + 5]);
    // Readers of whole blocks (a reshape) get copies of the view's blocks.
    const NDArray<double> r = x.reshape({cols, rows}).compute();
    EXPECT_EQ(r(52, 36), h[static_cast<std::size_t>(rows * cols - 1)]);
    // Auto reads it too.
    EXPECT_NEAR(from_device<Auto>(a.data, Shape{rows, cols}, chunks, 0).sum().item(), sum, 1e-9);
  }
}

TEST(DeviceViews, ToDeviceWritesResultsIntoDeviceMemory) {
  SKIP_WITHOUT_DEVICE();
  DeviceArray a(rows * cols, 0), out(rows * cols, 0), sums(cols, 0), total(1, 0);
  ASSERT_NE(a.data, nullptr);
  a.fill();
  const std::vector<double> h = host_pattern(rows * cols);
  for (const Chunks& chunks : {Chunks{rows, cols}, Chunks{10, 16}, Chunks{1, 1}}) {
    SCOPED_TRACE(chunks.to_string());
    const auto x = from_device<Cuda>(a.data, Shape{rows, cols}, chunks);
    // A transpose written into a (cols, rows) C-order array: kernels write the caller's memory.
    (x.transpose() * 2.0 + 1.0).to_device(out.data, 0);
    const std::vector<double> t = out.to_host();
    for (index_t j = 0; j < cols; ++j)
      for (index_t i = 0; i < rows; ++i)
        ASSERT_EQ(t[static_cast<std::size_t>(j * rows + i)],
                  h[static_cast<std::size_t>(i * cols + j)] * 2.0 + 1.0);
    // Reductions finalize straight into it (the combine's copy).
    x.sum(Axes{0}).to_device(sums.data, 0);
    const std::vector<double> s = sums.to_host();
    for (index_t j = 0; j < cols; ++j) {
      double want = 0;
      for (index_t i = 0; i < rows; ++i)
        want += h[static_cast<std::size_t>(i * cols + j)];
      EXPECT_NEAR(s[static_cast<std::size_t>(j)], want, 1e-9);
    }
    x.max().to_device(total.data, 0);
    EXPECT_EQ(total.to_host()[0], *std::max_element(h.begin(), h.end()));
    // Bitwise as the host result of the same computation.
    const NDArray<double> host = (x.transpose() * 2.0 + 1.0).compute();
    EXPECT_TRUE(std::equal(host.begin(), host.end(), t.begin()));
  }
}

TEST(DeviceViews, PersistCopiesTheDeviceMemory) {
  SKIP_WITHOUT_DEVICE();
  DeviceArray a(rows * cols, 0);
  ASSERT_NE(a.data, nullptr);
  a.fill();
  const auto x = from_device<Cuda>(a.data, Shape{rows, cols}, Chunks{8, 8});
  const auto kept = x.persist();
  const double before = x.sum().item();
  CUDA_OK(cudaMemset(a.data, 0, static_cast<std::size_t>(rows * cols) * sizeof(double)));
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(x.sum().item(), 0.0); // the view reads the memory at each computation
  EXPECT_EQ(kept.sum().item(), before);
}

TEST(DeviceViews, HostViewsOfPinnedAndPageableMemoryReachTheGpu) {
  SKIP_WITHOUT_DEVICE();
  // Larger than one 32 MiB staging buffer, so that pageable regions go through several.
  const index_t n = index_t{5} << 20;
  double* pinned = nullptr;
  CUDA_OK(cudaHostAlloc(reinterpret_cast<void**>(&pinned), static_cast<std::size_t>(n) * 8,
                        cudaHostAllocDefault));
  std::vector<double> pageable(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i)
    pinned[i] = pageable[static_cast<std::size_t>(i)] = pattern(i);
  const std::vector<double> h(pinned, pinned + n);
  for (const double* p :
       {static_cast<const double*>(pinned), static_cast<const double*>(pageable.data())}) {
    const std::span<const double> data(p, static_cast<std::size_t>(n));
    const auto whole = from_host_view<Cuda>(data, Shape{n}, Chunks{n});
    const auto grid = from_host_view<Cuda>(data, Shape{1280, 4096}, Chunks{300, 1000});
    const NDArray<double> a = whole.compute();
    EXPECT_TRUE(std::equal(a.begin(), a.end(), h.begin()));
    const NDArray<double> b = grid(slice(7, none, 3), slice(999, 2001)).compute();
    for (index_t i = 0; i < b.shape()[0]; ++i)
      for (index_t j = 0; j < b.shape()[1]; ++j)
        ASSERT_EQ(b(i, j), h[static_cast<std::size_t>((7 + 3 * i) * 4096 + 999 + j)]);
    EXPECT_EQ(grid.sum().item(),
              from_host<Cuda>(h, Shape{1280, 4096}, Chunks{300, 1000}).sum().item());
  }
  CUDA_OK(cudaFreeHost(pinned));
}

TEST(DeviceViews, SeveralDevicesCopyWhatTheyRead) {
  SKIP_WITHOUT_DEVICE();
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  if (count < 2)
    GTEST_SKIP() << "needs two CUDA devices";
  DeviceArray a(rows * cols, 1), out(rows * cols, 0);
  a.fill();
  const std::vector<double> h = host_pattern(rows * cols);
  const auto x = from_device<Cuda>(a.data, Shape{rows, cols}, Chunks{10, 16}, 1);
  ComputeOptions opts;
  opts.devices = {0, 1}; // device 0's blocks are copied from device 1, device 1's read in place
  (x + 1.0).to_device(out.data, 0, opts);
  const std::vector<double> got = out.to_host();
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], h[i] + 1.0) << "element " << i;
  opts.devices = {0};
  EXPECT_EQ(x.max().item(opts), *std::max_element(h.begin(), h.end()));
}

TEST(DeviceViews, BadPointersAndDevicesAreErrors) {
  SKIP_WITHOUT_DEVICE();
  DeviceArray a(16, 0);
  ASSERT_NE(a.data, nullptr);
  std::vector<double> host(16);
  EXPECT_THROW((void)from_device<Cuda>(host.data(), Shape{16}, Chunks{4}), ValueError);
  EXPECT_THROW((void)from_device<Cuda>(static_cast<double*>(nullptr), Shape{16}, Chunks{4}),
               ValueError);
  const auto* odd = reinterpret_cast<double*>(reinterpret_cast<char*>(a.data) + 4);
  EXPECT_THROW((void)from_device<Cuda>(odd, Shape{15}, Chunks{4}), ValueError);
  EXPECT_THROW((void)from_device<Cuda>(a.data, Shape{16}, Chunks{4}, 4096), Error);
  const auto x = from_device<Cuda>(a.data, Shape{16}, Chunks{4});
  EXPECT_THROW(x.to_device(host.data(), 0), ValueError);
  EXPECT_THROW(x.to_device(nullptr, 0), ValueError);
  EXPECT_THROW(x.to_device(a.data, 4096), Error);
  EXPECT_THROW(x.to<Cpu>().to_device(a.data, 0), ValueError);
  // After the errors the runtime works.
  a.fill();
  const std::vector<double> h = host_pattern(16);
  EXPECT_EQ(x.sum().item(), std::accumulate(h.begin(), h.end(), 0.0));
}

} // namespace
