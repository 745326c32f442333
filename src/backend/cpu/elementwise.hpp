// SPDX-License-Identifier: Apache-2.0
// Scalar semantics of every elementwise OpCode for each element type, as the CPU backend runs them.
#pragma once

#include "plan/block_program.hpp"
#include "plan/op_types.hpp"
#include <chunked/core/dtype.hpp>
#include <chunked/ops/scalar.hpp>

/// @file
/// The CPU backend's names for the shared per-element semantics of chunked/ops/scalar.hpp (one
/// definition for the CPU and CUDA backends), one for each row of the operation table: one
/// function per operation, templated on the element type, inlined into the tile loops so that
/// they compile to branch-free, vectorisable code. Integer arithmetic wraps, out-of-range
/// float-to-integer casts give the type's minimum, mod follows Python, minimum/maximum propagate
/// NaN.

namespace chunked::cpu {

using scalar::cast_value;

using scalar::wrap_add;
using scalar::wrap_mul;
using scalar::wrap_sub;

#define CHUNKED_CPU_USING_OP(name, ...) using scalar::op_##name;
CHUNKED_ELEMENTWISE_OPS(CHUNKED_CPU_USING_OP)
#undef CHUNKED_CPU_USING_OP

using plan::op_accepts;
using plan::op_result_dtype;

} // namespace chunked::cpu
