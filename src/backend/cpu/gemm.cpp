// SPDX-License-Identifier: Apache-2.0
// Host products of blocks (gemm.hpp). Row-major matrices go to the CBLAS interface as they are.
// Without a BLAS, a plain blocked loop: each c[i][j] still adds its k terms in index order, so
// its bits are fixed, only slower.
#include "backend/cpu/gemm.hpp"

#include <chunked/config.hpp>

#include <algorithm>
#include <cstring>

#if CHUNKED_HAVE_BLAS
#include <cblas.h>
#endif

namespace chunked::cpu {

namespace {

#if CHUNKED_HAVE_BLAS
void gemm(const plan::ProductShape& s, const double* a, const double* b, double* c) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m),
              static_cast<int>(s.n), static_cast<int>(s.k), 1.0, a, static_cast<int>(s.k), b,
              static_cast<int>(s.n), s.accumulate ? 1.0 : 0.0, c, static_cast<int>(s.n));
}
void gemm(const plan::ProductShape& s, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.m),
              static_cast<int>(s.n), static_cast<int>(s.k), 1.0f, a, static_cast<int>(s.k), b,
              static_cast<int>(s.n), s.accumulate ? 1.0f : 0.0f, c, static_cast<int>(s.n));
}
#else
/// c (+)= a @ b with the k loop outermost within panels of rows: each c[i][j] gets its terms in
/// k order, and a row of b is reused across a panel of c while it is in the cache.
template <class T> void gemm(const plan::ProductShape& s, const T* a, const T* b, T* c) {
  constexpr index_t rows = 16;
  if (!s.accumulate)
    std::fill(c, c + s.m * s.n, T(0));
  for (index_t i0 = 0; i0 < s.m; i0 += rows) {
    const index_t i1 = std::min(s.m, i0 + rows);
    for (index_t k = 0; k < s.k; ++k)
      for (index_t i = i0; i < i1; ++i) {
        const T aik = a[i * s.k + k];
        T* ci = c + i * s.n;
        const T* bk = b + k * s.n;
        for (index_t j = 0; j < s.n; ++j)
          ci[j] += aik * bk[j];
      }
  }
}
#endif

/// OpenBLAS runs a call on as many threads as it is set to, and its results could change with
/// that count; chunked's workers are the parallelism, so each call runs on its caller alone. The
/// count is process-wide: set again before each product, whatever the program set in between.
void single_threaded_blas() {
#if CHUNKED_HAVE_OPENBLAS
  if (openblas_get_num_threads() != 1)
    openblas_set_num_threads(1);
#endif
}

template <class T>
void multiply(const plan::ProductShape& s, const void* a, const void* b, void* c) {
  const auto* pa = static_cast<const T*>(a);
  const auto* pb = static_cast<const T*>(b);
  auto* pc = static_cast<T*>(c);
  if (s.m == 0 || s.n == 0)
    return;
  if (s.k == 0) {
    if (!s.accumulate)
      std::memset(pc, 0, static_cast<std::size_t>(s.batch * s.m * s.n) * sizeof(T));
    return;
  }
  for (index_t q = 0; q < s.batch; ++q)
    gemm(s, pa + q * s.m * s.k, pb + q * s.k * s.n, pc + q * s.m * s.n);
}

} // namespace

void multiply_blocks(DType dtype, const plan::ProductShape& s, const void* a, const void* b,
                     void* c) {
  single_threaded_blas();
  if (dtype == DType::float64)
    multiply<double>(s, a, b, c);
  else
    multiply<float>(s, a, b, c);
}

const char* host_blas_name() {
#if CHUNKED_HAVE_OPENBLAS
  return "OpenBLAS";
#elif CHUNKED_HAVE_BLAS
  return "BLAS";
#else
  return "chunked's own loops";
#endif
}

} // namespace chunked::cpu
