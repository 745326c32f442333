// SPDX-License-Identifier: Apache-2.0
// chunked-cpu-panel-probe: whether B3's standardize, (x - x.mean(Axes{0})) / x.std(Axes{0}), can
// read x once on one CPU core. The library reads it twice: a moments pass over every row, then
// the result pass. Reading it once means walking column panels: the moments of a panel over all
// rows, then its result while the panel is still in cache. This probe (standalone, no library
// code) times both orders with the same loops on B3's CPU array (8192 x 4096 float64 in two
// chunks of 4096 rows), beside a memcpy of the same bytes:
//
//   two reads    moments of every column, row by row; then the result, row by row
//   panel W, P   for each panel of W columns: its moments over all rows (prefetching P rows
//                ahead), then its result
//
// Both fold eight rows at a time into each column's (mean, M2) held in registers.
//
// The result pass writes with non-temporal stores in both. Medians of 7.
//
//   chunked-cpu-panel-probe
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace {

constexpr std::size_t rows_per_chunk = 4096, chunks = 2, cols = 4096;
constexpr std::size_t chunk_elements = rows_per_chunk * cols;

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

struct Problem {
  double* x[chunks];
  double* y[chunks];
  std::vector<double> mean = std::vector<double>(cols), m2 = std::vector<double>(cols);
  std::vector<double> sd = std::vector<double>(cols);
};

constexpr std::size_t rows_at_once = 8;

// Welford's update per column, rows in order, eight rows at a time with each column's state in
// registers between them (as the library folds them); then mean and standard deviation.
__attribute__((target("avx512f"))) void moments(Problem& p, std::size_t c0, std::size_t c1,
                                                std::size_t prefetch) {
  double* __restrict mean = p.mean.data();
  double* __restrict m2 = p.m2.data();
  std::fill(mean + c0, mean + c1, 0.0);
  std::fill(m2 + c0, m2 + c1, 0.0);
  std::size_t n = 0;
  for (std::size_t k = 0; k < chunks; ++k)
    for (std::size_t r = 0; r < rows_per_chunk; r += rows_at_once) {
      const double* rows[rows_at_once];
      double rn[rows_at_once];
      for (std::size_t i = 0; i < rows_at_once; ++i) {
        rows[i] = p.x[k] + (r + i) * cols;
        rn[i] = 1.0 / static_cast<double>(++n);
      }
      if (prefetch != 0 && r + prefetch + rows_at_once <= rows_per_chunk)
        for (std::size_t i = 0; i < rows_at_once; ++i)
          for (std::size_t c = c0; c < c1; c += 8)
            _mm_prefetch(reinterpret_cast<const char*>(rows[i] + prefetch * cols + c),
                         _MM_HINT_T0);
      for (std::size_t c = c0; c < c1; ++c) {
        double m = mean[c], q = m2[c];
        for (std::size_t i = 0; i < rows_at_once; ++i) {
          const double v = rows[i][c], d = v - m;
          m += d * rn[i];
          q += d * (v - m);
        }
        mean[c] = m;
        m2[c] = q;
      }
    }
  for (std::size_t c = c0; c < c1; ++c) p.sd[c] = std::sqrt(m2[c] / static_cast<double>(n));
}

__attribute__((target("avx512f"))) void result(Problem& p, std::size_t c0, std::size_t c1) {
  for (std::size_t k = 0; k < chunks; ++k)
    for (std::size_t r = 0; r < rows_per_chunk; ++r) {
      const double* row = p.x[k] + r * cols;
      double* out = p.y[k] + r * cols;
      for (std::size_t c = c0; c < c1; c += 8) {
        const __m512d v = _mm512_sub_pd(_mm512_load_pd(row + c), _mm512_loadu_pd(&p.mean[c]));
        _mm512_stream_pd(out + c, _mm512_div_pd(v, _mm512_loadu_pd(&p.sd[c])));
      }
    }
  _mm_sfence();
}

template <class F> double median_ms(F&& f) {
  std::vector<double> t;
  for (int i = 0; i < 7; ++i) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a)
                    .count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

} // namespace

int main() {
  if (!__builtin_cpu_supports("avx512f")) {
    std::printf("skipped: this probe's loops need AVX-512\n");
    return 0;
  }
  Problem p;
  for (std::size_t k = 0; k < chunks; ++k) {
    p.x[k] = huge_zeroed(chunk_elements);
    p.y[k] = huge_zeroed(chunk_elements);
    for (std::size_t i = 0; i < chunk_elements; ++i)
      p.x[k][i] = static_cast<double>((i * 2654435761u) % 1000) * 1e-3 + static_cast<double>(k);
  }
  const double copy = median_ms([&] {
    for (std::size_t k = 0; k < chunks; ++k)
      std::memcpy(p.y[k], p.x[k], chunk_elements * sizeof(double));
  });
  std::printf("memcpy of x (%zu MiB): %.2f ms\n", chunks * chunk_elements * 8 >> 20, copy);
  const double pass1 = median_ms([&] { moments(p, 0, cols, 0); });
  const double pass2 = median_ms([&] { result(p, 0, cols); });
  const std::vector<double> sd_rows = p.sd;
  std::printf("two reads: moments %.2f ms + result %.2f ms = %.2f ms, %.2f of memcpy\n", pass1,
              pass2, pass1 + pass2, copy / (pass1 + pass2));
  for (const std::size_t width : {16, 32, 64, 128, 256, 512, 1024})
    for (const std::size_t prefetch : {0, 4, 16}) {
      const double t = median_ms([&] {
        for (std::size_t c = 0; c < cols; c += width) {
          moments(p, c, c + width, prefetch);
          result(p, c, c + width);
        }
      });
      const bool same = std::equal(sd_rows.begin(), sd_rows.end(), p.sd.begin());
      std::printf("panel W=%4zu P=%2zu: %6.2f ms, %.2f of memcpy%s\n", width, prefetch, t,
                  copy / t, same ? "" : " (moments differ!)");
    }
  return 0;
}
