// SPDX-License-Identifier: Apache-2.0
// ComputeOptions::stream and the memory resources on real GPUs, from a host code that owns its
// streams and memory: its kernels before and after a computation on its stream, with no
// synchronisation between them; resources that count every byte, and resources that refuse.
// Skips where no CUDA device is visible.
//
// The user memory the computations read and write is reached through map_blocks functions
// (captured pointers) and through from_device / to_device (BorrowedMemoryOrderedByTheUsersStream).
#include "support/cuda_test.hpp"
#include <chunked/chunked.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>
#include <vector>

namespace {

using namespace chunked;

// ---- Kernels of the "host code" ----------------------------------------------------------------

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Waits `ns` nanoseconds, then writes x[i] = i * scale: a slow producer, so that a computation
/// that did not wait for it would read the old values.
__global__ void slow_fill(double* x, long long n, double scale, unsigned long long ns) {
  const unsigned long long start = global_ns();
  while (global_ns() - start < ns) {
  }
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    x[i] = static_cast<double>(i) * scale;
}

/// out[i] = in[i] + 2 * user[offset + i]: a block of the computation reading user memory.
__global__ void add_user(double* out, const double* in, const double* user, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 2 * user[i];
}

/// z[i] = 3 * y[i]: the host code's kernel that reads what the computation wrote.
__global__ void triple(double* z, const double* y, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n)
    z[i] = 3 * y[i];
}

/// Spins until *flag is set by the host (or `limit_ns` passes: then sets *timed_out), so that a
/// computation that synchronised the whole device would wait for the limit.
__global__ void wait_for_host(const volatile int* flag, int* timed_out,
                              unsigned long long limit_ns) {
  const unsigned long long start = global_ns();
  while (*flag == 0)
    if (global_ns() - start > limit_ns) {
      *timed_out = 1;
      return;
    }
}

unsigned blocks_for(long long n) { return static_cast<unsigned>((n + 255) / 256); }

constexpr unsigned long long producer_ns = 20'000'000; // 20 ms: far longer than a launch

std::vector<double> values(index_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<double>((i * 37) % 101) / 8.0;
  return v;
}

/// The array whose block b is in[b] + 2 * user[b], `user` a device (or mapped host) pointer;
/// `written`, when given, receives a copy of each block (user memory the computation writes).
template <class B>
ChunkedArray<double, B> plus_user(const ChunkedArray<double, B>& in, const double* user,
                                  double* written = nullptr) {
  return map_blocks<double>(
      [user, written](const BlockInfo& info, BlockView<double> out, BlockView<const double> x) {
        const long long n = out.size();
        if (n == 0)
          return;
        const auto s = static_cast<cudaStream_t>(info.stream);
        const long long off = info.offset[0];
        add_user<<<blocks_for(n), 256, 0, s>>>(out.data, x.data, user + off, n);
        if (written)
          cudaMemcpyAsync(written + off, out.data, static_cast<std::size_t>(n) * sizeof(double),
                          cudaMemcpyDefault, s);
      },
      in);
}

// ---- ComputeOptions::stream ---------------------------------------------------------------------

TEST(UserStream, StreamOrdersUserMemoryOnOneDevice) {
  SKIP_WITHOUT_DEVICE();
  CUDA_OK(cudaSetDevice(0));
  const index_t n = 100'003;
  const auto v = values(n);
  const auto bytes = static_cast<std::size_t>(n) * sizeof(double);
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  double *user_in = nullptr, *user_out = nullptr, *tripled = nullptr;
  CUDA_OK(cudaMalloc(&user_in, bytes));
  CUDA_OK(cudaMalloc(&user_out, bytes));
  CUDA_OK(cudaMalloc(&tripled, bytes));
  CUDA_OK(cudaMemset(user_in, 0, bytes));
  CUDA_OK(cudaMemset(user_out, 0, bytes));
  CUDA_OK(cudaDeviceSynchronize());

  ComputeOptions opts;
  opts.devices = {0}; // the user's memory is on device 0
  opts.stream = stream;
  for (const index_t chunk : {index_t{7919}, n}) {
    // The host code: a kernel writes the input on its stream, then chunked computes on that
    // stream (no synchronisation), then a kernel reads the result, still on the stream.
    // The arrays are made first: only the computation runs between the two kernels.
    const auto y = plus_user(from_host<Cuda>(v, Shape{n}, Chunks{chunk}), user_in, user_out);
    const auto y_auto = plus_user(from_host<Auto>(v, Shape{n}, Chunks{chunk}), user_in);
    // Values that differ from every earlier pass's, so that reading old ones shows.
    const double scale = chunk == n ? 0.75 : 0.5;
    slow_fill<<<64, 256, 0, stream>>>(user_in, n, scale, producer_ns);
    CUDA_OK(cudaGetLastError());
    const NDArray<double> got = y.compute(opts);
    triple<<<blocks_for(n), 256, 0, stream>>>(tripled, user_out, n);
    CUDA_OK(cudaGetLastError());
    std::vector<double> back(static_cast<std::size_t>(n));
    CUDA_OK(cudaMemcpyAsync(back.data(), tripled, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    for (index_t i = 0; i < n; ++i) {
      const double want = v[static_cast<std::size_t>(i)] + 2 * scale * static_cast<double>(i);
      ASSERT_EQ(got.data()[i], want) << "element " << i << ", chunk " << chunk;
      ASSERT_EQ(back[static_cast<std::size_t>(i)], 3 * want) << "element " << i;
    }
    // Again for a persisted result on Auto: its blocks are made after the user's kernel too.
    slow_fill<<<64, 256, 0, stream>>>(user_in, n, 0.25, producer_ns);
    CUDA_OK(cudaGetLastError());
    const auto p = y_auto.persist(opts);
    const NDArray<double> again = p.compute();
    for (index_t i = 0; i < n; ++i)
      ASSERT_EQ(again.data()[i], v[static_cast<std::size_t>(i)] + 0.5 * static_cast<double>(i));
  }
  CUDA_OK(cudaFree(user_in));
  CUDA_OK(cudaFree(user_out));
  CUDA_OK(cudaFree(tripled));
  CUDA_OK(cudaStreamDestroy(stream));
}

TEST(UserStream, BorrowedMemoryOrderedByTheUsersStream) {
  SKIP_WITHOUT_DEVICE();
  CUDA_OK(cudaSetDevice(0));
  const index_t n = 200'003;
  const auto bytes = static_cast<std::size_t>(n) * sizeof(double);
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  double *in = nullptr, *out = nullptr, *tripled = nullptr;
  CUDA_OK(cudaMalloc(&in, bytes));
  CUDA_OK(cudaMalloc(&out, bytes));
  CUDA_OK(cudaMalloc(&tripled, bytes));
  CUDA_OK(cudaMemset(in, 0, bytes));
  CUDA_OK(cudaMemset(out, 0, bytes));
  CUDA_OK(cudaDeviceSynchronize());
  ComputeOptions opts;
  opts.stream = stream;
  for (const double scale : {0.5, 0.25}) {
    // The host code's kernel writes the input on its stream; chunked reads it where it is and
    // writes the result into the host code's buffer on that stream's order; the host code's next
    // kernel reads that buffer on its stream. No synchronisation between the three.
    const auto x = from_device<Cuda>(in, Shape{n}, Chunks{7001}, 0);
    slow_fill<<<blocks_for(n), 256, 0, stream>>>(in, n, scale, producer_ns);
    CUDA_OK(cudaGetLastError());
    (x * 2.0 + 1.0).to_device(out, 0, opts);
    triple<<<blocks_for(n), 256, 0, stream>>>(tripled, out, n);
    CUDA_OK(cudaGetLastError());
    const double total = x.sum().item(opts);
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<double> got(static_cast<std::size_t>(n));
    CUDA_OK(cudaMemcpy(got.data(), tripled, bytes, cudaMemcpyDeviceToHost));
    double want_total = 0;
    for (index_t i = 0; i < n; ++i) {
      const double xi = static_cast<double>(i) * scale;
      want_total += xi;
      ASSERT_EQ(got[static_cast<std::size_t>(i)], 3 * (xi * 2.0 + 1.0)) << "at " << i;
    }
    EXPECT_NEAR(total, want_total, 1e-9 * want_total);
  }
  cudaFree(in);
  cudaFree(out);
  cudaFree(tripled);
  cudaStreamDestroy(stream);
}

TEST(UserStream, EveryDeviceWaitsForTheUsersStream) {
  SKIP_WITHOUT_DEVICE();
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  // Mapped pinned memory, which kernels on every device read: the user's stream is on the last
  // device, the computation's blocks spread over all of them.
  const index_t n = 50'000;
  const auto bytes = static_cast<std::size_t>(n) * sizeof(double);
  double* user_in = nullptr;
  CUDA_OK(cudaHostAlloc(&user_in, bytes, cudaHostAllocPortable | cudaHostAllocMapped));
  std::fill(user_in, user_in + n, 0.0);
  const auto v = values(n);
  const auto y = plus_user(from_host<Cuda>(v, Shape{n}, Chunks{n / 4 + 1}), user_in);
  CUDA_OK(cudaSetDevice(count - 1));
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  slow_fill<<<64, 256, 0, stream>>>(user_in, n, 1.0, producer_ns);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaSetDevice(0));
  ComputeOptions opts;
  opts.stream = stream;
  const NDArray<double> got = y.compute(opts);
  for (index_t i = 0; i < n; ++i)
    ASSERT_EQ(got.data()[i], v[static_cast<std::size_t>(i)] + 2.0 * static_cast<double>(i))
        << "element " << i << " on " << count << " devices";
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaStreamDestroy(stream));
  CUDA_OK(cudaFreeHost(user_in));
}

TEST(UserStream, OnlyTheUsersStreamIsWaitedFor) {
  SKIP_WITHOUT_DEVICE();
  CUDA_OK(cudaSetDevice(0));
  const auto v = values(4096);
  const auto x = from_host<Cuda>(v, Shape{64, 64}, Chunks{16, 20});
  // Once before: kernels are compiled and loaded, staging buffers pooled, outside the check.
  const double want = (x * 1.0).sum().item();
  int *flag = nullptr, *timed_out = nullptr;
  CUDA_OK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  CUDA_OK(cudaHostAlloc(&timed_out, sizeof(int), cudaHostAllocMapped));
  *flag = 0;
  *timed_out = 0;
  cudaStream_t mine = nullptr, other = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  // Work on another stream that ends only when the host says so (or after 10 s): a computation
  // that synchronised the device, rather than waiting for its own stream, would wait for it.
  wait_for_host<<<1, 1, 0, other>>>(flag, timed_out, 10'000'000'000ull);
  CUDA_OK(cudaGetLastError());
  ComputeOptions opts;
  opts.devices = {0};
  opts.stream = mine;
  EXPECT_EQ((x * 1.0).sum().item(opts), want);
  *static_cast<volatile int*>(flag) = 1;
  CUDA_OK(cudaStreamSynchronize(other));
  EXPECT_EQ(*static_cast<volatile int*>(timed_out), 0)
      << "the computation waited for work on a stream it was not given";
  CUDA_OK(cudaStreamDestroy(mine));
  CUDA_OK(cudaStreamDestroy(other));
  CUDA_OK(cudaFreeHost(flag));
  CUDA_OK(cudaFreeHost(timed_out));
}

TEST(UserStream, ThePerThreadStreamIsAccepted) {
  SKIP_WITHOUT_DEVICE();
  const auto v = values(1000);
  const auto x = from_host<Cuda>(v, Shape{1000}, Chunks{333});
  ComputeOptions opts;
  opts.stream = cudaStreamPerThread;
  EXPECT_EQ((x + 1.0).sum().item(opts), (x + 1.0).sum().item());
}

// ---- Memory resources ---------------------------------------------------------------------------

/// Counts what it hands out and gets back, and every call made without the stream's device
/// current or with another size than allocated.
struct CountingResource : MemoryResource {
  explicit CountingResource(bool pinned) : pinned_(pinned) {}

  void* allocate(std::size_t bytes, void* stream) override {
    check_device(stream);
    std::lock_guard lock(mutex_); // workers of several GPUs allocate at once
    if (refuse_after >= 0 && allocations >= refuse_after) {
      ++refusals;
      if (throw_bad_alloc)
        throw std::bad_alloc();
      return nullptr;
    }
    void* p = nullptr;
    const cudaError_t status = pinned_
                                   ? cudaMallocHost(&p, bytes)
                                   : cudaMallocAsync(&p, bytes, static_cast<cudaStream_t>(stream));
    if (status != cudaSuccess)
      return nullptr;
    live_[p] = bytes;
    ++allocations;
    allocated += bytes;
    return p;
  }

  void deallocate(void* p, std::size_t bytes, void* stream) override {
    check_device(stream);
    {
      std::lock_guard lock(mutex_);
      const auto it = live_.find(p);
      if (it == live_.end() || it->second != bytes) {
        ++mismatches;
        return;
      }
      live_.erase(it);
      returned += bytes;
    }
    if (pinned_)
      cudaFreeHost(p);
    else
      cudaFreeAsync(p, static_cast<cudaStream_t>(stream));
  }

  std::size_t outstanding() {
    std::lock_guard lock(mutex_);
    return allocated - returned;
  }

  long long refuse_after = -1; ///< refuse every allocation after this many (-1: never)
  bool throw_bad_alloc = false;
  long long allocations = 0, refusals = 0, mismatches = 0, wrong_device = 0;
  std::size_t allocated = 0, returned = 0;

private:
  void check_device(void* stream) {
    int current = -1, of_stream = -2;
    cudaGetDevice(&current);
    if (cudaStreamGetDevice(static_cast<cudaStream_t>(stream), &of_stream) != cudaSuccess ||
        current != of_stream) {
      std::lock_guard lock(mutex_);
      ++wrong_device;
    }
  }

  bool pinned_;
  std::mutex mutex_;
  std::map<void*, std::size_t> live_;
};

/// A computation that uses every kind of buffer: stored inputs from pinned and from pageable
/// host memory (a CPU-persisted array, copied through staging), blocks, reductions with scratch
/// and partials, a scan, a user function, and results downloaded to pageable host memory.
NDArray<double> busy_computation(const ComputeOptions& opts) {
  const auto v = values(60 * 70);
  const auto a = from_host<Cuda>(v, Shape{60, 70}, Chunks{17, 30});
  const auto b = from_host<Cpu>(v, Shape{60, 70}, Chunks{25, 70}).persist().to<Cuda>();
  const auto c = map_blocks<double>(
      [](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
        if (out.size() > 0)
          cudaMemcpyAsync(out.data, in.data, static_cast<std::size_t>(out.size()) * sizeof(double),
                          cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(info.stream));
      },
      a * b);
  return (cumsum(c, 1) / c.sum(Axes{0}) + c.var(Axes{1}, 0, true)).compute(opts);
}

TEST(MemoryResources, EveryByteComesBackAfterComputePersistAndFailures) {
  SKIP_WITHOUT_DEVICE();
  CountingResource device(false), pinned(true);
  ComputeOptions opts;
  opts.device_memory_resource = &device;
  opts.pinned_memory_resource = &pinned;
  const NDArray<double> want = busy_computation({});
  const NDArray<double> got = busy_computation(opts);
  ASSERT_EQ(got.size(), want.size());
  for (index_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got.data()[i], want.data()[i]) << "element " << i;
  EXPECT_GT(device.allocations, 0);
  EXPECT_GT(pinned.allocations, 0) << "the staging buffers did not come from the resource";
  EXPECT_EQ(device.outstanding(), 0u);
  EXPECT_EQ(pinned.outstanding(), 0u);

  // Persisted blocks hold their memory until the last array holding them is gone.
  {
    const auto x = from_host<Cuda>(values(5000), Shape{5000}, Chunks{1024});
    const auto p = (x * 2.0).persist(opts);
    EXPECT_GE(device.outstanding(), 5000 * sizeof(double));
    EXPECT_EQ(p.sum().item(), 2 * x.sum().item());
  }
  EXPECT_EQ(device.outstanding(), 0u);

  // A failing computation gives back what it took.
  const auto x = from_host<Cuda>(values(4000), Shape{4000}, Chunks{500});
  const auto thrower = map_blocks<double>(
      [](const BlockInfo& info, BlockView<double>, BlockView<const double>) {
        if (info.block[0] == 5)
          throw std::runtime_error("user failure");
      },
      x + 1.0);
  EXPECT_THROW((void)thrower.compute(opts), Error);
  EXPECT_EQ(device.outstanding(), 0u);
  EXPECT_EQ(pinned.outstanding(), 0u);
  EXPECT_EQ(device.mismatches + pinned.mismatches, 0);
  EXPECT_EQ(device.wrong_device + pinned.wrong_device, 0);
  CUDA_OK(cudaDeviceSynchronize());
}

TEST(MemoryResources, ARefusingResourceIsOutOfMemoryAndTheRuntimeStaysUsable) {
  SKIP_WITHOUT_DEVICE();
  const auto x = from_host<Cuda>(values(3000), Shape{3000}, Chunks{400});
  const double want = (x * 3.0).sum().item();
  for (const bool pinned_kind : {false, true})
    for (const bool throws : {false, true})
      for (const long long after : {0LL, 3LL}) {
        CountingResource refusing(pinned_kind);
        refusing.refuse_after = after;
        refusing.throw_bad_alloc = throws;
        ComputeOptions opts;
        (pinned_kind ? opts.pinned_memory_resource : opts.device_memory_resource) = &refusing;
        // compute() downloads into pageable memory: through the pinned staging buffers.
        EXPECT_THROW((void)(x * 3.0).compute(opts), OutOfMemory)
            << (pinned_kind ? "pinned" : "device") << (throws ? ", bad_alloc" : ", null")
            << ", after " << after;
        EXPECT_GT(refusing.refusals, 0);
        EXPECT_EQ(refusing.outstanding(), 0u);
        EXPECT_EQ(refusing.mismatches, 0);
        EXPECT_EQ((x * 3.0).sum().item(), want);
      }
  CUDA_OK(cudaDeviceSynchronize());
}

TEST(MemoryResources, TheBudgetStillBoundsWhatTheResourceGives) {
  SKIP_WITHOUT_DEVICE();
  CountingResource device(false);
  ComputeOptions opts;
  opts.device_memory_resource = &device;
  opts.device_memory_limit = 1000; // smaller than one block
  const auto x = from_host<Cuda>(values(4000), Shape{4000}, Chunks{2000});
  EXPECT_THROW((void)(x + 1.0).compute(opts), OutOfMemory);
  EXPECT_EQ(device.outstanding(), 0u);
}

} // namespace
