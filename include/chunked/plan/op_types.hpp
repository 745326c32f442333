// SPDX-License-Identifier: Apache-2.0
// Which dtypes each elementwise OpCode accepts and what it returns: checked when a graph node is
// made and relied on by every backend.
#pragma once

#include <chunked/core/dtype.hpp>
#include <chunked/plan/block_program.hpp>

namespace chunked::plan {

/// True division and the floating math functions (sqrt, exp, log, log1p, expm1, sin, cos, tan,
/// tanh): defined for floating operands only, and computed by routines with a slow path rather
/// than by one instruction.
constexpr bool is_float_function(plan::OpCode op) {
  using plan::OpCode;
  switch (op) {
  case OpCode::div:
  case OpCode::sqrt:
  case OpCode::exp:
  case OpCode::log:
  case OpCode::log1p:
  case OpCode::expm1:
  case OpCode::sin:
  case OpCode::cos:
  case OpCode::tan:
  case OpCode::tanh:
    return true;
  default:
    return false;
  }
}

/// Which operand dtypes an OpCode accepts (the dtype of its first operand, or of the value for
/// `where`'s second and third operands). `cast` accepts every dtype.
constexpr bool op_accepts(plan::OpCode op, DType t) {
  using plan::OpCode;
  if (is_float_function(op))
    return is_floating(t);
  switch (op) {
  case OpCode::cast:
  case OpCode::isnan:
  case OpCode::isfinite:
  case OpCode::abs:
  case OpCode::minimum:
  case OpCode::maximum:
  case OpCode::eq:
  case OpCode::ne:
  case OpCode::lt:
  case OpCode::le:
  case OpCode::gt:
  case OpCode::ge:
  case OpCode::where:
  case OpCode::add:
  case OpCode::mul:
    return true;
  case OpCode::neg:
  case OpCode::sub:
  case OpCode::mod:
  case OpCode::pow:
    return t != DType::bool_;
  case OpCode::bit_not:
  case OpCode::bit_and:
  case OpCode::bit_or:
  case OpCode::bit_xor:
    return !is_floating(t);
  default:
    break; // the floating functions, answered above
  }
  return false;
}

/// Result dtype of an OpCode applied to operands of dtype `t` (for `cast`: whatever it names).
constexpr DType op_result_dtype(plan::OpCode op, DType t) {
  using plan::OpCode;
  switch (op) {
  case OpCode::isnan:
  case OpCode::isfinite:
  case OpCode::eq:
  case OpCode::ne:
  case OpCode::lt:
  case OpCode::le:
  case OpCode::gt:
  case OpCode::ge:
    return DType::bool_;
  default:
    return t;
  }
}

} // namespace chunked::plan
