// SPDX-License-Identifier: Apache-2.0
// Reduction partial states: their word layout, identities and result dtypes, shared by backends.
#pragma once

#include <chunked/core/dtype.hpp>
#include <chunked/core/error.hpp>
#include <chunked/plan/block_program.hpp>

#include <cstdint>
#include <string>

namespace chunked::plan {

/// One eight-byte word of a partial state.
union PartialWord {
  double f;
  std::int64_t i;
};
static_assert(sizeof(PartialWord) == 8);

/// How a reduction's partial state is laid out for one output element:
///   sum, prod, min, max : 1 word, the accumulator: double when the input is floating, else int64
///                         (bool inputs accumulate as int64 0/1)
///   mean                : 1 word, the double sum (the count is known from shapes at finalize)
///   any, all            : 1 word, int64 0 or 1
///   var, std            : 3 words, double count, double mean, double M2 (Chan et al. merging)
///   argmin, argmax      : 2 words, the value (double when floating, else int64) and the int64
///   index
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
  switch (op) {
  case ReduceOp::mean:
    return {1, true};
  case ReduceOp::any:
  case ReduceOp::all:
    return {1, false};
  case ReduceOp::var:
  case ReduceOp::std:
    return {3, true};
  case ReduceOp::argmin:
  case ReduceOp::argmax:
    return {2, is_floating(input)};
  default:
    return {1, is_floating(input)};
  }
}

/// Output dtype of a reduction (DESIGN section 2): integer and bool sums/products accumulate and
/// return int64; mean/var/std of integers are double; argmin/argmax return int64.
constexpr DType reduce_result_dtype(ReduceOp op, DType input) {
  switch (op) {
  case ReduceOp::sum:
  case ReduceOp::prod:
    return is_floating(input) ? input : DType::int64;
  case ReduceOp::min:
  case ReduceOp::max:
    return input;
  case ReduceOp::any:
  case ReduceOp::all:
    return DType::bool_;
  case ReduceOp::mean:
  case ReduceOp::var:
  case ReduceOp::std:
    return is_floating(input) ? input : DType::float64;
  default:
    return DType::int64;
  }
}

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

/// True when reducing zero elements has no meaningful result (NumPy raises for these).
constexpr bool reduce_needs_elements(ReduceOp op) {
  return op == ReduceOp::min || op == ReduceOp::max || op == ReduceOp::argmin ||
         op == ReduceOp::argmax;
}

} // namespace chunked::plan
