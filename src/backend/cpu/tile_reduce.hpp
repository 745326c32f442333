// SPDX-License-Identifier: Apache-2.0
// Per-tile accumulation of reduction partial states: one accumulator type per (ReduceOp, dtype).
#pragma once

#include "backend/cpu/elementwise.hpp"
#include "backend/cpu/partials.hpp"
#include "plan/partial.hpp"
#include <chunked/core/types.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

/// @file
/// Each accumulator has
///   `segment(x, index, n, entry)`: folds n consecutive tile values into one partial entry;
///   `element(x, index, entry)`: folds one value into an entry (when entries vary per element);
///   `row(x, index, n, entries)`: folds value k into entry k for k < n, entries `words` apart,
///   bit for bit what n calls of `element` give, in loops the compiler can vectorise.
/// `index` (argmin/argmax only) gives the reported index of each value. The partial word layout is
/// plan::partial_layout's; folding a segment is the same as combining its own partial state into
/// the entry, so results do not depend on how the box was cut into segments beyond the fixed tile
/// size.

namespace chunked::cpu {

/// Pairwise sum of get(lo .. lo+n-1) in double: 8 running sums below 128 terms, halves above.
/// Error grows with log n rather than n, and the order is fixed by n alone.
template <class Get> double pairwise_sum(const Get& get, index_t lo, index_t n) {
  if (n <= 128) {
    double acc[8] = {};
    index_t k = 0;
    for (; k + 8 <= n; k += 8)
      for (int l = 0; l < 8; ++l)
        acc[l] += get(lo + k + l);
    double s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; k < n; ++k)
      s += get(lo + k);
    return s;
  }
  const index_t half = (n / 2) & ~index_t{7};
  return pairwise_sum(get, lo, half) + pairwise_sum(get, lo + half, n - half);
}

namespace detail {

/// The words of consecutive entries as plain arrays: loops over union members do not vectorise.
inline double* as_doubles(plan::PartialWord* e) { return &e->f; }
inline std::int64_t* as_ints(plan::PartialWord* e) { return &e->i; }

} // namespace detail

/// Value of an input element as stored in a partial word: double for floating inputs, else int64.
template <class T>
using partial_value_t = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;

template <class T> struct SumAcc {
  using value_type = T;
  static constexpr int words = 1;
  static void segment(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    if constexpr (std::is_floating_point_v<T>) {
      e->f += pairwise_sum([x](index_t j) { return static_cast<double>(x[j]); }, 0, n);
    } else {
      std::uint64_t s = 0;
      for (index_t j = 0; j < n; ++j)
        s += static_cast<std::uint64_t>(static_cast<std::int64_t>(x[j]));
      e->i = wrap_add(e->i, static_cast<std::int64_t>(s));
    }
  }
  static void element(T x, index_t, plan::PartialWord* e) {
    if constexpr (std::is_floating_point_v<T>)
      e->f += static_cast<double>(x);
    else
      e->i = wrap_add(e->i, static_cast<std::int64_t>(x));
  }
  static void row(const T* __restrict x, const index_t*, index_t n, plan::PartialWord* e) {
    if constexpr (std::is_floating_point_v<T>) {
      double* __restrict f = detail::as_doubles(e);
      for (index_t k = 0; k < n; ++k)
        f[k] += static_cast<double>(x[k]);
    } else {
      std::int64_t* __restrict v = detail::as_ints(e);
      for (index_t k = 0; k < n; ++k)
        v[k] = wrap_add(v[k], static_cast<std::int64_t>(x[k]));
    }
  }
};

template <class T> struct ProdAcc {
  using value_type = T;
  static constexpr int words = 1;
  static void segment(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    for (index_t j = 0; j < n; ++j)
      element(x[j], 0, e);
  }
  static void element(T x, index_t, plan::PartialWord* e) {
    if constexpr (std::is_floating_point_v<T>)
      e->f *= static_cast<double>(x);
    else
      e->i = wrap_mul(e->i, static_cast<std::int64_t>(x));
  }
  static void row(const T* __restrict x, const index_t*, index_t n, plan::PartialWord* e) {
    if constexpr (std::is_floating_point_v<T>) {
      // Plain scalar products: measured faster than the vectorised form, which needs a NaN select
      // to keep the accumulator's NaN when both operands are NaN.
      for (index_t k = 0; k < n; ++k)
        element(x[k], 0, e + k);
    } else {
      std::int64_t* __restrict v = detail::as_ints(e);
      for (index_t k = 0; k < n; ++k)
        v[k] = wrap_mul(v[k], static_cast<std::int64_t>(x[k]));
    }
  }
};

namespace detail {

/// The NaN-propagating extreme of x[0 .. n) folded from the identity in index order, exactly as
/// the scalar fold `m = nan_max(m, x[j])` gives it. Eight independent lanes keep the loop
/// vectorised; lanes may only differ from the scalar fold on which NaN wins (first in order) or on
/// the sign of a zero extreme (the last of equal values wins), so those rare cases rerun the
/// scalar fold.
template <bool Max, class T> double extreme(const T* __restrict x, index_t n) {
  constexpr double identity =
      Max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  auto fold = [](double m, double v) { return Max ? nan_max(m, v) : nan_min(m, v); };
  double acc[8] = {identity, identity, identity, identity, identity, identity, identity, identity};
  index_t k = 0;
  for (; k + 8 <= n; k += 8)
    for (int l = 0; l < 8; ++l) {
      const double v = static_cast<double>(x[k + l]);
      // A NaN sticks in its lane: v > NaN and v < NaN are false.
      acc[l] = ((Max ? v > acc[l] : v < acc[l]) || v != v) ? v : acc[l];
    }
  double m = identity;
  for (int l = 0; l < 8; ++l)
    m = fold(m, acc[l]);
  for (; k < n; ++k)
    m = fold(m, static_cast<double>(x[k]));
  if (m == 0 || m != m) {
    m = identity;
    for (k = 0; k < n; ++k)
      m = fold(m, static_cast<double>(x[k]));
  }
  return m;
}

} // namespace detail

template <class T, bool Max> struct MinMaxAcc {
  using value_type = T;
  static constexpr int words = 1;
  static void segment(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    if constexpr (std::is_floating_point_v<T>) {
      const double m = detail::extreme<Max>(x, n);
      e->f = Max ? detail::nan_max(e->f, m) : detail::nan_min(e->f, m);
    } else {
      std::int64_t m = e->i;
      for (index_t j = 0; j < n; ++j) {
        const auto v = static_cast<std::int64_t>(x[j]);
        m = Max ? (v > m ? v : m) : (v < m ? v : m);
      }
      e->i = m;
    }
  }
  static void element(T x, index_t, plan::PartialWord* e) {
    // segment() of one value: the fold from the identity gives x itself.
    if constexpr (std::is_floating_point_v<T>) {
      const double v = static_cast<double>(x);
      e->f = Max ? detail::nan_max(e->f, v) : detail::nan_min(e->f, v);
    } else {
      const auto v = static_cast<std::int64_t>(x);
      e->i = Max ? (v > e->i ? v : e->i) : (v < e->i ? v : e->i);
    }
  }
  static void row(const T* __restrict x, const index_t*, index_t n, plan::PartialWord* e) {
    if constexpr (std::is_floating_point_v<T>) {
      double* __restrict f = detail::as_doubles(e);
      for (index_t k = 0; k < n; ++k) {
        const double v = static_cast<double>(x[k]);
        f[k] = Max ? detail::nan_max(f[k], v) : detail::nan_min(f[k], v);
      }
    } else {
      std::int64_t* __restrict m = detail::as_ints(e);
      for (index_t k = 0; k < n; ++k) {
        const auto v = static_cast<std::int64_t>(x[k]);
        m[k] = Max ? (v > m[k] ? v : m[k]) : (v < m[k] ? v : m[k]);
      }
    }
  }
};

template <class T, bool All> struct AnyAllAcc {
  using value_type = T;
  static constexpr int words = 1;
  static void segment(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    bool r = All;
    if constexpr (All)
      for (index_t j = 0; j < n; ++j)
        r = r && (x[j] != T(0));
    else
      for (index_t j = 0; j < n; ++j)
        r = r || (x[j] != T(0));
    e->i = All ? (e->i != 0 && r) : (e->i != 0 || r);
  }
  static void element(T x, index_t, plan::PartialWord* e) {
    const bool r = x != T(0);
    e->i = All ? (e->i != 0 && r) : (e->i != 0 || r);
  }
  static void row(const T* __restrict x, const index_t*, index_t n, plan::PartialWord* e) {
    std::int64_t* __restrict v = detail::as_ints(e);
    for (index_t k = 0; k < n; ++k) {
      const bool r = x[k] != T(0);
      v[k] = All ? (v[k] != 0 && r) : (v[k] != 0 || r);
    }
  }
};

template <class T> struct MeanAcc {
  using value_type = T;
  static constexpr int words = 1;
  static void segment(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    e->f += pairwise_sum([x](index_t j) { return static_cast<double>(x[j]); }, 0, n);
  }
  static void element(T x, index_t, plan::PartialWord* e) { e->f += static_cast<double>(x); }
  static void row(const T* __restrict x, const index_t*, index_t n, plan::PartialWord* e) {
    double* __restrict f = detail::as_doubles(e);
    for (index_t k = 0; k < n; ++k)
      f[k] += static_cast<double>(x[k]);
  }
};

/// var/std: each segment's (count, mean, M2) by two passes, merged into the entry (Chan et al.).
template <class T> struct MomentsAcc {
  using value_type = T;
  static constexpr int words = 3;
  static void segment(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    if (n == 0)
      return;
    const double mean = pairwise_sum([x](index_t j) { return static_cast<double>(x[j]); }, 0, n) /
                        static_cast<double>(n);
    const double m2 = pairwise_sum(
        [x, mean](index_t j) {
          const double d = static_cast<double>(x[j]) - mean;
          return d * d;
        },
        0, n);
    detail::merge_moments(e, static_cast<double>(n), mean, m2);
  }
  static void element(T x, index_t, plan::PartialWord* e) {
    detail::merge_moments(e, 1.0, static_cast<double>(x), 0.0);
  }
  /// merge_moments of one element per entry. In a box walked in C order the entries of one row
  /// segment have seen the same number of elements, so the two ratios of Chan's update are one
  /// division each for the whole row instead of two per element (same operands, same bits).
  static void row(const T* __restrict x, const index_t*, index_t n, plan::PartialWord* e) {
    if (n == 0)
      return;
    double* __restrict f = detail::as_doubles(e);
    const double na = f[0];
    bool uniform = true;
    // NaN when any value or state is infinite or NaN: which NaN such a row leaves is a matter of
    // operand order, so it takes merge_moments itself, as before.
    double finite = 0;
    for (index_t k = 0; k < n; ++k) {
      uniform &= f[3 * k] == na;
      const double v = static_cast<double>(x[k]);
      finite += (v - v) + (f[3 * k + 1] - f[3 * k + 1]) + (f[3 * k + 2] - f[3 * k + 2]);
    }
    if (!uniform || finite != finite) {
      for (index_t k = 0; k < n; ++k)
        element(x[k], 0, e + 3 * k);
      return;
    }
    if (na == 0) {
      for (index_t k = 0; k < n; ++k) {
        f[3 * k] = 1.0;
        f[3 * k + 1] = static_cast<double>(x[k]);
        f[3 * k + 2] = 0.0;
      }
      return;
    }
    const double nb = 1.0, total = na + nb;
    const double mean_ratio = nb / total, m2_ratio = na * nb / total;
    for (index_t k = 0; k < n; ++k) {
      const double delta = static_cast<double>(x[k]) - f[3 * k + 1];
      f[3 * k + 1] += delta * mean_ratio;
      f[3 * k + 2] += 0.0 + delta * delta * m2_ratio; // merge_moments' m2b + ..., m2b = 0
      f[3 * k] = total;
    }
  }
};

/// var/std partial states of consecutive entries as three arrays: the words of entry k are
/// count[k], mean[k] and m2[k]. A program whose rows fold into consecutive entries keeps its
/// entries this way during its tiles, so that the row loops vectorise, and interleaves them back
/// into partial words once at the end.
struct MomentColumns {
  double* count;
  double* mean;
  double* m2;
};

/// MomentsAcc<T>::row on entries held as columns: the same operations in the same order, so the
/// same bits.
template <class T> void moments_row(const T* __restrict x, index_t n, const MomentColumns& s) {
  if (n == 0)
    return;
  double* __restrict c = s.count;
  double* __restrict m = s.mean;
  double* __restrict q = s.m2;
  const double na = c[0];
  // Whether some entry has seen another count, and whether some value or state is infinite or
  // NaN (then which NaN the row leaves is a matter of operand order: merge_moments decides).
  std::int64_t odd = 0;
  for (index_t k = 0; k < n; ++k) {
    const double v = static_cast<double>(x[k]);
    const double t = (v - v) + (m[k] - m[k]) + (q[k] - q[k]);
    odd |= static_cast<std::int64_t>(c[k] != na) | static_cast<std::int64_t>(t != t);
  }
  if (odd != 0) {
    for (index_t k = 0; k < n; ++k) {
      plan::PartialWord e[3];
      e[0].f = c[k];
      e[1].f = m[k];
      e[2].f = q[k];
      detail::merge_moments(e, 1.0, static_cast<double>(x[k]), 0.0);
      c[k] = e[0].f;
      m[k] = e[1].f;
      q[k] = e[2].f;
    }
    return;
  }
  if (na == 0) {
    for (index_t k = 0; k < n; ++k) {
      c[k] = 1.0;
      m[k] = static_cast<double>(x[k]);
      q[k] = 0.0;
    }
    return;
  }
  const double nb = 1.0, total = na + nb;
  const double mean_ratio = nb / total, m2_ratio = na * nb / total;
  for (index_t k = 0; k < n; ++k) {
    const double delta = static_cast<double>(x[k]) - m[k];
    m[k] += delta * mean_ratio;
    q[k] += 0.0 + delta * delta * m2_ratio; // merge_moments' m2b + ..., m2b = 0
    c[k] = total;
  }
}

template <class T, bool Max> struct ArgAcc {
  using value_type = T;
  static constexpr int words = 2;
  using V = partial_value_t<T>;
  static V load(const plan::PartialWord& w) {
    if constexpr (std::is_floating_point_v<T>)
      return w.f;
    else
      return w.i;
  }
  static void store(plan::PartialWord& w, V v) {
    if constexpr (std::is_floating_point_v<T>)
      w.f = v;
    else
      w.i = v;
  }
  static void segment(const T* x, const index_t* index, index_t n, plan::PartialWord* e) {
    V best = load(e[0]);
    index_t at = e[1].i;
    for (index_t j = 0; j < n; ++j) {
      const V v = static_cast<V>(x[j]);
      // The interpreter hands an arg reduction the positions of its values, never nullptr.
      // NOLINTNEXTLINE(clang-analyzer-core.NullDereference)
      if (detail::arg_better<Max>(best, at, v, index[j])) {
        best = v;
        at = index[j];
      }
    }
    store(e[0], best);
    e[1].i = at;
  }
  static void element(T x, index_t index, plan::PartialWord* e) { segment(&x, &index, 1, e); }
  static void row(const T* x, const index_t* index, index_t n, plan::PartialWord* e) {
    for (index_t k = 0; k < n; ++k)
      element(x[k], index[k], e + 2 * k); // NOLINT(clang-analyzer-core.NullDereference): as above
  }
};

} // namespace chunked::cpu
