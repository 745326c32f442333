// SPDX-License-Identifier: Apache-2.0
// ops::OpCode, the elementwise operations, and what their table row says about each.
#pragma once

// The enum is compiled by NVRTC as well (scalar::apply names it); the rules after it use the
// standard library and are for host code and nvcc.
#include "chunked/core/host_device.hpp"
#include "chunked/ops/elementwise_table.hpp"

#if !CHUNKED_RTC
#include <chunked/core/dtype.hpp>

#include <string_view>
#endif

namespace chunked::ops {

/// An elementwise operation: one enumerator per row of CHUNKED_ELEMENTWISE_OPS, in its order.
/// Operands of an instruction share one dtype (the graph's users insert casts).
enum class OpCode : unsigned char {
#define CHUNKED_OPS_ENUMERATOR(name, ...) name,
  CHUNKED_ELEMENTWISE_OPS(CHUNKED_OPS_ENUMERATOR)
#undef CHUNKED_OPS_ENUMERATOR
};

#if !CHUNKED_RTC

/// The operand dtypes an operation takes (elementwise_table.hpp explains each).
enum class Domain : unsigned char { any, numeric, integral, floating };
/// The dtype of an operation's result.
enum class ResultRule : unsigned char { same, boolean, target };
/// What computing an operation costs (elementwise_table.hpp).
enum class Cost : unsigned char { plain, slow, library };

/// One row of the table.
struct OpInfo {
  std::string_view name;
  int arity;
  Domain domain;
  ResultRule result;
  Cost cost;
};

inline constexpr OpInfo op_table[] = {
#define CHUNKED_OPS_INFO(name, arity, domain, result, cost)                                        \
  {#name, arity, Domain::domain, ResultRule::result, Cost::cost},
    CHUNKED_ELEMENTWISE_OPS(CHUNKED_OPS_INFO)
#undef CHUNKED_OPS_INFO
};

/// Number of operations; OpCode values run from 0 to num_opcodes - 1.
inline constexpr int num_opcodes = static_cast<int>(sizeof(op_table) / sizeof(op_table[0]));

/// True when `op` is one of the table's operations (a value read from elsewhere may not be).
constexpr bool is_opcode(OpCode op) { return static_cast<int>(op) < num_opcodes; }

/// The table row of `op`; an unknown value gets a row of arity 0 that takes no dtype.
constexpr OpInfo op_info(OpCode op) {
  return is_opcode(op) ? op_table[static_cast<int>(op)]
                       : OpInfo{"unknown_op", 0, Domain::any, ResultRule::same, Cost::plain};
}

/// The operation's name, "add", "sqrt", ...: the public function's, or for an operator its word
/// (`+` is add); block programs print it and error messages name it.
constexpr std::string_view op_name(OpCode op) { return op_info(op).name; }
constexpr int op_arity(OpCode op) { return op_info(op).arity; }
constexpr Domain op_domain(OpCode op) { return op_info(op).domain; }
constexpr Cost op_cost(OpCode op) { return op_info(op).cost; }

/// Whether `op` takes operands of dtype `t` (of its first operand; of the values for `where`).
constexpr bool op_accepts(OpCode op, DType t) {
  if (!is_opcode(op))
    return false;
  switch (op_domain(op)) {
  case Domain::numeric:
    return t != DType::bool_;
  case Domain::integral:
    return !is_floating(t);
  case Domain::floating:
    return is_floating(t);
  default:
    return true;
  }
}

/// Result dtype of `op` on operands of dtype `t` (for `cast`, whatever its instruction names: `t`
/// here).
constexpr DType op_result_dtype(OpCode op, DType t) {
  return op_info(op).result == ResultRule::boolean ? DType::bool_ : t;
}

/// The dtype the public functions compute `op` in for operands of dtype `t`: float64 for integer
/// and bool operands of floating operations (as NumPy's sqrt or true division), else `t`.
constexpr DType op_compute_dtype(OpCode op, DType t) {
  return op_domain(op) == Domain::floating && !is_floating(t) ? DType::float64 : t;
}

/// Whether a loop of `op` on operands of dtype `operand` calls the math library's routine per
/// element: wider vector builds gain nothing there.
constexpr bool op_calls_library(OpCode op, DType operand) {
  return op_cost(op) == Cost::library && is_floating(operand);
}

/// Whether `op` has a slow path (a call or a long sequence) on the GPU, whatever the dtype.
constexpr bool op_has_slow_path(OpCode op) { return op_cost(op) != Cost::plain; }

#endif // !CHUNKED_RTC

} // namespace chunked::ops
