// SPDX-License-Identifier: Apache-2.0
// The interpreter's wide loops, written once and compiled once per instruction set by the
// mechanism isa.hpp describes (interpreter_avx512.cpp, interpreter_avx2.cpp), so the compiler
// vectorises the same source for each width. The arithmetic is plain loops, no intrinsics: each
// does exactly the IEEE operations of its baseline counterpart in the same order (the files are
// built with -ffp-contract=off), so every width gives the same bits. Only stream_copy, which
// computes nothing, spells out its non-temporal stores, which compilers do not emit for loops.
//
// Not a header for general use: it defines interpreter_kernels() in
// chunked::cpu::CHUNKED_ISA_NAMESPACE, null where the translation unit is not built for AVX2 or
// wider.
#pragma once

#ifndef CHUNKED_ISA_NAMESPACE
#error "define CHUNKED_ISA_NAMESPACE before including interpreter_loops.hpp"
#endif

// The definitions below are this header's purpose: one translation unit per instruction set
// includes it, once (see isa.hpp), so they are never defined twice under one name.
// NOLINTBEGIN(misc-definitions-in-headers)

#include "backend/cpu/interpreter_simd.hpp"
#include "backend/cpu/isa.hpp"

#if defined(__AVX2__)

#include "backend/cpu/exact_lanes.hpp"
#include "backend/cpu/instr_loops.hpp"
#include "backend/cpu/narrow_rows.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <utility>

namespace chunked::cpu::CHUNKED_ISA_NAMESPACE {
namespace {

using detail::InterpreterKernels;
using detail::rows_at_once;

/// add, sub, mul, div for Op = 0, 1, 2, 3 (arithmetic_index's order).
template <int Op, class T> inline T arith(T a, T b) {
  if constexpr (Op == 0)
    return a + b;
  else if constexpr (Op == 1)
    return a - b;
  else if constexpr (Op == 2)
    return a * b;
  else
    return a / b;
}

/// Element j of operand K of a loop whose bit K of Scalars is set is args[K][0] for every j (a
/// constant, broadcast to the lanes once) and args[K][j] otherwise.
template <unsigned Scalars, int K, class T> inline T operand(const T* __restrict x, index_t j) {
  return (Scalars >> K) & 1u ? x[0] : x[j];
}

template <class T, int Op, unsigned Scalars>
void binary(const void* const* args, void* out, index_t n) {
  const T* __restrict a = static_cast<const T*>(args[0]);
  const T* __restrict b = static_cast<const T*>(args[1]);
  T* __restrict r = static_cast<T*>(out);
  for (index_t j = 0; j < n; ++j)
    r[j] = arith<Op>(operand<Scalars, 0>(a, j), operand<Scalars, 1>(b, j));
}

/// binary<T, Op, Scalars> for every Op and Scalars, as InterpreterKernels lays them out.
template <class T, int... I>
constexpr std::array<InterpreterKernels::Binary, 16>
binary_table(std::integer_sequence<int, I...>) {
  return {&binary<T, I / 4, I % 4>...};
}

/// r = (a op1 b) op2 c, or c op2 (a op1 b) when Left is false: two float64 instructions in one
/// pass, each result rounded as its own loop rounds it.
template <int Op1, int Op2, bool Left, unsigned Scalars>
void binary_pair(const void* const* args, void* out, index_t n) {
  const double* __restrict a = static_cast<const double*>(args[0]);
  const double* __restrict b = static_cast<const double*>(args[1]);
  const double* __restrict c = static_cast<const double*>(args[2]);
  double* __restrict r = static_cast<double*>(out);
  for (index_t j = 0; j < n; ++j) {
    const double t = arith<Op1>(operand<Scalars, 0>(a, j), operand<Scalars, 1>(b, j));
    const double cj = operand<Scalars, 2>(c, j);
    r[j] = Left ? arith<Op2>(t, cj) : arith<Op2>(cj, t);
  }
}

template <int... I>
constexpr std::array<InterpreterKernels::Binary, 256> pair_table(std::integer_sequence<int, I...>) {
  return {&binary_pair<(I >> 6) & 3, (I >> 4) & 3, ((I >> 3) & 1) != 0, I & 7>...};
}
constexpr std::array<InterpreterKernels::Binary, 256> pair_kernels =
    pair_table(std::make_integer_sequence<int, 256>{});

// The same float64 loops writing their result to memory with non-temporal stores, so that the
// loads, the arithmetic and the stores of a large output overlap in one pass (stream_copy after
// the loop into a tile buffer runs them one after the other). Whole vectors go through GCC's
// vector types, whose operators are the same IEEE operations lane by lane.
#if defined(__AVX512F__)
typedef double wide_f64 __attribute__((vector_size(64)));
inline void stream_store(double* p, wide_f64 v) { _mm512_stream_pd(p, (__m512d)v); }
#else
typedef double wide_f64 __attribute__((vector_size(32)));
inline void stream_store(double* p, wide_f64 v) { _mm256_stream_pd(p, (__m256d)v); }
#endif
constexpr index_t wide_lanes = sizeof(wide_f64) / sizeof(double);
/// The most vectors of a row whose column moments (a mean and an m2 each) or column sums stay in
/// registers across its rows (narrow_rows.hpp): of the 32 registers of AVX-512 or the 16 of
/// AVX2, a few stay for the values and the ratios.
constexpr int narrow_moment_vectors = wide_lanes == 8 ? 8 : 4;
constexpr int narrow_sum_vectors = wide_lanes == 8 ? 16 : 12;

/// r[j] = f(j, k) for j < n, where f computes lanes j .. j + k - 1 (k = 1 or wide_lanes):
/// ordinary stores up to the first 64-byte boundary of r and after the last whole vector,
/// non-temporal ones between, then a fence (see stream_copy).
template <class F> void stream_loop(double* __restrict r, index_t n, F&& f) {
  index_t j = 0;
  for (; j < n && (reinterpret_cast<std::uintptr_t>(r + j) & 63u) != 0; ++j)
    r[j] = f(j, std::integral_constant<index_t, 1>{});
  for (; j + wide_lanes <= n; j += wide_lanes)
    stream_store(r + j, f(j, std::integral_constant<index_t, wide_lanes>{}));
  for (; j < n; ++j)
    r[j] = f(j, std::integral_constant<index_t, 1>{});
  _mm_sfence();
}

/// One double (K = 1) or one vector (K = wide_lanes) of x from x + j; x[0] in every lane when
/// Scalar.
template <index_t K, bool Scalar = false> inline auto load_lanes(const double* x, index_t j) {
  if constexpr (K == 1) {
    return Scalar ? x[0] : x[j];
  } else if constexpr (Scalar) {
    wide_f64 v;
    for (index_t l = 0; l < K; ++l)
      v[l] = x[0];
    return v;
  } else {
    wide_f64 v;
    std::memcpy(&v, x + j, sizeof v);
    return v;
  }
}

/// Operand K of a streamed loop (see operand).
template <unsigned Scalars, int K, index_t Lanes>
inline auto stream_operand(const double* x, index_t j) {
  return load_lanes<Lanes, ((Scalars >> K) & 1u) != 0>(x, j);
}

template <int Op, unsigned Scalars>
void binary_stream(const void* const* args, void* out, index_t n) {
  const double* a = static_cast<const double*>(args[0]);
  const double* b = static_cast<const double*>(args[1]);
  stream_loop(static_cast<double*>(out), n, [&](index_t j, auto k) {
    constexpr index_t lanes = decltype(k)::value;
    return arith<Op>(stream_operand<Scalars, 0, lanes>(a, j),
                     stream_operand<Scalars, 1, lanes>(b, j));
  });
}

template <int... I>
constexpr std::array<InterpreterKernels::Binary, 16>
binary_stream_table(std::integer_sequence<int, I...>) {
  return {&binary_stream<I / 4, I % 4>...};
}

template <int Op1, int Op2, bool Left, unsigned Scalars>
void binary_pair_stream(const void* const* args, void* out, index_t n) {
  const double* a = static_cast<const double*>(args[0]);
  const double* b = static_cast<const double*>(args[1]);
  const double* c = static_cast<const double*>(args[2]);
  stream_loop(static_cast<double*>(out), n, [&](index_t j, auto k) {
    constexpr index_t lanes = decltype(k)::value;
    const auto t = arith<Op1>(stream_operand<Scalars, 0, lanes>(a, j),
                              stream_operand<Scalars, 1, lanes>(b, j));
    const auto cj = stream_operand<Scalars, 2, lanes>(c, j);
    return Left ? arith<Op2>(t, cj) : arith<Op2>(cj, t);
  });
}

template <int... I>
constexpr std::array<InterpreterKernels::Binary, 256>
pair_stream_table(std::integer_sequence<int, I...>) {
  return {&binary_pair_stream<(I >> 6) & 3, (I >> 4) & 3, ((I >> 3) & 1) != 0, I & 7>...};
}
constexpr std::array<InterpreterKernels::Binary, 256> pair_stream_kernels =
    pair_stream_table(std::make_integer_sequence<int, 256>{});

void sum_row(const double* __restrict x, index_t n, double* __restrict f) {
  for (index_t k = 0; k < n; ++k)
    f[k] += x[k];
}

void sum_rows(const double* const* rows, index_t n, double* __restrict f) {
  const double* __restrict r[rows_at_once];
  for (int i = 0; i < rows_at_once; ++i)
    r[i] = rows[i];
  for (index_t k = 0; k < n; ++k) {
    double a = f[k];
    for (int i = 0; i < rows_at_once; ++i)
      a += r[i][k];
    f[k] = a;
  }
}

template <int Op>
void sum_binary_row(const double* __restrict a, const double* __restrict b, index_t n,
                    double* __restrict f) {
  for (index_t k = 0; k < n; ++k)
    f[k] += arith<Op>(a[k], b[k]);
}

/// Counts: entries carry their own counts in c (each checked against c[0]); else every entry
/// has seen na elements and c is not read or written (the caller keeps the one count).
template <bool Counts>
index_t fold_moments(const double* __restrict x, index_t n, double na, double* __restrict c,
                     double* __restrict m, double* __restrict q) {
  // Blocks small enough that the check and the update of one read the same cache lines.
  constexpr index_t block = 64;
  const double nb = 1.0, total = na + nb;
  const double mean_ratio = nb / total, m2_ratio = na * nb / total;
  for (index_t done = 0; done < n; done += block) {
    const index_t len = n - done < block ? n - done : block;
    const double* xs = x + done;
    double *ms = m + done, *qs = q + done;
    long long odd = 0;
    for (index_t k = 0; k < len; ++k) {
      const double v = xs[k];
      const double t = (v - v) + (ms[k] - ms[k]) + (qs[k] - qs[k]);
      odd |= static_cast<long long>(t != t);
      if constexpr (Counts)
        odd |= static_cast<long long>(c[done + k] != na);
    }
    if (odd != 0)
      return done;
    if (na == 0) {
      for (index_t k = 0; k < len; ++k) {
        ms[k] = xs[k];
        qs[k] = 0.0;
      }
    } else {
      for (index_t k = 0; k < len; ++k) {
        const double delta = xs[k] - ms[k];
        ms[k] += delta * mean_ratio;
        qs[k] += 0.0 + delta * delta * m2_ratio;
      }
    }
    if constexpr (Counts)
      for (index_t k = 0; k < len; ++k)
        c[done + k] = total;
  }
  return n;
}

/// fold_moments<false> of rows_at_once rows in turn: per entry the same operations in the same
/// order, its mean and m2 held in registers across the rows. A block of entries is folded into
/// registers and stored only if its new state is finite: a value or a state that is not finite
/// makes the state not finite whatever follows (inf - inf and inf * 0 give NaN, NaN stays), so
/// one check after the rows stands for a check of every row before them. A finite block whose
/// m2 overflows fails it too and goes to the exact baseline loop, which gives the same bits.
index_t moments_rows(const double* const* rows, index_t n, double na, double* __restrict m,
                     double* __restrict q) {
  constexpr int R = rows_at_once;
  // Independent chains per row: enough to hide the latency of each entry's serial updates,
  // few enough that 2 * G state vectors stay in registers (32 with AVX-512, 16 with AVX2); no
  // separate check pass before the fold (benchmarks/RESULTS.md, M5).
  constexpr int G = wide_lanes == 8 ? 8 : 2;
  constexpr index_t block = G * wide_lanes;
  double mean_ratio[R], m2_ratio[R];
  for (int r = 0; r < R; ++r) {
    const double a = na + r, total = a + 1.0;
    mean_ratio[r] = 1.0 / total;
    m2_ratio[r] = a * 1.0 / total;
  }
  // The first row an entry sees sets its mean and leaves m2 at zero (fold_moments' na == 0).
  const int first = na == 0 ? 1 : 0;
  index_t done = 0;
  for (; done + block <= n; done += block) {
    wide_f64 mk[G], qk[G];
    for (int g = 0; g < G; ++g) {
      const index_t j = done + g * wide_lanes;
      mk[g] = load_lanes<wide_lanes>(first ? rows[0] : m, j);
      qk[g] = first ? wide_f64{} : load_lanes<wide_lanes>(q, j);
    }
    for (int r = first; r < R; ++r) {
      // Eight rows 32 KiB apart are more streams than the hardware prefetchers follow well:
      // fetch each row 2 KiB ahead (benchmarks/RESULTS.md, M6).
      for (index_t line = 0; line < block; line += 8)
        __builtin_prefetch(rows[r] + done + line + 256);
      for (int g = 0; g < G; ++g) {
        const wide_f64 delta = load_lanes<wide_lanes>(rows[r], done + g * wide_lanes) - mk[g];
        mk[g] += delta * mean_ratio[r];
        qk[g] += 0.0 + delta * delta * m2_ratio[r];
      }
    }
    wide_f64 t = (mk[0] - mk[0]) + (qk[0] - qk[0]);
    for (int g = 1; g < G; ++g)
      t += (mk[g] - mk[g]) + (qk[g] - qk[g]);
    bool odd = false;
    for (index_t k = 0; k < wide_lanes; ++k)
      odd |= t[k] != t[k];
    if (odd)
      return done;
    for (int g = 0; g < G; ++g) {
      std::memcpy(m + done + g * wide_lanes, &mk[g], sizeof mk[g]);
      std::memcpy(q + done + g * wide_lanes, &qk[g], sizeof qk[g]);
    }
  }
  // Then a vector at a time: rows narrower than a block (x.std(Axes{0}) of ten columns) came
  // here entry by entry, a chain of dependent updates per entry, three times slower
  // (benchmarks/RESULTS.md, M7).
  for (; done + wide_lanes <= n; done += wide_lanes) {
    wide_f64 mk = load_lanes<wide_lanes>(first ? rows[0] : m, done);
    wide_f64 qk = first ? wide_f64{} : load_lanes<wide_lanes>(q, done);
    for (int r = first; r < R; ++r) {
      const wide_f64 delta = load_lanes<wide_lanes>(rows[r], done) - mk;
      mk += delta * mean_ratio[r];
      qk += 0.0 + delta * delta * m2_ratio[r];
    }
    const wide_f64 t = (mk - mk) + (qk - qk);
    bool odd = false;
    for (index_t k = 0; k < wide_lanes; ++k)
      odd |= t[k] != t[k];
    if (odd)
      return done;
    std::memcpy(m + done, &mk, sizeof mk);
    std::memcpy(q + done, &qk, sizeof qk);
  }
  // The last entries, fewer than a vector, row by row so that their chains overlap; then the
  // same check, entry by entry.
  const index_t tail = n - done;
  double mk[wide_lanes], qk[wide_lanes];
  for (index_t k = 0; k < tail; ++k) {
    mk[k] = first ? rows[0][done + k] : m[done + k];
    qk[k] = first ? 0.0 : q[done + k];
  }
  for (int r = first; r < R; ++r)
    for (index_t k = 0; k < tail; ++k) {
      const double delta = rows[r][done + k] - mk[k];
      mk[k] += delta * mean_ratio[r];
      qk[k] += 0.0 + delta * delta * m2_ratio[r];
    }
  for (index_t k = 0; k < tail; ++k, ++done) {
    const double t = (mk[k] - mk[k]) + (qk[k] - qk[k]);
    if (t != t)
      return done;
    m[done] = mk[k];
    q[done] = qk[k];
  }
  return n;
}

index_t moments_row(const double* __restrict x, index_t n, double na, double* __restrict c,
                    double* __restrict m, double* __restrict q) {
  if (n == 0)
    return 0;
  return c ? fold_moments<true>(x, n, c[0], c, m, q) : fold_moments<false>(x, n, na, c, m, q);
}

/// maximum(a, b) for Max, else minimum: NaN-propagating, the accumulator a's NaN first, and of
/// equal values the new one b (scalar::op_maximum / op_minimum, written here so that each
/// instruction set compiles its own).
template <bool Max> inline double nan_extreme(double a, double b) {
  return ((Max ? a > b : a < b) || a != a) ? a : b;
}

/// f[k] = nan_extreme(f[k], x[k]).
template <bool Max> void extreme_row(const double* __restrict x, index_t n, double* __restrict f) {
  for (index_t k = 0; k < n; ++k)
    f[k] = nan_extreme<Max>(f[k], x[k]);
}

/// extreme_row of rows_at_once rows in turn, each entry's extreme held in a register across them.
template <bool Max> void extreme_rows(const double* const* rows, index_t n, double* __restrict f) {
  const double* __restrict r[rows_at_once];
  for (int i = 0; i < rows_at_once; ++i)
    r[i] = rows[i];
  for (index_t k = 0; k < n; ++k) {
    double a = f[k];
    for (int i = 0; i < rows_at_once; ++i)
      a = nan_extreme<Max>(a, r[i][k]);
    f[k] = a;
  }
}

/// The extreme of x[0 .. n) by independent vector lanes: exact whenever it is a number other
/// than zero, as a set of numbers has one largest and one smallest whatever the order; a NaN or
/// a zero result is left to the baseline fold (see InterpreterKernels::extreme_f64).
template <bool Max> bool extreme(const double* __restrict x, index_t n, double* m) {
  constexpr double identity = Max ? -__builtin_inf() : __builtin_inf();
  // Four vectors in flight: each compare-and-select waits on the one before in its lane.
  constexpr int G = 4;
  wide_f64 acc[G], odd[G];
  for (int g = 0; g < G; ++g) {
    acc[g] = wide_f64{} + identity;
    odd[g] = wide_f64{};
  }
  index_t k = 0;
  for (; k + G * wide_lanes <= n; k += G * wide_lanes)
    for (int g = 0; g < G; ++g) {
      const wide_f64 v = load_lanes<wide_lanes>(x, k + g * wide_lanes);
      acc[g] = (Max ? v > acc[g] : v < acc[g]) ? v : acc[g];
      odd[g] += v - v; // NaN from then on when v is NaN or infinite
    }
  double best = identity, t = 0.0;
  for (int g = 0; g < G; ++g)
    for (index_t l = 0; l < wide_lanes; ++l) {
      best = (Max ? acc[g][l] > best : acc[g][l] < best) ? acc[g][l] : best;
      t += odd[g][l];
    }
  for (; k < n; ++k) {
    best = (Max ? x[k] > best : x[k] < best) ? x[k] : best;
    t += x[k] - x[k];
  }
  // An infinity among the values is a number like any other, but x - x cannot tell it from a
  // NaN: look again only then.
  if (t != t)
    for (index_t j = 0; j < n; ++j)
      if (x[j] != x[j])
        return false;
  if (best == 0.0)
    return false;
  *m = best;
  return true;
}

/// gather8[0]: reversed 8-byte elements, a vector at a time with its lanes reversed.
void gather_reversed(const void* src, void* dst, index_t len) {
  const auto* s = static_cast<const double*>(src);
  auto* d = static_cast<double*>(dst);
  index_t k = 0;
  for (; k + wide_lanes <= len; k += wide_lanes) {
    // The lanes of src[-k - lanes + 1 .. -k], last first.
    const wide_f64 v = load_lanes<wide_lanes>(s, -k - (wide_lanes - 1));
#if defined(__AVX512F__)
    const wide_f64 r = (wide_f64)_mm512_permutex2var_pd(
        (__m512d)v, _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), (__m512d)v);
#else
    const wide_f64 r = (wide_f64)_mm256_permute4x64_pd((__m256d)v, 0x1B);
#endif
    std::memcpy(d + k, &r, sizeof r);
  }
  for (; k < len; ++k)
    d[k] = s[-k];
}

/// gather8[1]: every other 8-byte element, the even lanes of two vectors at a time.
void gather_every_other(const void* src, void* dst, index_t len) {
  const auto* s = static_cast<const double*>(src);
  auto* d = static_cast<double*>(dst);
  index_t k = 0;
  // The two vectors reach src[2 k + 2 lanes - 1], one past the last even element they keep:
  // stop while that is still before the last element read, src[2 (len - 1)].
  for (; k + wide_lanes < len; k += wide_lanes) {
    const wide_f64 a = load_lanes<wide_lanes>(s, 2 * k);
    const wide_f64 b = load_lanes<wide_lanes>(s, 2 * k + wide_lanes);
#if defined(__AVX512F__)
    const wide_f64 r = (wide_f64)_mm512_permutex2var_pd(
        (__m512d)a, _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), (__m512d)b);
#else
    // unpacklo gives a0 b0 a2 b2; lanes 0, 2, 1, 3 of that are a0 a2 b0 b2.
    const wide_f64 r =
        (wide_f64)_mm256_permute4x64_pd(_mm256_unpacklo_pd((__m256d)a, (__m256d)b), 0xD8);
#endif
    std::memcpy(d + k, &r, sizeof r);
  }
  for (; k < len; ++k)
    d[k] = s[2 * k];
}

void stream_copy(void* dst, const void* src, std::size_t bytes) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  // Up to the first 64-byte boundary of the destination (non-temporal stores need it), then
  // whole lines, then the rest, with ordinary stores at both ends.
  std::size_t head = (64 - (reinterpret_cast<std::uintptr_t>(d) & 63u)) & 63u;
  head = head < bytes ? head : bytes;
  std::memcpy(d, s, head);
  std::size_t k = head;
  for (; k + 64 <= bytes; k += 64) {
#if defined(__AVX512F__)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + k),
                        _mm512_loadu_si512(reinterpret_cast<const void*>(s + k)));
#else
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + k));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + k + 32));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + k), lo);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + k + 32), hi);
#endif
  }
  std::memcpy(d + k, s + k, bytes - k);
  _mm_sfence();
}

constexpr std::array<InterpreterKernels::Binary, 16> binary_f64_kernels =
    binary_table<double>(std::make_integer_sequence<int, 16>{});
constexpr std::array<InterpreterKernels::Binary, 16> binary_f32_kernels =
    binary_table<float>(std::make_integer_sequence<int, 16>{});
constexpr std::array<InterpreterKernels::Binary, 16> binary_stream_kernels =
    binary_stream_table(std::make_integer_sequence<int, 16>{});

const InterpreterKernels table{
    binary_f64_kernels.data(),
    binary_f32_kernels.data(),
    &sum_row,
    {&sum_binary_row<0>, &sum_binary_row<1>, &sum_binary_row<2>, &sum_binary_row<3>},
    &moments_row,
    &sum_rows,
    &moments_rows,
    pair_kernels.data(),
    binary_stream_kernels.data(),
    pair_stream_kernels.data(),
    {&extreme_row<false>, &extreme_row<true>},
    {&extreme_rows<false>, &extreme_rows<true>},
    {&extreme<false>, &extreme<true>},
    {&gather_reversed, &gather_every_other},
    &stream_copy,
    &instr_loop,
    &exact_segment_lanes<double>,
    &exact_segment_lanes<float>,
    &exact_columns_fold<double>,
    &exact_columns_fold<float>,
    &exact_columns_missed<double>,
    &exact_columns_missed<float>,
    &sum_narrow<wide_f64, narrow_sum_vectors>,
    &moments_narrow<wide_f64, narrow_moment_vectors>};

} // namespace

const detail::InterpreterKernels* interpreter_kernels() noexcept { return &table; }

} // namespace chunked::cpu::CHUNKED_ISA_NAMESPACE

#else

namespace chunked::cpu::CHUNKED_ISA_NAMESPACE {

const detail::InterpreterKernels* interpreter_kernels() noexcept { return nullptr; }

} // namespace chunked::cpu::CHUNKED_ISA_NAMESPACE

#endif

// NOLINTEND(misc-definitions-in-headers)
