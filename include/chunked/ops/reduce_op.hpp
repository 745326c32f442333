// SPDX-License-Identifier: Apache-2.0
// ops::ReduceOp, the reductions, and their one table: partial state, result dtype, empty input.
#pragma once

// The enums are compiled by NVRTC as well (generated kernels name their accumulator by its
// kind); the rules after them use the standard library and are for host code and nvcc.
#include "chunked/core/host_device.hpp"

#if !CHUNKED_RTC
#include <chunked/core/dtype.hpp>

#include <string>
#include <string_view>
#include <type_traits>
#endif

/// @file
/// `CHUNKED_REDUCE_OPS(X)` calls `X(name, accumulator, state, result, finalize, needs_elements)`
/// once per reduction:
///
/// - `name`: the ops::ReduceOp enumerator and the text ops::reduce_op_name gives.
/// - `accumulator`: the kind of partial state (ops::Accumulator): how elements fold into it, how
///   two states combine and how many eight-byte words it has. Reductions of one kind share their
///   partials: var and std keep (count, mean, M2) and differ only when finalized.
/// - `state`: what the state's value word holds: `input` (double for floating inputs, else
///   int64; bool inputs fold as 0/1), `float64` or `int64`.
/// - `result`: the output dtype: `same` as the input, `boolean`, `index` (int64), `accumulate`
///   (floating inputs keep their dtype, integers and bools give int64), `average` (floating inputs
///   keep their dtype, others give float64).
/// - `finalize`: how a combined state becomes the result: its `value` word cast to the result
///   dtype, the `mean` (sum / count, or the mean word of moments), the `variance` of moments or
///   their standard `deviation`, the `index` word, or for exact states the `rounded` sum
///   (correctly rounded to the result dtype) or the `rounded_mean` (that sum as a double, divided
///   by the count).
/// - `needs_elements`: whether reducing zero elements is an error (NumPy raises for these).
///
/// Every backend derives its accumulator types from the `accumulator` column through
/// ops::visit_accumulator, and its last step from the `finalize` column: nothing else switches on
/// ReduceOp to pick them.
#define CHUNKED_REDUCE_OPS(X)                                                                      \
  X(sum, sum, input, accumulate, value, false)                                                     \
  X(prod, prod, input, accumulate, value, false)                                                   \
  X(min, min, input, same, value, true)                                                            \
  X(max, max, input, same, value, true)                                                            \
  X(any, any, int64, boolean, value, false)                                                        \
  X(all, all, int64, boolean, value, false)                                                        \
  X(mean, mean, float64, average, mean, false)                                                     \
  X(var, moments, float64, average, variance, false)                                               \
  X(std, moments, float64, average, deviation, false)                                              \
  X(argmin, argmin, input, index, index, true)                                                     \
  X(argmax, argmax, input, index, index, true)                                                     \
  X(exact_sum, exact, int64, accumulate, rounded, false)                                           \
  X(exact_mean, exact, int64, average, rounded_mean, false)

namespace chunked::ops {

/// A reduction: one enumerator per row of CHUNKED_REDUCE_OPS, in its order.
enum class ReduceOp : unsigned char {
#define CHUNKED_REDUCE_ENUMERATOR(name, ...) name,
  CHUNKED_REDUCE_OPS(CHUNKED_REDUCE_ENUMERATOR)
#undef CHUNKED_REDUCE_ENUMERATOR
};

/// The kinds of partial state, `X(kind, words)`: each entry of a state has `words` eight-byte
/// words (plan/partial.hpp lays them out):
///   sum, prod, min, max : the value (double or int64 as the reduction's `state` says)
///   any, all            : int64 0 or 1
///   mean                : the double sum (the count is known from shapes at finalize)
///   moments             : double count, mean and M2 (Chan et al. merging)
///   argmin, argmax      : the value and the int64 index
///   exact               : the exact sum of floating values (backend/common/exact_sum.hpp), for
///                         ComputeOptions::exact_sums: flags, a window of three double bins and
///                         68 digits of 32 bits, 75 words
#define CHUNKED_ACCUMULATORS(X)                                                                    \
  X(sum, 1)                                                                                        \
  X(prod, 1)                                                                                       \
  X(min, 1)                                                                                        \
  X(max, 1)                                                                                        \
  X(any, 1)                                                                                        \
  X(all, 1)                                                                                        \
  X(mean, 1)                                                                                       \
  X(moments, 3)                                                                                    \
  X(argmin, 2)                                                                                     \
  X(argmax, 2)                                                                                     \
  X(exact, 75)

/// A kind of partial state: one enumerator per entry of CHUNKED_ACCUMULATORS.
enum class Accumulator : unsigned char {
#define CHUNKED_ACCUMULATOR_ENUMERATOR(kind, words) kind,
  CHUNKED_ACCUMULATORS(CHUNKED_ACCUMULATOR_ENUMERATOR)
#undef CHUNKED_ACCUMULATOR_ENUMERATOR
};

#if !CHUNKED_RTC

/// What a state's value word holds, the output dtype rule and the last step (CHUNKED_REDUCE_OPS).
enum class StateType : unsigned char { input, float64, int64 };
enum class ReduceResult : unsigned char { same, boolean, index, accumulate, average };
enum class Finalize : unsigned char {
  value,
  mean,
  variance,
  deviation,
  index,
  rounded,
  rounded_mean
};

/// One row of the table.
struct ReduceInfo {
  std::string_view name;
  Accumulator accumulator;
  StateType state;
  ReduceResult result;
  Finalize finalize;
  bool needs_elements;
};

inline constexpr ReduceInfo reduce_table[] = {
#define CHUNKED_REDUCE_INFO(name, accumulator, state, result, finalize, needs)                     \
  {#name, Accumulator::accumulator, StateType::state, ReduceResult::result, Finalize::finalize,    \
   needs},
    CHUNKED_REDUCE_OPS(CHUNKED_REDUCE_INFO)
#undef CHUNKED_REDUCE_INFO
};

/// Number of reductions; ReduceOp values run from 0 to num_reduce_ops - 1.
inline constexpr int num_reduce_ops =
    static_cast<int>(sizeof(reduce_table) / sizeof(reduce_table[0]));

constexpr bool is_reduce_op(ReduceOp op) { return static_cast<int>(op) < num_reduce_ops; }

/// The table row of `op`; an unknown value gets a row named "unknown_reduce".
constexpr ReduceInfo reduce_info(ReduceOp op) {
  return is_reduce_op(op) ? reduce_table[static_cast<int>(op)]
                          : ReduceInfo{"unknown_reduce",   Accumulator::sum, StateType::input,
                                       ReduceResult::same, Finalize::value,  false};
}

constexpr std::string_view reduce_op_name(ReduceOp op) { return reduce_info(op).name; }
constexpr Accumulator reduce_accumulator(ReduceOp op) { return reduce_info(op).accumulator; }
constexpr Finalize reduce_finalize(ReduceOp op) { return reduce_info(op).finalize; }

/// The kind's name: "sum", "moments", ... (generated kernels spell Accumulator::<name>).
constexpr std::string_view accumulator_name(Accumulator a) {
  switch (a) {
#define CHUNKED_ACCUMULATOR_NAME(kind, words)                                                      \
  case Accumulator::kind:                                                                          \
    return #kind;
    CHUNKED_ACCUMULATORS(CHUNKED_ACCUMULATOR_NAME)
#undef CHUNKED_ACCUMULATOR_NAME
  }
  return "unknown_accumulator";
}

/// Eight-byte words of one entry of a partial state of kind `a`.
constexpr int accumulator_words(Accumulator a) {
  constexpr int words[] = {
#define CHUNKED_ACCUMULATOR_WORDS(kind, words) words,
      CHUNKED_ACCUMULATORS(CHUNKED_ACCUMULATOR_WORDS)
#undef CHUNKED_ACCUMULATOR_WORDS
  };
  return words[static_cast<int>(a)];
}

/// Whether the first word of `op`'s state over `input` values is a double (else an int64).
constexpr bool reduce_state_floating(ReduceOp op, DType input) {
  switch (reduce_info(op).state) {
  case StateType::float64:
    return true;
  case StateType::int64:
    return false;
  default:
    return is_floating(input);
  }
}

/// Output dtype of a reduction (DESIGN section 2): integer and bool sums and products accumulate
/// and return int64; mean, var and std of integers are double; argmin and argmax return int64.
constexpr DType reduce_result_dtype(ReduceOp op, DType input) {
  switch (reduce_info(op).result) {
  case ReduceResult::same:
    return input;
  case ReduceResult::boolean:
    return DType::bool_;
  case ReduceResult::index:
    return DType::int64;
  case ReduceResult::accumulate:
    return is_floating(input) ? input : DType::int64;
  default:
    return is_floating(input) ? input : DType::float64;
  }
}

/// True when reducing zero elements has no meaningful result (NumPy raises for these).
constexpr bool reduce_needs_elements(ReduceOp op) { return reduce_info(op).needs_elements; }

/// Calls `f(std::integral_constant<Accumulator, A>{})` with the accumulator kind of `op`: the one
/// run-time choice of an accumulator, from which each backend names its own type. ValueError for
/// a value that is no reduction.
template <class F> decltype(auto) visit_accumulator(ReduceOp op, F&& f) {
  if (!is_reduce_op(op))
    throw ValueError("unknown reduce op " + std::to_string(static_cast<int>(op)));
  switch (reduce_accumulator(op)) {
#define CHUNKED_VISIT_ACCUMULATOR(kind, words)                                                     \
  case Accumulator::kind:                                                                          \
    return f(std::integral_constant<Accumulator, Accumulator::kind>{});
    CHUNKED_ACCUMULATORS(CHUNKED_VISIT_ACCUMULATOR)
#undef CHUNKED_VISIT_ACCUMULATOR
  }
  throw ValueError("unknown accumulator kind");
}

#endif // !CHUNKED_RTC

} // namespace chunked::ops
