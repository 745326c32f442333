// SPDX-License-Identifier: Apache-2.0
// chunked-pinned-probe: what page-locking host memory costs, the way from_host and the CUDA
// backend's transfer buffers need it (many blocks of 256 MiB), and whether the way chosen changes
// the host -> device copy rate. For GIB GiB of data already in host memory (no library code):
//
//   malloc-host 1    cudaMallocHost per block and a memcpy into it, one thread (the library
//   before); malloc-host 16   cudaMallocHost for every block on one thread, then the copies on all
//   cores; malloc-host par  both on all cores, each thread its own blocks; register seq     2
//   MiB-aligned host memory offered for huge pages, copied into on all cores,
//                    then cudaHostRegister block by block on one thread;
//   register par     the same with each thread registering its own blocks after copying;
//   register first   the same registering each block before copying into it;
//
// each with the matching frees, two rounds; then the host -> device rate of a 256 MiB block of
// each kind (CUDA events).
//
//   chunked-pinned-probe [GIB = 8]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define CHECK(call)                                                                                \
  do {                                                                                             \
    const cudaError_t s_ = (call);                                                                 \
    if (s_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(s_));                      \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t block_bytes = std::size_t{256} << 20;
constexpr std::size_t huge_page = std::size_t{2} << 20;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// f(b) for every block b on `threads` threads, thread t taking blocks t, t + threads, ...
template <class F> void on_threads(unsigned threads, std::size_t blocks, F f) {
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t b = t; b < blocks; b += threads)
        f(b);
    });
  for (std::thread& thread : pool)
    thread.join();
}

void* huge_page_block() {
  void* p = std::aligned_alloc(huge_page, block_bytes);
  if (!p) {
    std::fprintf(stderr, "host allocation failed\n");
    std::exit(1);
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(p, block_bytes, MADV_HUGEPAGE);
#endif
  return p;
}

float h2d_ms(void* device, const void* host, cudaEvent_t e0, cudaEvent_t e1) {
  CHECK(cudaEventRecord(e0));
  CHECK(cudaMemcpyAsync(device, host, block_bytes, cudaMemcpyHostToDevice));
  CHECK(cudaEventRecord(e1));
  CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  return ms;
}

} // namespace

int main(int argc, char** argv) {
  const std::size_t gib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 8;
  const std::size_t blocks = (gib << 30) / block_bytes;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const double gb = static_cast<double>(blocks * block_bytes) / 1e9;
  std::vector<char> source(blocks * block_bytes);
  on_threads(cores, blocks,
             [&](std::size_t b) { std::memset(&source[b * block_bytes], 1, block_bytes); });
  CHECK(cudaFree(nullptr)); // the context, outside every timing
  std::vector<void*> p(blocks);
  auto copy_in = [&](std::size_t b) { std::memcpy(p[b], &source[b * block_bytes], block_bytes); };
  std::printf("%zu GiB in %zu blocks of 256 MiB, %u threads\n", gib, blocks, cores);

  for (int round = 1; round <= 2; ++round) {
    auto t = Clock::now();
    for (std::size_t b = 0; b < blocks; ++b) {
      CHECK(cudaMallocHost(&p[b], block_bytes));
      copy_in(b);
    }
    double made = seconds_since(t);
    t = Clock::now();
    for (void* q : p)
      CHECK(cudaFreeHost(q));
    std::printf("round %d  malloc-host 1:   %.2f s (%.1f GB/s), free %.2f s\n", round, made,
                gb / made, seconds_since(t));

    t = Clock::now();
    for (std::size_t b = 0; b < blocks; ++b)
      CHECK(cudaMallocHost(&p[b], block_bytes));
    const double allocated = seconds_since(t);
    t = Clock::now();
    on_threads(cores, blocks, copy_in);
    const double copied = seconds_since(t);
    t = Clock::now();
    for (void* q : p)
      CHECK(cudaFreeHost(q));
    std::printf("round %d  malloc-host 16:  allocation %.2f s, copies %.2f s (%.1f GB/s), free "
                "%.2f s\n",
                round, allocated, copied, gb / copied, seconds_since(t));

    t = Clock::now();
    on_threads(cores, blocks, [&](std::size_t b) {
      CHECK(cudaMallocHost(&p[b], block_bytes));
      copy_in(b);
    });
    made = seconds_since(t);
    t = Clock::now();
    on_threads(cores, blocks, [&](std::size_t b) { CHECK(cudaFreeHost(p[b])); });
    std::printf("round %d  malloc-host par: %.2f s (%.1f GB/s), free %.2f s\n", round, made,
                gb / made, seconds_since(t));

    t = Clock::now();
    on_threads(cores, blocks, [&](std::size_t b) {
      p[b] = huge_page_block();
      copy_in(b);
    });
    const double filled = seconds_since(t);
    t = Clock::now();
    for (void* q : p)
      CHECK(cudaHostRegister(q, block_bytes, cudaHostRegisterPortable));
    const double registered = seconds_since(t);
    t = Clock::now();
    for (void* q : p) {
      CHECK(cudaHostUnregister(q));
      std::free(q);
    }
    std::printf("round %d  register seq:    copies %.2f s, registration %.2f s, unregister and "
                "free %.2f s\n",
                round, filled, registered, seconds_since(t));

    t = Clock::now();
    on_threads(cores, blocks, [&](std::size_t b) {
      p[b] = huge_page_block();
      copy_in(b);
      CHECK(cudaHostRegister(p[b], block_bytes, cudaHostRegisterPortable));
    });
    made = seconds_since(t);
    t = Clock::now();
    on_threads(cores, blocks, [&](std::size_t b) {
      CHECK(cudaHostUnregister(p[b]));
      std::free(p[b]);
    });
    std::printf("round %d  register par:    %.2f s (%.1f GB/s), unregister and free %.2f s\n",
                round, made, gb / made, seconds_since(t));

    t = Clock::now();
    on_threads(cores, blocks, [&](std::size_t b) {
      p[b] = huge_page_block();
      CHECK(cudaHostRegister(p[b], block_bytes, cudaHostRegisterPortable));
      copy_in(b);
    });
    made = seconds_since(t);
    t = Clock::now();
    on_threads(cores, blocks, [&](std::size_t b) {
      CHECK(cudaHostUnregister(p[b]));
      std::free(p[b]);
    });
    std::printf("round %d  register first:  %.2f s (%.1f GB/s), unregister and free %.2f s\n",
                round, made, gb / made, seconds_since(t));
  }

  void* registered = huge_page_block();
  std::memset(registered, 1, block_bytes);
  CHECK(cudaHostRegister(registered, block_bytes, cudaHostRegisterPortable));
  void* allocated = nullptr;
  CHECK(cudaMallocHost(&allocated, block_bytes));
  std::memset(allocated, 1, block_bytes);
  void* device = nullptr;
  CHECK(cudaMalloc(&device, block_bytes));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (int k = 0; k < 3; ++k)
    std::printf("host -> device, 256 MiB: registered %.1f GB/s, cudaMallocHost %.1f GB/s\n",
                block_bytes / 1e6 / h2d_ms(device, registered, e0, e1),
                block_bytes / 1e6 / h2d_ms(device, allocated, e0, e1));
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(allocated));
  CHECK(cudaHostUnregister(registered));
  std::free(registered);
  return 0;
}
