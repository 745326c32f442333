// SPDX-License-Identifier: Apache-2.0
// Reduction partial states: their word layout, identities and result dtypes, shared by backends.
#pragma once

#include "plan/block_program.hpp"
#include <chunked/core/dtype.hpp>
#include <chunked/core/error.hpp>
#include <chunked/ops/reduce_op.hpp>

#include <cstdint>
#include <string>

namespace chunked::plan {

/// One eight-byte word of a partial state.
union PartialWord {
  double f;
  std::int64_t i;
};
static_assert(sizeof(PartialWord) == 8);

/// How a reduction's partial state is laid out for one output element: the words of its
/// accumulator kind (ops::Accumulator lists them) and whether its value word is a double (the
/// reduction's `state` column in ops/reduce_op.hpp; bool inputs accumulate as int64 0/1).
/// Entries are stored one after another: entry p occupies words [p * words, (p + 1) * words).
/// Identities (what an entry holds before any element): sum 0, prod 1, min +inf / INT64_MAX,
/// max -inf / INT64_MIN, any 0, all 1, mean 0, var/std (0, 0, 0), argmin (+inf / INT64_MAX,
/// index INT64_MAX), argmax (-inf / INT64_MIN, index INT64_MAX): with the largest possible index,
/// the smaller-index tie rule lets any real element replace an identity without a special case.
/// min/max propagate NaN; argmin/argmax prefer NaN, then the smaller index on ties (NumPy's
/// "first occurrence"). Combining is done in block order, left operand first, so results do not
/// depend on which worker finished first.
struct PartialLayout {
  int words = 1;
  bool floating = false; ///< first word is a double (else int64)
};

constexpr PartialLayout partial_layout(ReduceOp op, DType input) {
  return {ops::accumulator_words(ops::reduce_accumulator(op)),
          ops::reduce_state_floating(op, input)};
}

using ops::reduce_needs_elements;
using ops::reduce_result_dtype;

/// True when partials of `op` can be finalized into values of `result`: `result == op`, or
/// `mean`, `var` or `std` from the (count, mean, M2) partials of `var`/`std`.
constexpr bool can_finalize(ReduceOp op, ReduceOp result) {
  const bool moments = op == ReduceOp::var || op == ReduceOp::std;
  return result == op || (moments && (result == ReduceOp::mean || result == ReduceOp::var ||
                                      result == ReduceOp::std));
}

/// Throws ValueError unless can_finalize(op, result).
inline void check_finalize(ReduceOp op, ReduceOp result) {
  if (!can_finalize(op, result))
    throw ValueError("partials of " + std::string(reduce_op_name(op)) + " cannot finalize into " +
                     std::string(reduce_op_name(result)) +
                     "; expected the same reduction, or mean/var/std from var/std");
}

} // namespace chunked::plan
