// SPDX-License-Identifier: Apache-2.0
// chunked-b6-benchmark: BENCHMARKS.md B6, matmul(a, b) of float64 random operands, against one
// BLAS call of the same size in the same process: cuBLAS DGEMM on device arrays
// (b6_gemm_reference.cu) for --backend cuda, OpenBLAS dgemm on the same threads for cpu.
//
//   chunked-b6-benchmark [--size 32768 | --shape M K N] [--chunk 8192] [--backend cuda|cpu]
//                        [--threads T] [--repeat 3] [--operands device|host|pinned]
//                        [--limit-gib G]
//
// --operands device: both operands persisted first (on the GPU for cuda), so the timing is the
// product alone. host: operands in host memory (from_host), streamed to the GPU block by block.
// pinned: operands in page-locked memory the driver allocates, read in place (from_host_view):
// how operands larger than the device (--shape 24576 262144 24576: two 48 GiB operands) stream.
// --limit-gib caps the computation's device memory (ComputeOptions::device_memory_limit). Prints
// the median time, its rate in TFLOP/s, the reference's, their ratio, and a checksum (the sum of
// the product) that must not depend on the thread count.
#include <chunked/chunked.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#ifdef CHUNKED_B6_CUDA
/// Seconds of one cublasDgemm of (m, k) by (k, n) operands on device memory (median of
/// `repeat`).
double b6_cublas_dgemm_seconds(long m, long k, long n, int repeat);
/// Page-locked host memory (cudaHostAlloc), and its free.
void* b6_pinned_alloc(std::size_t bytes);
void b6_pinned_free(void* p);
#endif
#ifdef CHUNKED_B6_BLAS
#include <cblas.h>
#endif

using namespace chunked;

namespace {

struct Config {
  index_t m = 32768, k = 32768, n = 32768, chunk = 8192;
  std::string backend = "cuda";
  std::string operands = "device";
  int threads = 0;
  int repeat = 3;
  double limit_gib = 0;
};

template <class F> double median_seconds(int repeat, F&& f) {
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// The reference: one BLAS call of the same size (0 when this build has none for the backend).
/// On the GPU its contracted length is at most `k_max`, so that its operands fit in device
/// memory when chunked's stream from the host; rates are compared, not times.
double reference_seconds(const Config& c, index_t k_max) {
#ifdef CHUNKED_B6_CUDA
  if (c.backend == "cuda")
    return b6_cublas_dgemm_seconds(static_cast<long>(c.m), static_cast<long>(std::min(c.k, k_max)),
                                   static_cast<long>(c.n), c.repeat);
#else
  (void)k_max;
#endif
#ifdef CHUNKED_B6_BLAS
  if (c.backend == "cpu") {
    const auto m = static_cast<std::size_t>(c.m), k = static_cast<std::size_t>(c.k),
               n = static_cast<std::size_t>(c.n);
    std::vector<double> a(m * k, 1.0), b(k * n, 0.5), out(m * n);
    openblas_set_num_threads(c.threads > 0 ? c.threads : 0);
    return median_seconds(c.repeat, [&] {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m),
                  static_cast<int>(n), static_cast<int>(k), 1.0, a.data(), static_cast<int>(k),
                  b.data(), static_cast<int>(n), 0.0, out.data(), static_cast<int>(n));
    });
  }
#endif
  return 0;
}

template <class B> void run(const Config& c) {
  ComputeOptions options;
  options.num_threads = c.threads;
  if (c.limit_gib > 0)
    options.device_memory_limit = static_cast<std::size_t>(c.limit_gib * double(1 << 30));
  Generator rng(6);
  const Shape sa{c.m, c.k}, sb{c.k, c.n};
  const Chunks chunks{c.chunk, c.chunk};
  ChunkedArray<double, B> a = rng.normal<double, B>(sa, chunks, 0.0, 1.0);
  ChunkedArray<double, B> b = rng.normal<double, B>(sb, chunks, 0.0, 1.0);
  std::vector<std::unique_ptr<double, void (*)(double*)>> pinned;
  if (c.operands == "pinned") {
#ifdef CHUNKED_B6_CUDA
    for (ChunkedArray<double, B>* x : {&a, &b}) {
      const auto count = static_cast<std::size_t>(x->shape().size());
      auto* p = static_cast<double*>(b6_pinned_alloc(count * sizeof(double)));
      pinned.emplace_back(p, [](double* q) { b6_pinned_free(q); });
      x->to_host(std::span<double>(p, count), options);
      *x = from_host_view<B>(std::span<const double>(p, count), x->shape(), chunks);
    }
#else
    throw std::invalid_argument("--operands pinned needs a build with CUDA");
#endif
  } else if (c.operands == "host") {
    // Operands in host memory (from_host keeps them page-locked for the GPU's copies).
    a = from_host<B>(a.compute(options), chunks);
    b = from_host<B>(b.compute(options), chunks);
  } else {
    a = a.persist(options);
    b = b.persist(options);
  }
  // A first product of one block each: code generation, pools, cuBLAS handles.
  const Slice first = slice(0, c.chunk);
  matmul(a(first, first), b(first, first)).persist(options);
  const ChunkedArray<double, B> product = matmul(a, b);
  ChunkedArray<double, B> kept = product;
  const double t = median_seconds(c.repeat, [&] { kept = product.persist(options); });
  const double checksum = kept.sum().item(options);
  const double flop = 2.0 * double(c.m) * double(c.k) * double(c.n);
  const index_t k_max = c.operands == "pinned" ? 32768 : c.k;
  const double ref = reference_seconds(c, k_max);
  const double ref_flop = 2.0 * double(c.m) * double(std::min(c.k, k_max)) * double(c.n);
  std::printf("B6 matmul (%lld, %lld) @ (%lld, %lld) float64 in %lld^2 chunks, backend=%s "
              "operands=%s threads=%d limit=%.1fGiB\n",
              static_cast<long long>(c.m), static_cast<long long>(c.k), static_cast<long long>(c.k),
              static_cast<long long>(c.n), static_cast<long long>(c.chunk), c.backend.c_str(),
              c.operands.c_str(), c.threads, c.limit_gib);
  std::printf("chunked:   %.4f s  %.2f TFLOP/s\n", t, flop / t * 1e-12);
  if (ref > 0)
    std::printf("reference: %.4f s  %.2f TFLOP/s  (one %s call of k = %lld)  chunked/reference "
                "rate = %.3f\n",
                ref, ref_flop / ref * 1e-12, c.backend == "cuda" ? "cublasDgemm" : "OpenBLAS dgemm",
                static_cast<long long>(std::min(c.k, k_max)), (flop / t) / (ref_flop / ref));
  std::printf("checksum %.17g\n", checksum);
}

} // namespace

int main(int argc, char** argv) {
  Config c;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view arg = argv[i];
    const char* v = argv[i + 1];
    if (arg == "--size") {
      c.m = c.k = c.n = std::atoll(v);
    } else if (arg == "--shape" && i + 3 < argc) {
      c.m = std::atoll(argv[i + 1]);
      c.k = std::atoll(argv[i + 2]);
      c.n = std::atoll(argv[i + 3]);
      i += 2;
    } else if (arg == "--chunk")
      c.chunk = std::atoll(v);
    else if (arg == "--backend")
      c.backend = v;
    else if (arg == "--operands")
      c.operands = v;
    else if (arg == "--threads")
      c.threads = std::atoi(v);
    else if (arg == "--repeat")
      c.repeat = std::max(1, std::atoi(v));
    else if (arg == "--limit-gib")
      c.limit_gib = std::atof(v);
    else {
      std::fprintf(stderr, "chunked-b6-benchmark: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  try {
    if (c.backend == "cuda")
      run<Cuda>(c);
    else
      run<Cpu>(c);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chunked-b6-benchmark: %s\n", e.what());
    return 1;
  }
  return 0;
}
