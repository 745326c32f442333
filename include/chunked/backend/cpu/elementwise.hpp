// SPDX-License-Identifier: Apache-2.0
// Scalar semantics of every elementwise OpCode for each element type, as the CPU backend runs them.
#pragma once

#include <chunked/backend/common/scalar_ops.hpp>
#include <chunked/core/dtype.hpp>
#include <chunked/plan/block_program.hpp>
#include <chunked/plan/op_types.hpp>

/// @file
/// The CPU backend's names for the shared per-element semantics of
/// chunked/backend/common/scalar_ops.hpp (one definition for the CPU and CUDA backends): one
/// function per operation, templated on the element type, inlined into the tile loops so that
/// they compile to branch-free, vectorisable code. Integer arithmetic wraps, out-of-range
/// float-to-integer casts give the type's minimum, mod follows Python, minimum/maximum propagate
/// NaN.

namespace chunked::cpu {

using scalar::cast_value;

using scalar::wrap_add;
using scalar::wrap_mul;
using scalar::wrap_sub;

using scalar::op_abs;
using scalar::op_add;
using scalar::op_bit_and;
using scalar::op_bit_not;
using scalar::op_bit_or;
using scalar::op_bit_xor;
using scalar::op_isfinite;
using scalar::op_isnan;
using scalar::op_maximum;
using scalar::op_minimum;
using scalar::op_mod;
using scalar::op_mul;
using scalar::op_neg;
using scalar::op_pow;
using scalar::op_sub;

using plan::op_accepts;
using plan::op_result_dtype;

} // namespace chunked::cpu
