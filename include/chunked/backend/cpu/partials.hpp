// SPDX-License-Identifier: Apache-2.0
// CPU implementations of reduction partial states: identities, pairwise combining, finalizing.
#pragma once

#include <chunked/core/dtype.hpp>
#include <chunked/core/types.hpp>
#include <chunked/plan/partial.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

/// @file
/// The word layout of every partial state is plan::partial_layout. The identities written by
/// init_partials are:
///   sum, mean: 0        prod: 1        any: 0        all: 1        var, std: (0, 0, 0)
///   min: +inf (floating) / INT64_MAX     max: -inf / INT64_MIN
///   argmin: (+inf / INT64_MAX, index INT64_MAX)   argmax: (-inf / INT64_MIN, index INT64_MAX)
/// The argmin/argmax identity index is the largest int64, so the ordinary "smaller index wins
/// ties" rule lets any real element replace it, with no special case for an empty state.

namespace chunked::cpu {

/// Writes the identity of `op` over inputs of dtype `input` into entries [0, n) of `out`
/// (n * partial_layout(op, input).words words).
void init_partials(plan::ReduceOp op, DType input, plan::PartialWord* out, index_t n);

/// out[p] = a[p] (+) b[p] for entries p < n, where `a` holds the earlier blocks. `out` may alias
/// `a` or `b`. Combining is exact for integer states and deterministic for floating ones.
void combine_partials(plan::ReduceOp op, DType input, const plan::PartialWord* a,
                      const plan::PartialWord* b, plan::PartialWord* out, index_t n);

/// Turns n combined entries into n values of reduce_result_dtype(op, input), written to `out`.
/// `count` is the number of input elements reduced into each entry (mean divides by it);
/// var/std divide M2 by max(count - ddof, 0) using the count held in each state, so that 0/0 is
/// NaN and x/0 is inf, as NumPy. argmin/argmax write the index word.
void finalize_partials(plan::ReduceOp op, DType input, const plan::PartialWord* partials, index_t n,
                       index_t count, index_t ddof, void* out);

namespace detail {

/// Chan et al.'s merge of (count, mean, M2) states: `a` (earlier) absorbs (nb, mb, m2b).
inline void merge_moments(plan::PartialWord* a, double nb, double mb, double m2b) {
  const double na = a[0].f;
  if (nb == 0)
    return;
  if (na == 0) {
    a[0].f = nb;
    a[1].f = mb;
    a[2].f = m2b;
    return;
  }
  const double n = na + nb;
  const double delta = mb - a[1].f;
  a[1].f += delta * (nb / n);
  a[2].f += m2b + delta * delta * (na * nb / n);
  a[0].f = n;
}

/// True when candidate (vb, ib) should replace the current (va, ia) of an argmin (Max = false)
/// or argmax (Max = true): NaN wins, then the better value, then the smaller index.
template <bool Max, class V> inline bool arg_better(V va, std::int64_t ia, V vb, std::int64_t ib) {
  if constexpr (std::is_floating_point_v<V>) {
    const bool na = va != va, nb = vb != vb;
    if (na || nb)
      return nb && (!na || ib < ia);
  }
  if constexpr (Max)
    return vb > va || (vb == va && ib < ia);
  else
    return vb < va || (vb == va && ib < ia);
}

/// NaN-propagating min/max of doubles, shared by tile reductions and combines.
inline double nan_min(double a, double b) { return (a < b || a != a) ? a : b; }
inline double nan_max(double a, double b) { return (a > b || a != a) ? a : b; }

} // namespace detail

} // namespace chunked::cpu
