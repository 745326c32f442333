// SPDX-License-Identifier: Apache-2.0
// chunked-cpu-panel-probe: whether B3's standardize, (x - x.mean(Axes{0})) / x.std(Axes{0}), can
// read x once on the CPU. The library reads it twice: a moments pass over every row, then the
// result pass. Reading it once means walking column panels: the moments of a panel over all rows,
// then its result while the panel is still in cache. This probe (standalone, no library code)
// times both orders with the same loops on a rows x 4096 float64 array, each of T threads owning
// a contiguous range of rows, beside a memcpy and a non-temporal copy of the same bytes on the
// same threads:
//
//   two reads    moments of every column over each thread's rows; the threads' moments combined
//                per column (Chan's formula, threads in order); then the result
//   panel W, P   for each panel of W columns: the same three steps on the panel alone, the
//                moments prefetching P rows ahead, threads meeting at a barrier between steps
//
// Both fold eight rows at a time into each column's (mean, M2) held in registers. The result
// pass writes with non-temporal stores in both. Medians of 7.
//
//   chunked-cpu-panel-probe [threads = 1] [rows = 8192]
#include <immintrin.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace {

constexpr std::size_t cols = 4096;

double* huge_zeroed(std::size_t elements) {
  const std::size_t bytes = elements * sizeof(double);
  void* p = std::aligned_alloc(std::size_t{2} << 20, bytes);
  if (p == nullptr) {
    std::fprintf(stderr, "out of memory\n");
    std::exit(1);
  }
#if defined(__linux__)
  madvise(p, bytes, MADV_HUGEPAGE);
#endif
  std::memset(p, 0, bytes);
  return static_cast<double*>(p);
}

/// One thread's column moments over its rows.
struct Moments {
  std::vector<double> mean = std::vector<double>(cols), m2 = std::vector<double>(cols);
  std::size_t n = 0;
};

struct Problem {
  std::size_t rows = 0;
  int threads = 1;
  double* x = nullptr;
  double* y = nullptr;
  std::vector<Moments> parts;
  std::vector<double> mean = std::vector<double>(cols), sd = std::vector<double>(cols);

  std::size_t row_begin(int t) const { return rows * static_cast<std::size_t>(t) / threads; }
};

constexpr std::size_t rows_at_once = 8;

// Welford's update per column over rows [r0, r1), eight rows at a time with each column's state
// in registers between them (as the library folds them).
__attribute__((target("avx512f"))) void moments(const Problem& p, Moments& m, std::size_t r0,
                                                std::size_t r1, std::size_t c0, std::size_t c1,
                                                std::size_t prefetch) {
  double* __restrict mean = m.mean.data();
  double* __restrict m2 = m.m2.data();
  std::fill(mean + c0, mean + c1, 0.0);
  std::fill(m2 + c0, m2 + c1, 0.0);
  std::size_t n = 0;
  std::size_t r = r0;
  for (; r + rows_at_once <= r1; r += rows_at_once) {
    const double* rows[rows_at_once];
    double rn[rows_at_once];
    for (std::size_t i = 0; i < rows_at_once; ++i) {
      rows[i] = p.x + (r + i) * cols;
      rn[i] = 1.0 / static_cast<double>(++n);
    }
    if (prefetch != 0 && r + prefetch + rows_at_once <= r1)
      for (std::size_t i = 0; i < rows_at_once; ++i)
        for (std::size_t c = c0; c < c1; c += 8)
          _mm_prefetch(reinterpret_cast<const char*>(rows[i] + prefetch * cols + c), _MM_HINT_T0);
    for (std::size_t c = c0; c < c1; ++c) {
      double mu = mean[c], q = m2[c];
      for (std::size_t i = 0; i < rows_at_once; ++i) {
        const double v = rows[i][c], d = v - mu;
        mu += d * rn[i];
        q += d * (v - mu);
      }
      mean[c] = mu;
      m2[c] = q;
    }
  }
  for (; r < r1; ++r) {
    const double rn = 1.0 / static_cast<double>(++n);
    for (std::size_t c = c0; c < c1; ++c) {
      const double v = p.x[r * cols + c], d = v - mean[c];
      mean[c] += d * rn;
      m2[c] += d * (v - mean[c]);
    }
  }
  m.n = n;
}

/// Columns [c0, c1) of the threads' moments joined in thread order; then mean and deviation.
void combine(Problem& p, std::size_t c0, std::size_t c1) {
  for (std::size_t c = c0; c < c1; ++c) {
    double n = 0, mean = 0, m2 = 0;
    for (const Moments& m : p.parts) {
      const double nb = static_cast<double>(m.n), total = n + nb;
      const double d = m.mean[c] - mean;
      mean += d * nb / total;
      m2 += m.m2[c] + d * d * n * nb / total;
      n = total;
    }
    p.mean[c] = mean;
    p.sd[c] = std::sqrt(m2 / n);
  }
}

__attribute__((target("avx512f"))) void result(Problem& p, std::size_t r0, std::size_t r1,
                                               std::size_t c0, std::size_t c1) {
  for (std::size_t r = r0; r < r1; ++r) {
    const double* row = p.x + r * cols;
    double* out = p.y + r * cols;
    for (std::size_t c = c0; c < c1; c += 8) {
      const __m512d v = _mm512_sub_pd(_mm512_load_pd(row + c), _mm512_loadu_pd(&p.mean[c]));
      _mm512_stream_pd(out + c, _mm512_div_pd(v, _mm512_loadu_pd(&p.sd[c])));
    }
  }
  _mm_sfence();
}

__attribute__((target("avx512f"))) void stream_copy(double* out, const double* in, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 8)
    _mm512_stream_pd(out + i, _mm512_load_pd(in + i));
  _mm_sfence();
}

/// f(t) on threads 0 .. threads - 1 (the calling thread is thread 0).
template <class F> void on_threads(int threads, F&& f) {
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back([&f, t] { f(t); });
  f(0);
  for (auto& th : pool)
    th.join();
}

template <class F> double median_ms(F&& f) {
  std::vector<double> t;
  for (int i = 0; i < 7; ++i) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// The standardize by panels of `width` columns (width = cols: the library's two reads).
void standardize(Problem& p, std::size_t width, std::size_t prefetch) {
  std::barrier sync(p.threads);
  on_threads(p.threads, [&](int t) {
    const std::size_t r0 = p.row_begin(t), r1 = p.row_begin(t + 1);
    for (std::size_t c = 0; c < cols; c += width) {
      moments(p, p.parts[t], r0, r1, c, c + width, prefetch);
      sync.arrive_and_wait();
      const std::size_t share = (width + p.threads - 1) / p.threads;
      const std::size_t k0 = std::min(c + share * t, c + width);
      combine(p, k0, std::min(k0 + share, c + width));
      sync.arrive_and_wait();
      result(p, r0, r1, c, c + width);
    }
  });
}

} // namespace

int main(int argc, char** argv) {
  if (!__builtin_cpu_supports("avx512f")) {
    std::printf("skipped: this probe's loops need AVX-512\n");
    return 0;
  }
  Problem p;
  p.threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  p.rows = argc > 2 ? static_cast<std::size_t>(std::max(8, std::atoi(argv[2]))) : 8192;
  p.parts.resize(static_cast<std::size_t>(p.threads));
  const std::size_t n = p.rows * cols;
  p.x = huge_zeroed(n);
  p.y = huge_zeroed(n);
  on_threads(p.threads, [&](int t) {
    for (std::size_t i = p.row_begin(t) * cols; i < p.row_begin(t + 1) * cols; ++i)
      p.x[i] = static_cast<double>((i * 2654435761u) % 1000) * 1e-3 + static_cast<double>(i >> 25);
  });
  auto copy_on_threads = [&](auto&& copy) {
    return median_ms([&] {
      on_threads(p.threads, [&](int t) {
        const std::size_t a = p.row_begin(t) * cols, b = p.row_begin(t + 1) * cols;
        copy(p.y + a, p.x + a, b - a);
      });
    });
  };
  const double memcpy_ms = copy_on_threads(
      [](double* out, const double* in, std::size_t k) { std::memcpy(out, in, k * 8); });
  const double stream_ms = copy_on_threads(stream_copy);
  const double best = std::min(memcpy_ms, stream_ms);
  std::printf("x: %zu x %zu float64 (%zu MiB), %d threads\n", p.rows, cols, n * 8 >> 20, p.threads);
  std::printf("memcpy %.2f ms, non-temporal copy %.2f ms; ratios below are to the faster\n",
              memcpy_ms, stream_ms);
  const double two = median_ms([&] { standardize(p, cols, 0); });
  const std::vector<double> sd_rows = p.sd;
  std::printf("two reads: %.2f ms, %.2f of the copy\n", two, best / two);
  for (const std::size_t width : {16, 32, 64, 128, 256, 512, 1024})
    for (const std::size_t prefetch : {0, 16}) {
      const double t = median_ms([&] { standardize(p, width, prefetch); });
      const bool same = std::equal(sd_rows.begin(), sd_rows.end(), p.sd.begin());
      std::printf("panel W=%4zu P=%2zu: %7.2f ms, %.2f of the copy%s\n", width, prefetch, t,
                  best / t, same ? "" : " (moments differ!)");
    }
  return 0;
}
