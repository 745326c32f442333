// SPDX-License-Identifier: Apache-2.0
// CPU implementations of reduction partial states: identities, pairwise combining, finalizing.
#pragma once

#include "backend/common/partial_ops.hpp"
#include "plan/partial.hpp"
#include <chunked/core/dtype.hpp>
#include <chunked/core/types.hpp>

/// @file
/// The word layout of every partial state is plan::partial_layout. The identities written by
/// init_partials are:
///   sum, mean: 0        prod: 1        any: 0        all: 1        var, std: (0, 0, 0)
///   min: +inf (floating) / INT64_MAX     max: -inf / INT64_MIN
///   argmin: (+inf / INT64_MAX, index INT64_MAX)   argmax: (-inf / INT64_MIN, index INT64_MAX)
/// The argmin/argmax identity index is the largest int64, so the ordinary "smaller index wins
/// ties" rule lets any real element replace it, with no special case for an empty state.
/// The per-entry rules (identities, combining, finalizing) are
/// backend/common/partial_ops.hpp, shared with the CUDA backend; these functions lay them
/// over PartialWord arrays.

namespace chunked::cpu {

/// Writes the identity of `op` over inputs of dtype `input` into entries [0, n) of `out`
/// (n * partial_layout(op, input).words words).
void init_partials(plan::ReduceOp op, DType input, plan::PartialWord* out, index_t n);

/// out[p] = a[p] (+) b[p] for entries p < n, where `a` holds the earlier blocks. `out` may alias
/// `a` or `b`. Combining is exact for integer states and deterministic for floating ones.
void combine_partials(plan::ReduceOp op, DType input, const plan::PartialWord* a,
                      const plan::PartialWord* b, plan::PartialWord* out, index_t n);

/// Turns n combined entries of `op` into n values of reduce_result_dtype(result, input), written
/// to `out`; `result` is `op`, or mean/var/std from var/std partials (plan::can_finalize, else
/// ValueError). `count` is the number of input elements reduced into each entry (mean of a sum
/// divides by it); var/std divide M2 by max(count - ddof, 0) using the count held in each state,
/// so that 0/0 is NaN and x/0 is inf, as NumPy; a mean from moments is the state's mean (NaN for
/// no element). argmin/argmax write the index word.
void finalize_partials(plan::ReduceOp op, plan::ReduceOp result, DType input,
                       const plan::PartialWord* partials, index_t n, index_t count, index_t ddof,
                       void* out);

namespace detail {

/// Chan et al.'s merge of (count, mean, M2) states: `a` (earlier) absorbs (nb, mb, m2b).
CHUNKED_FORCEINLINE void merge_moments(plan::PartialWord* a, double nb, double mb, double m2b) {
  scalar::merge_moments(a[0].f, a[1].f, a[2].f, nb, mb, m2b);
}

using scalar::arg_better;

/// NaN-propagating min/max of doubles, shared by tile reductions and combines.
CHUNKED_FORCEINLINE constexpr double nan_min(double a, double b) {
  return scalar::combine_min(a, b);
}
CHUNKED_FORCEINLINE constexpr double nan_max(double a, double b) {
  return scalar::combine_max(a, b);
}

} // namespace detail

} // namespace chunked::cpu
