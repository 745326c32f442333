// SPDX-License-Identifier: Apache-2.0
// Per-tile accumulation of reduction partial states: one accumulator type per (ReduceOp, dtype).
#pragma once

#include <chunked/backend/cpu/elementwise.hpp>
#include <chunked/backend/cpu/partials.hpp>
#include <chunked/core/types.hpp>
#include <chunked/plan/partial.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

/// @file
/// Each accumulator has
///   `segment(x, index, n, entry)`: folds n consecutive tile values into one partial entry;
///   `element(x, index, entry)`: folds one value into an entry (when entries vary per element).
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
};

template <class T, bool Max> struct MinMaxAcc {
  using value_type = T;
  static constexpr int words = 1;
  static void segment(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    if constexpr (std::is_floating_point_v<T>) {
      double m =
          Max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
      for (index_t j = 0; j < n; ++j)
        m = Max ? detail::nan_max(m, static_cast<double>(x[j]))
                : detail::nan_min(m, static_cast<double>(x[j]));
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
  static void element(T x, index_t, plan::PartialWord* e) { segment(&x, nullptr, 1, e); }
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
  static void element(T x, index_t, plan::PartialWord* e) { segment(&x, nullptr, 1, e); }
};

template <class T> struct MeanAcc {
  using value_type = T;
  static constexpr int words = 1;
  static void segment(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    e->f += pairwise_sum([x](index_t j) { return static_cast<double>(x[j]); }, 0, n);
  }
  static void element(T x, index_t, plan::PartialWord* e) { e->f += static_cast<double>(x); }
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
};

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
      if (detail::arg_better<Max>(best, at, v, index[j])) {
        best = v;
        at = index[j];
      }
    }
    store(e[0], best);
    e[1].i = at;
  }
  static void element(T x, index_t index, plan::PartialWord* e) { segment(&x, &index, 1, e); }
};

} // namespace chunked::cpu
