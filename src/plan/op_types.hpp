// SPDX-License-Identifier: Apache-2.0
// Transition names of the dtype rules of elementwise operations, which live in chunked/ops.
#pragma once

#include "plan/block_program.hpp"
#include <chunked/core/dtype.hpp>
#include <chunked/ops/op_code.hpp>

namespace chunked::plan {

using ops::op_accepts;
using ops::op_result_dtype;

/// Operations defined for floating operands only (true division and the floating math
/// functions): the table's `floating` domain.
constexpr bool is_float_function(OpCode op) { return ops::op_domain(op) == ops::Domain::floating; }

} // namespace chunked::plan
