// SPDX-License-Identifier: Apache-2.0
// The elementwise operations of chunked, one row each: the list every layer derives from.
#pragma once

// No includes: NVRTC compiles this header too.

/// @file
/// `CHUNKED_ELEMENTWISE_OPS(X)` calls `X(name, arity, domain, result, cost)` once per operation:
///
/// - `name`: the ops::OpCode enumerator, the text ops::op_name gives, and the scalar function
///   `scalar::op_<name>` (chunked/ops/scalar.hpp) that defines what the operation computes: the
///   CPU loops call it and generated CUDA kernels spell it.
/// - `arity`: 1, 2 or 3 operands of one dtype (`where`: a bool condition, then two values).
/// - `domain`: the operand dtypes it takes: `any`; `numeric` (not bool); `integral` (bool and
///   integers); `floating` (float32, float64; the public functions compute integer and bool
///   operands in float64).
/// - `result`: `same` (the operands' dtype), `boolean`, or `target` (cast: the instruction's own).
/// - `cost`: `plain` (a few instructions; vector loops gain), `slow` (a slow path on the GPU, such
///   as IEEE division), `library` (the C library's routine on the host, CUDA's on the device, for
///   floating operands: both backends keep such calls out of their wide and batched forms).
///
/// Adding an operation: one row here (new rows go last, so the numbers of the others stay), its
/// `scalar::op_<name>`, its public function and its tests; nothing else names operations one by
/// one. Within the macro, comments must be block comments.
#define CHUNKED_ELEMENTWISE_OPS(X)                                                                 \
  X(cast, 1, any, target, plain)                                                                   \
  X(neg, 1, numeric, same, plain)                                                                  \
  X(abs, 1, any, same, plain)                                                                      \
  X(sqrt, 1, floating, same, slow)                                                                 \
  X(exp, 1, floating, same, library)                                                               \
  X(log, 1, floating, same, library)                                                               \
  X(log1p, 1, floating, same, library)                                                             \
  X(expm1, 1, floating, same, library)                                                             \
  X(sin, 1, floating, same, library)                                                               \
  X(cos, 1, floating, same, library)                                                               \
  X(tan, 1, floating, same, library)                                                               \
  X(tanh, 1, floating, same, library)                                                              \
  X(isnan, 1, any, boolean, plain)                                                                 \
  X(isfinite, 1, any, boolean, plain)                                                              \
  X(bit_not, 1, integral, same, plain)                                                             \
  X(add, 2, any, same, plain)                                                                      \
  X(sub, 2, numeric, same, plain)                                                                  \
  X(mul, 2, any, same, plain)                                                                      \
  X(div, 2, floating, same, slow)                                                                  \
  X(mod, 2, numeric, same, slow)                                                                   \
  X(pow, 2, numeric, same, library)                                                                \
  X(minimum, 2, any, same, plain)                                                                  \
  X(maximum, 2, any, same, plain)                                                                  \
  X(eq, 2, any, boolean, plain)                                                                    \
  X(ne, 2, any, boolean, plain)                                                                    \
  X(lt, 2, any, boolean, plain)                                                                    \
  X(le, 2, any, boolean, plain)                                                                    \
  X(gt, 2, any, boolean, plain)                                                                    \
  X(ge, 2, any, boolean, plain)                                                                    \
  X(bit_and, 2, integral, same, plain)                                                             \
  X(bit_or, 2, integral, same, plain)                                                              \
  X(bit_xor, 2, integral, same, plain)                                                             \
  X(where, 3, any, same, plain)                                                                    \
  X(floor, 1, floating, same, plain)                                                               \
  X(ceil, 1, floating, same, plain)                                                                \
  X(trunc, 1, floating, same, plain)                                                               \
  X(round, 1, numeric, same, plain)                                                                \
  X(sign, 1, numeric, same, plain)                                                                 \
  X(square, 1, numeric, same, plain)                                                               \
  X(reciprocal, 1, numeric, same, slow)                                                            \
  X(log2, 1, floating, same, library)                                                              \
  X(log10, 1, floating, same, library)                                                             \
  X(exp2, 1, floating, same, library)                                                              \
  X(arcsin, 1, floating, same, library)                                                            \
  X(arccos, 1, floating, same, library)                                                            \
  X(arctan, 1, floating, same, library)                                                            \
  X(sinh, 1, floating, same, library)                                                              \
  X(cosh, 1, floating, same, library)                                                              \
  X(logical_not, 1, any, boolean, plain)                                                           \
  X(isinf, 1, any, boolean, plain)                                                                 \
  X(signbit, 1, any, boolean, plain)                                                               \
  X(arctan2, 2, floating, same, library)                                                           \
  X(hypot, 2, floating, same, library)                                                             \
  X(fmod, 2, numeric, same, slow)                                                                  \
  X(copysign, 2, floating, same, plain)                                                            \
  X(logical_and, 2, any, boolean, plain)                                                           \
  X(logical_or, 2, any, boolean, plain)                                                            \
  X(logical_xor, 2, any, boolean, plain)
