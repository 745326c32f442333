// SPDX-License-Identifier: Apache-2.0
// Column sums and column moments of rows narrower than a few vectors (x.std(Axes{0}) of ten
// columns), compiled per instruction set by interpreter_loops.hpp over its vector type.
#pragma once

#include <chunked/core/types.hpp>

#include <cstddef>
#include <cstring>

/// @file
/// The row-group loops (sum_rows, moments_rows) fold eight rows per call and keep each entry's
/// state in registers only for those eight: for rows of ten values a call moves 640 bytes, and
/// its setup (eight row pointers, sixteen scalar divisions for the moments' ratios, the loads and
/// stores of the state) costs as much as its arithmetic; rows narrower than one vector went
/// entry by entry. Here the state of a whole row, as many vectors as the registers hold (half or
/// quarter vectors for rows of two to seven values), stays in registers across every row of a
/// block, and the moments' ratios of 64 rows are divided a vector at a time. Each entry still
/// takes its rows in order with the same IEEE operations as moments_row (the translation units
/// are built with -ffp-contract=off), so the bits are those of the row-group loops.
///
/// A row of n values is covered by vectors of W lanes at offsets 0, W, 2W, ... and a last one at
/// n - W that may overlap the one before: an entry computed twice takes the same operations on
/// the same values both times, so either store leaves the same bits.

// NOLINTBEGIN(misc-definitions-in-headers): internal to each including translation unit

namespace chunked::cpu {
namespace {

/// Rows folded between two checks of the moments' state (a multiple of eight).
inline constexpr index_t narrow_check_rows = 64;
/// How far ahead of a row, in values, the loops ask for memory: one stream of short rows is
/// followed late by the hardware prefetchers (benchmarks/RESULTS.md, narrow rows).
inline constexpr index_t narrow_prefetch = 256;

template <class Vec> constexpr index_t vec_lanes = sizeof(Vec) / sizeof(double);

/// The vector of doubles half as wide as Vec, for rows narrower than one Vec.
template <std::size_t Bytes> struct HalfOf;
template <> struct HalfOf<64> { typedef double type __attribute__((vector_size(32))); };
template <> struct HalfOf<32> { typedef double type __attribute__((vector_size(16))); };
template <class Vec> using half_vec = typename HalfOf<sizeof(Vec)>::type;

template <class Vec> inline Vec load_vec(const double* x) {
  Vec v;
  std::memcpy(&v, x, sizeof v);
  return v;
}

template <class Vec> inline void store_vec(double* x, Vec v) { std::memcpy(x, &v, sizeof v); }

/// The offsets of the V vectors that cover a row of n values (see the file comment).
template <class Vec, int V> inline void narrow_offsets(index_t n, index_t (&at)[V]) {
  for (int v = 0; v < V; ++v)
    at[v] = v + 1 < V ? v * vec_lanes<Vec> : n - vec_lanes<Vec>;
}

/// f[k] += x[r * stride + k] for rows r = 0 .. rows - 1 in order, k < n, with V vectors.
template <class Vec, int V>
void sum_narrow_v(const double* x, index_t stride, index_t rows, index_t n, double* f) {
  index_t at[V];
  narrow_offsets<Vec, V>(n, at);
  Vec a[V];
  for (int v = 0; v < V; ++v)
    a[v] = load_vec<Vec>(f + at[v]);
  for (index_t r = 0; r < rows; ++r, x += stride) {
    __builtin_prefetch(x + narrow_prefetch);
    for (int v = 0; v < V; ++v)
      a[v] += load_vec<Vec>(x + at[v]);
  }
  for (int v = 0; v < V; ++v)
    store_vec(f + at[v], a[v]);
}

/// Calls f.template operator()<W, V>() with the vector W and the count V <= MaxV of them that
/// cover a row of n values: Vec, or for rows narrower than one Vec the half (or quarter) vector;
/// false where n is below two values or above MaxV vectors.
template <class Vec, int MaxV, int V = 1, class F> bool narrow_dispatch(index_t n, F&& f) {
  constexpr index_t w = vec_lanes<Vec>;
  if constexpr (V == 1 && w > 2) {
    if (n < w)
      return narrow_dispatch<half_vec<Vec>, 4>(n, f);
  }
  if (n < w)
    return false;
  if (n <= V * w) {
    f.template operator()<Vec, V>();
    return true;
  }
  if constexpr (V < MaxV)
    return narrow_dispatch<Vec, MaxV, V + 1>(n, f);
  return false;
}

/// sum_rows over every row, the state in registers throughout; false (nothing done) where the
/// row does not fit MaxV vectors.
template <class Vec, int MaxV>
bool sum_narrow(const double* x, index_t stride, index_t rows, index_t n, double* f) {
  return narrow_dispatch<Vec, MaxV>(
      n, [&]<class W, int V>() { sum_narrow_v<W, V>(x, stride, rows, n, f); });
}

/// The moments' ratios of `count` consecutive rows, the first having been preceded by `na`
/// values: row i folds with mean ratio 1 / (a + 1) and m2 ratio a * 1 / (a + 1), a = na + i, the
/// divisions of moments_rows (the compiler takes them a whole vector at a time).
inline void narrow_ratios(double na, index_t count, double* __restrict mean_ratio,
                          double* __restrict m2_ratio) {
  for (index_t i = 0; i < count; ++i) {
    const double a = na + static_cast<double>(i), total = a + 1.0;
    mean_ratio[i] = 1.0 / total;
    m2_ratio[i] = a * 1.0 / total;
  }
}

/// moments_rows over the rows in groups of narrow_check_rows (then eight), mean and m2 in
/// registers; a group whose state comes out not finite is not stored, and the rows folded
/// before it are returned (a multiple of eight) for the row-group loop to go on from.
template <class Vec, int V>
index_t moments_narrow_v(const double* x, index_t stride, index_t rows, index_t n, double na,
                         double* m, double* q) {
  constexpr index_t w = vec_lanes<Vec>;
  index_t at[V];
  narrow_offsets<Vec, V>(n, at);
  alignas(64) double mean_ratio[narrow_check_rows], m2_ratio[narrow_check_rows];
  Vec mk[V], qk[V];
  index_t done = 0;
  // The first row an entry sees sets its mean and leaves m2 at zero (fold_moments' na == 0).
  const bool first = na == 0;
  for (int v = 0; v < V; ++v) {
    mk[v] = load_vec<Vec>((first ? x : m) + at[v]);
    qk[v] = first ? Vec{} : load_vec<Vec>(q + at[v]);
  }
  while (done + 8 <= rows) {
    const index_t group = rows - done >= narrow_check_rows ? narrow_check_rows : 8;
    const index_t skip = done == 0 && first ? 1 : 0;
    narrow_ratios(na + static_cast<double>(done), group, mean_ratio, m2_ratio);
    const double* row = x + done * stride;
    for (index_t r = skip; r < group; ++r) {
      const double mr = mean_ratio[r], qr = m2_ratio[r];
      __builtin_prefetch(row + r * stride + narrow_prefetch);
      for (int v = 0; v < V; ++v) {
        const Vec delta = load_vec<Vec>(row + r * stride + at[v]) - mk[v];
        mk[v] += delta * mr;
        qk[v] += 0.0 + delta * delta * qr;
      }
    }
    Vec t = (mk[0] - mk[0]) + (qk[0] - qk[0]);
    for (int v = 1; v < V; ++v)
      t += (mk[v] - mk[v]) + (qk[v] - qk[v]);
    bool odd = false;
    for (index_t l = 0; l < w; ++l)
      odd |= t[l] != t[l];
    if (odd)
      return done;
    for (int v = 0; v < V; ++v) {
      store_vec(m + at[v], mk[v]);
      store_vec(q + at[v], qk[v]);
    }
    done += group;
  }
  return done;
}

/// moments_narrow_v for the row's width; returns -1 (nothing done) where the row does not fit
/// MaxV vectors.
template <class Vec, int MaxV>
index_t moments_narrow(const double* x, index_t stride, index_t rows, index_t n, double na,
                       double* m, double* q) {
  index_t done = -1;
  narrow_dispatch<Vec, MaxV>(
      n, [&]<class W, int V>() { done = moments_narrow_v<W, V>(x, stride, rows, n, na, m, q); });
  return done;
}

} // namespace
} // namespace chunked::cpu

// NOLINTEND(misc-definitions-in-headers)
