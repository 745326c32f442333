// SPDX-License-Identifier: Apache-2.0
// Device accumulators for reduction partial states, in plan/partial.hpp's word layout.
#pragma once

// For nvcc and NVRTC only. Each accumulator applies the per-entry rules of
// backend/common/partial_ops.hpp, which the CPU's partials.cpp applies too: the same
// identities and pairwise combining, so a partial made on the GPU combines with the same rules as
// one made on the CPU. Element folding follows the CPU's tile_reduce.hpp.
#include "backend/common/exact_sum.hpp"
#include "backend/common/partial_ops.hpp"
#include "backend/cuda/kernel/elementwise.hpp"
#include "chunked/ops/reduce_op.hpp"

namespace chunked::cuda::kernel {

CHUNKED_KD double word_f(const i64* w) { return __longlong_as_double(*w); }
CHUNKED_KD void put_f(i64* w, double v) { *w = __double_as_longlong(v); }

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
  CHUNKED_KD void merge(const SumAcc& b) { s = scalar::combine_sum(s, b.s); }
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
  CHUNKED_KD void merge(const ProdAcc& b) { s = scalar::combine_prod(s, b.s); }
  static CHUNKED_KD ProdAcc load(const i64* w) { return {load_v<V>(w)}; }
  CHUNKED_KD void store(i64* w) const { store_v<V>(w, s); }
};

template <class V, bool Max> struct MinMaxAcc {
  static constexpr int words = 1;
  V s;
  static CHUNKED_KD MinMaxAcc identity() { return {scalar::extreme_identity<V, Max>()}; }
  CHUNKED_KD void fold(V v) { s = Max ? scalar::combine_max(s, v) : scalar::combine_min(s, v); }
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
  CHUNKED_KD void merge(const AnyAllAcc& b) {
    s = All ? scalar::combine_all(s, b.s) : scalar::combine_any(s, b.s);
  }
  static CHUNKED_KD AnyAllAcc load(const i64* w) { return {*w}; }
  CHUNKED_KD void store(i64* w) const { *w = s; }
};

/// var/std: (count, mean, M2), merged by Chan et al.'s formula exactly as the CPU merges.
struct MomentsAcc {
  static constexpr int words = 3;
  double n, mean, m2;
  static CHUNKED_KD MomentsAcc identity() { return {0.0, 0.0, 0.0}; }
  CHUNKED_KD void merge3(double nb, double mb, double m2b) {
    scalar::merge_moments(n, mean, m2, nb, mb, m2b);
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

/// Exact sums (backend/common/exact_sum.hpp): the whole entry, for kernels in which a thread
/// owns an entry (the partials kernels). Generated reductions fold through ExactFolder
/// (exact_fold.hpp) instead, with the digits in shared memory.
struct ExactAcc {
  static constexpr int words = scalar::exact::words;
  i64 w[words];
  static CHUNKED_KD ExactAcc identity() {
    ExactAcc a;
    scalar::exact::clear(a.w);
    return a;
  }
  template <class T> CHUNKED_KD void add(T x, i64) {
    scalar::exact::add(w, static_cast<double>(x));
  }
  CHUNKED_KD void merge(const ExactAcc& b) { scalar::exact::combine(w, b.w); }
  static CHUNKED_KD ExactAcc load(const i64* src) {
    ExactAcc a;
    for (int i = 0; i < words; ++i)
      a.w[i] = src[i];
    return a;
  }
  CHUNKED_KD void store(i64* dst) const {
    for (int i = 0; i < words; ++i)
      dst[i] = w[i];
  }
};

/// What one thread folds its elements into before its state joins the others': the accumulator
/// itself, except for moments (below).
template <class Acc> struct Folder {
  Acc acc;
  static CHUNKED_KD Folder start() { return {Acc::identity()}; }
  template <class T> CHUNKED_KD void add(T x, i64 index) { acc.add(x, index); }
  CHUNKED_KD Acc done() const { return acc; }
};

/// Moments fold runs of `run` elements as sums of their offsets from the run's first element,
/// then merge each run's (count, mean, M2) into the state: two additions and a multiply-add per
/// element instead of a division each. Shifting by an element of the run bounds the rounding of
/// the run's M2 = s2 - s1 * s1 / c to about (c + 1) ulp of itself, as that element's own
/// deviation is part of M2. A run holding an infinity or a NaN must leave its NumPy mean (+inf,
/// -inf or NaN: the sum of its non-finite elements) for scalar::merge_moments, which makes M2 NaN:
/// with an infinite shift every offset would be NaN, so a non-finite first element shifts by 0
/// instead, and the infinities then reach s1 with their signs (s1 / c is their sum's sign).
template <> struct Folder<MomentsAcc> {
  static constexpr int run = 32;
  MomentsAcc acc;
  double shift, s1, s2;
  int count;
  static CHUNKED_KD Folder start() { return {MomentsAcc::identity(), 0.0, 0.0, 0.0, 0}; }
  template <class T> CHUNKED_KD void add(T x, i64) {
    const double v = static_cast<double>(x);
    shift = count == 0 ? (scalar::op_isfinite(v) ? v : 0.0) : shift;
    const double d = v - shift;
    s1 += d;
    s2 = __fma_rn(d, d, s2);
    if (++count == run)
      flush();
  }
  CHUNKED_KD void flush() {
    if (count == 0)
      return;
    const double c = static_cast<double>(count);
    const double offset = s1 / c;
    const double m2 = s2 - s1 * offset;
    acc.merge3(c, shift + offset, m2 < 0.0 ? 0.0 : m2);
    count = 0;
    s1 = s2 = 0.0;
  }
  CHUNKED_KD MomentsAcc done() {
    flush();
    return acc;
  }
};

/// argmin/argmax: scalar::arg_better's order (NaN, then the better value, then the smaller
/// index); the identity's index is INT64_MAX so any real element replaces it.
template <class V, bool Max> struct ArgAcc {
  static constexpr int words = 2;
  V v;
  i64 at;
  static CHUNKED_KD ArgAcc identity() {
    return {scalar::extreme_identity<V, Max>(), scalar::arg_identity_index};
  }
  CHUNKED_KD void fold(V vb, i64 ib) {
    if (scalar::arg_better<Max>(v, at, vb, ib)) {
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

/// The device accumulator of each kind of partial state (ops::Accumulator), over states whose
/// value word is a double (Floating) or an int64 (ops::reduce_state_floating): the one mapping
/// from kinds to types, which partials.cu instantiates and generated kernels name.
template <ops::Accumulator A, bool Floating> struct accumulator_of;
template <bool Floating> struct state_value { using type = double; };
template <> struct state_value<false> { using type = i64; };
template <bool Floating> using state_value_t = typename state_value<Floating>::type;

template <bool F> struct accumulator_of<ops::Accumulator::sum, F> {
  using type = SumAcc<state_value_t<F>>;
};
template <bool F> struct accumulator_of<ops::Accumulator::prod, F> {
  using type = ProdAcc<state_value_t<F>>;
};
template <bool F> struct accumulator_of<ops::Accumulator::min, F> {
  using type = MinMaxAcc<state_value_t<F>, false>;
};
template <bool F> struct accumulator_of<ops::Accumulator::max, F> {
  using type = MinMaxAcc<state_value_t<F>, true>;
};
template <bool F> struct accumulator_of<ops::Accumulator::any, F> {
  using type = AnyAllAcc<false>;
};
template <bool F> struct accumulator_of<ops::Accumulator::all, F> { using type = AnyAllAcc<true>; };
template <bool F> struct accumulator_of<ops::Accumulator::mean, F> { using type = SumAcc<double>; };
template <bool F> struct accumulator_of<ops::Accumulator::moments, F> { using type = MomentsAcc; };
template <bool F> struct accumulator_of<ops::Accumulator::argmin, F> {
  using type = ArgAcc<state_value_t<F>, false>;
};
template <bool F> struct accumulator_of<ops::Accumulator::argmax, F> {
  using type = ArgAcc<state_value_t<F>, true>;
};
template <bool F> struct accumulator_of<ops::Accumulator::exact, F> { using type = ExactAcc; };

template <ops::Accumulator A, bool Floating>
using accumulator_t = typename accumulator_of<A, Floating>::type;

} // namespace chunked::cuda::kernel
