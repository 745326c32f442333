// SPDX-License-Identifier: Apache-2.0
// Device accumulators for reduction partial states, in plan/partial.hpp's word layout.
#pragma once

// For nvcc and NVRTC only. Each accumulator mirrors the CPU's (backend/cpu/partials.cpp and
// tile_reduce.hpp): the same identities, element folding and pairwise combining, so a partial
// made on the GPU combines with the same rules as one made on the CPU.
#include "chunked/backend/cuda/kernel/elementwise.hpp"

namespace chunked::cuda::kernel {

CHUNKED_KD double word_f(const i64* w) { return __longlong_as_double(*w); }
CHUNKED_KD void put_f(i64* w, double v) { *w = __double_as_longlong(v); }
CHUNKED_KD double nan_min(double a, double b) { return (a < b || a != a) ? a : b; }
CHUNKED_KD double nan_max(double a, double b) { return (a > b || a != a) ? a : b; }
CHUNKED_KD double inf_f() { return __longlong_as_double(0x7ff0000000000000ll); }

/// A value as a partial word holds it: double for floating inputs, else int64.
template <class V> CHUNKED_KD V load_v(const i64* w) {
  if constexpr (is_same<V, double>::value)
    return word_f(w);
  else
    return *w;
}
template <class V> CHUNKED_KD void store_v(i64* w, V v) {
  if constexpr (is_same<V, double>::value)
    put_f(w, v);
  else
    *w = v;
}

template <class V> struct SumAcc {
  static constexpr int words = 1;
  V s;
  static CHUNKED_KD SumAcc identity() { return {V(0)}; }
  template <class T> CHUNKED_KD void add(T x, i64) {
    if constexpr (is_same<V, double>::value)
      s += static_cast<double>(x);
    else
      s = wrap_add(s, static_cast<i64>(x));
  }
  CHUNKED_KD void merge(const SumAcc& b) {
    if constexpr (is_same<V, double>::value)
      s = s + b.s;
    else
      s = wrap_add(s, b.s);
  }
  static CHUNKED_KD SumAcc load(const i64* w) { return {load_v<V>(w)}; }
  CHUNKED_KD void store(i64* w) const { store_v<V>(w, s); }
};

template <class V> struct ProdAcc {
  static constexpr int words = 1;
  V s;
  static CHUNKED_KD ProdAcc identity() { return {V(1)}; }
  template <class T> CHUNKED_KD void add(T x, i64) {
    if constexpr (is_same<V, double>::value)
      s *= static_cast<double>(x);
    else
      s = wrap_mul(s, static_cast<i64>(x));
  }
  CHUNKED_KD void merge(const ProdAcc& b) {
    if constexpr (is_same<V, double>::value)
      s = s * b.s;
    else
      s = wrap_mul(s, b.s);
  }
  static CHUNKED_KD ProdAcc load(const i64* w) { return {load_v<V>(w)}; }
  CHUNKED_KD void store(i64* w) const { store_v<V>(w, s); }
};

template <class V, bool Max> struct MinMaxAcc {
  static constexpr int words = 1;
  V s;
  static CHUNKED_KD MinMaxAcc identity() {
    if constexpr (is_same<V, double>::value)
      return {Max ? -inf_f() : inf_f()};
    else
      return {Max ? int_limits<i64>::min : int_limits<i64>::max};
  }
  CHUNKED_KD void fold(V v) {
    if constexpr (is_same<V, double>::value)
      s = Max ? nan_max(s, v) : nan_min(s, v);
    else
      s = Max ? (v > s ? v : s) : (v < s ? v : s);
  }
  template <class T> CHUNKED_KD void add(T x, i64) { fold(static_cast<V>(x)); }
  CHUNKED_KD void merge(const MinMaxAcc& b) { fold(b.s); }
  static CHUNKED_KD MinMaxAcc load(const i64* w) { return {load_v<V>(w)}; }
  CHUNKED_KD void store(i64* w) const { store_v<V>(w, s); }
};

template <bool All> struct AnyAllAcc {
  static constexpr int words = 1;
  i64 s;
  static CHUNKED_KD AnyAllAcc identity() { return {All ? 1 : 0}; }
  template <class T> CHUNKED_KD void add(T x, i64) {
    const bool v = x != T(0);
    s = All ? (s != 0 && v) : (s != 0 || v);
  }
  CHUNKED_KD void merge(const AnyAllAcc& b) { s = All ? ((s & b.s) != 0) : ((s | b.s) != 0); }
  static CHUNKED_KD AnyAllAcc load(const i64* w) { return {*w}; }
  CHUNKED_KD void store(i64* w) const { *w = s; }
};

/// var/std: (count, mean, M2), merged by Chan et al.'s formula exactly as the CPU merges.
struct MomentsAcc {
  static constexpr int words = 3;
  double n, mean, m2;
  static CHUNKED_KD MomentsAcc identity() { return {0.0, 0.0, 0.0}; }
  CHUNKED_KD void merge3(double nb, double mb, double m2b) {
    const double na = n;
    if (nb == 0)
      return;
    if (na == 0) {
      n = nb;
      mean = mb;
      m2 = m2b;
      return;
    }
    const double total = na + nb;
    const double delta = mb - mean;
    mean += delta * (nb / total);
    m2 += m2b + delta * delta * (na * nb / total);
    n = total;
  }
  template <class T> CHUNKED_KD void add(T x, i64) { merge3(1.0, static_cast<double>(x), 0.0); }
  CHUNKED_KD void merge(const MomentsAcc& b) { merge3(b.n, b.mean, b.m2); }
  static CHUNKED_KD MomentsAcc load(const i64* w) {
    return {word_f(w), word_f(w + 1), word_f(w + 2)};
  }
  CHUNKED_KD void store(i64* w) const {
    put_f(w, n);
    put_f(w + 1, mean);
    put_f(w + 2, m2);
  }
};

/// argmin/argmax: NaN wins, then the better value, then the smaller index (NumPy's first
/// occurrence); the identity's index is INT64_MAX so any real element replaces it.
template <class V, bool Max> struct ArgAcc {
  static constexpr int words = 2;
  V v;
  i64 at;
  static CHUNKED_KD ArgAcc identity() {
    if constexpr (is_same<V, double>::value)
      return {Max ? -inf_f() : inf_f(), int_limits<i64>::max};
    else
      return {Max ? int_limits<i64>::min : int_limits<i64>::max, int_limits<i64>::max};
  }
  static CHUNKED_KD bool better(V va, i64 ia, V vb, i64 ib) {
    if constexpr (is_same<V, double>::value) {
      const bool na = va != va, nb = vb != vb;
      if (na || nb)
        return nb && (!na || ib < ia);
    }
    if constexpr (Max)
      return vb > va || (vb == va && ib < ia);
    else
      return vb < va || (vb == va && ib < ia);
  }
  CHUNKED_KD void fold(V vb, i64 ib) {
    if (better(v, at, vb, ib)) {
      v = vb;
      at = ib;
    }
  }
  template <class T> CHUNKED_KD void add(T x, i64 index) { fold(static_cast<V>(x), index); }
  CHUNKED_KD void merge(const ArgAcc& b) { fold(b.v, b.at); }
  static CHUNKED_KD ArgAcc load(const i64* w) { return {load_v<V>(w), w[1]}; }
  CHUNKED_KD void store(i64* w) const {
    store_v<V>(w, v);
    w[1] = at;
  }
};

} // namespace chunked::cuda::kernel
