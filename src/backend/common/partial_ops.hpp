// SPDX-License-Identifier: Apache-2.0
// Per-entry rules of reduction partial states (identities, combining, finalizing), for both
// backends.
#pragma once

// Compiled by the host compiler, by nvcc and by NVRTC, like scalar_ops.hpp.
#include <chunked/ops/scalar.hpp>

/// @file
/// A partial state (plan::partial_layout) holds its values as double for floating inputs and as
/// int64 otherwise. These functions are the single definition of how one entry of a state starts,
/// absorbs another entry and becomes a result, so that a partial made on the CPU and one made on a
/// GPU combine by the same rules and finalize to the same values. The backends only differ in how
/// they lay the words out in memory and in how they loop over entries.
///
/// @code
/// using namespace chunked::scalar;
/// double n = 2, mean = 1.5, m2 = 0.5;             // the moments of {1, 2}
/// merge_moments(n, mean, m2, 1.0, 3.0, 0.0);      // absorb {3}: n 3, mean 2, m2 2
/// double v = variance_of(n, m2, 1);               // 1.0 (ddof 1)
/// @endcode

namespace chunked::scalar {

/// Identity of a min (Max = false) or max (Max = true) state of value type V (double or int64):
/// +inf / INT64_MAX for min, -inf / INT64_MIN for max. argmin/argmax use it with index INT64_MAX.
template <class V, bool Max> CHUNKED_HD CHUNKED_FORCEINLINE V extreme_identity() {
  if constexpr (is_float<V>::value)
    return Max ? -infinity() : infinity();
  else
    return Max ? int_limits<V>::min : int_limits<V>::max;
}

/// The index of an empty argmin/argmax state: larger than any real index, so the "smaller index
/// wins ties" rule lets any element replace it with no special case.
inline constexpr i64 arg_identity_index = int_limits<i64>::max;

/// Sum and product states: floating add/multiply, or wrapping int64 arithmetic.
template <class V> CHUNKED_SCALAR V combine_sum(V a, V b) {
  if constexpr (is_float<V>::value)
    return a + b;
  else
    return wrap_add(a, b);
}
template <class V> CHUNKED_SCALAR V combine_prod(V a, V b) {
  if constexpr (is_float<V>::value)
    return a * b;
  else
    return wrap_mul(a, b);
}

/// Min and max states: NaN-propagating for doubles, so a NaN anywhere makes the result NaN.
template <class V> CHUNKED_SCALAR V combine_min(V a, V b) { return op_minimum(a, b); }
template <class V> CHUNKED_SCALAR V combine_max(V a, V b) { return op_maximum(a, b); }

/// any/all states are int64 words holding 0 or 1.
CHUNKED_SCALAR i64 combine_any(i64 a, i64 b) { return (a | b) != 0; }
CHUNKED_SCALAR i64 combine_all(i64 a, i64 b) { return (a & b) != 0; }

/// True when candidate (vb, ib) should replace the current (va, ia) of an argmin (Max = false)
/// or argmax (Max = true): NaN wins, then the better value, then the smaller index (NumPy's first
/// occurrence).
template <bool Max, class V> CHUNKED_SCALAR bool arg_better(V va, i64 ia, V vb, i64 ib) {
  if constexpr (is_float<V>::value) {
    const bool na = va != va, nb = vb != vb;
    if (na || nb)
      return nb && (!na || ib < ia);
  }
  if constexpr (Max)
    return vb > va || (vb == va && ib < ia);
  else
    return vb < va || (vb == va && ib < ia);
}

/// Chan et al.'s merge of (count, mean, M2) states: (n, mean, m2), the earlier blocks, absorbs
/// (nb, mb, m2b). A single element x is the state (1, x, 0).
///
/// Data holding an infinity or a NaN get NumPy's two-pass results: the mean is the sum over the
/// count, so +inf or -inf where infinities of one sign meet finite values and NaN where both
/// signs or a NaN do; the variance is NaN (some x - mean is inf - inf or NaN), whatever the count
/// and ddof. Chan's update cannot carry this (its delta is inf - inf when an infinite mean meets
/// another), so a state whose mean is not finite is merged here instead: the means add (a finite
/// one does not move an infinite one) and M2 is NaN. Every partial state of both backends, and
/// every fast loop's fallback, goes through this merge, so every chunking agrees; finite states
/// take the branch not taken and keep their bits.
CHUNKED_HD CHUNKED_FORCEINLINE void merge_moments(double& n, double& mean, double& m2, double nb,
                                                  double mb, double m2b) {
  const double na = n;
  if (nb == 0)
    return;
  if (!(op_isfinite(mean) && op_isfinite(mb))) {
    mean = na == 0 ? mb : mean + mb;
    m2 = quiet_nan<double>();
    n = na + nb;
    return;
  }
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

/// Variance of a (count, mean, M2) state: M2 / max(count - ddof, 0), so 0/0 is NaN and x/0 is
/// inf, as NumPy.
CHUNKED_HD CHUNKED_FORCEINLINE double variance_of(double count, double m2, i64 ddof) {
  const double c = count - static_cast<double>(ddof);
  const double dof = c < 0.0 ? 0.0 : c; // std::max(c, 0.0)
  return m2 / dof;
}

/// Mean of a sum state over `count` elements.
CHUNKED_SCALAR double mean_of(double sum, i64 count) { return sum / static_cast<double>(count); }

/// Mean of a (count, mean, M2) state: its mean word, or NaN when it holds no element (as
/// mean_of's 0 / 0).
CHUNKED_HD CHUNKED_FORCEINLINE double moments_mean(double count, double mean) {
  return count == 0.0 ? quiet_nan<double>() : mean;
}

} // namespace chunked::scalar
