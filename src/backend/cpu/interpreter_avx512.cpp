// SPDX-License-Identifier: Apache-2.0
// AVX-512 builds of the interpreter loops that stream from memory (see interpreter_simd.hpp).
#include "interpreter_simd.hpp"

namespace chunked::cpu::detail {

#if defined(__AVX512F__)

// Everything here stays in this file (anonymous namespace, no shared inline functions), so no
// AVX-512 instantiation can stand in for a baseline one at link time.
namespace {

template <class T, int Op> void binary(const void* const* args, void* out, index_t n) {
  const T* __restrict a = static_cast<const T*>(args[0]);
  const T* __restrict b = static_cast<const T*>(args[1]);
  T* __restrict r = static_cast<T*>(out);
  for (index_t j = 0; j < n; ++j) {
    if constexpr (Op == 0)
      r[j] = a[j] + b[j];
    else if constexpr (Op == 1)
      r[j] = a[j] - b[j];
    else if constexpr (Op == 2)
      r[j] = a[j] * b[j];
    else
      r[j] = a[j] / b[j];
  }
}

void sum_row(const double* __restrict x, index_t n, double* __restrict f) {
  for (index_t k = 0; k < n; ++k)
    f[k] += x[k];
}

template <int Op>
void sum_binary_row(const double* __restrict a, const double* __restrict b, index_t n,
                    double* __restrict f) {
  for (index_t k = 0; k < n; ++k) {
    double v;
    if constexpr (Op == 0)
      v = a[k] + b[k];
    else if constexpr (Op == 1)
      v = a[k] - b[k];
    else if constexpr (Op == 2)
      v = a[k] * b[k];
    else
      v = a[k] / b[k];
    f[k] += v;
  }
}

index_t moments_row(const double* __restrict x, index_t n, double* __restrict c,
                    double* __restrict m, double* __restrict q) {
  if (n == 0)
    return 0;
  // Blocks small enough that the check and the update of one read the same cache lines.
  constexpr index_t block = 64;
  const double na = c[0];
  const double nb = 1.0, total = na + nb;
  const double mean_ratio = nb / total, m2_ratio = na * nb / total;
  for (index_t done = 0; done < n; done += block) {
    const index_t len = n - done < block ? n - done : block;
    const double* xs = x + done;
    double *cs = c + done, *ms = m + done, *qs = q + done;
    long long odd = 0;
    for (index_t k = 0; k < len; ++k) {
      const double v = xs[k];
      const double t = (v - v) + (ms[k] - ms[k]) + (qs[k] - qs[k]);
      odd |= static_cast<long long>(cs[k] != na) | static_cast<long long>(t != t);
    }
    if (odd != 0)
      return done;
    if (na == 0) {
      for (index_t k = 0; k < len; ++k) {
        cs[k] = 1.0;
        ms[k] = xs[k];
        qs[k] = 0.0;
      }
      continue;
    }
    for (index_t k = 0; k < len; ++k) {
      const double delta = xs[k] - ms[k];
      ms[k] += delta * mean_ratio;
      qs[k] += 0.0 + delta * delta * m2_ratio;
      cs[k] = total;
    }
  }
  return n;
}

const InterpreterKernels table{
    {&binary<double, 0>, &binary<double, 1>, &binary<double, 2>, &binary<double, 3>},
    {&binary<float, 0>, &binary<float, 1>, &binary<float, 2>, &binary<float, 3>},
    &sum_row,
    {&sum_binary_row<0>, &sum_binary_row<1>, &sum_binary_row<2>, &sum_binary_row<3>},
    &moments_row};

} // namespace

const InterpreterKernels* avx512_interpreter_kernels() noexcept { return &table; }

#else

const InterpreterKernels* avx512_interpreter_kernels() noexcept { return nullptr; }

#endif

} // namespace chunked::cpu::detail
