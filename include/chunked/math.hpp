// SPDX-License-Identifier: Apache-2.0
// NumPy's rounding, sign, logical, inverse-trigonometric and hyperbolic functions and friends.
#pragma once

#include <chunked/ops.hpp>

/// @file
/// Each function is one row of the operation table (chunked/ops/elementwise_table.hpp), which
/// gives its result type: NumPy's, where chunked has it.
///
/// - Floating functions (floor, ceil, trunc, log2, log10, exp2, arcsin, arccos, arctan, sinh,
///   cosh, arctan2, hypot, copysign) keep float and double arrays' types and compute integer and
///   bool arrays in double. NumPy gives float16 for bools, which chunked lacks; NumPy 2.3 and
///   later keep integer and bool types for floor, ceil and trunc (NumPy 1.x and chunked: double).
/// - round, sign, square, reciprocal and fmod keep integer types and do not take bool arrays (a
///   ValueError naming the function; NumPy gives int8 or float16 for most of them): cast first.
/// - logical_and, logical_or, logical_xor, logical_not, isinf and signbit take every type and
///   give bool.
///
/// Binary functions take arrays or scalars on either side and promote them as the arithmetic
/// operators do (NumPy's table; NEP 50 for scalars).
///
/// @code
/// auto x = chunked::arange<double>(-2, 2, 0.5, 4);   // -2, -1.5, ..., 1.5
/// auto r = chunked::round(x);                        // -2, -2, -1, -0, 0, 0, 1, 2
/// auto h = chunked::hypot(x, 1.0);                   // sqrt(x * x + 1)
/// auto n = chunked::logical_not(chunked::isinf(1.0 / x)).all(); // false: 1 / 0 is inf
/// @endcode

namespace chunked {

/// Binary function `NAME` of the table, with arrays or scalars on either side.
#define CHUNKED_DEFINE_TABLE_BINARY(NAME)                                                          \
  template <class A, class B, class Bk>                                                            \
  auto NAME(const ChunkedArray<A, Bk>& a, const ChunkedArray<B, Bk>& b) {                          \
    return detail::apply<detail::op_class(ops::OpCode::NAME)>(ops::OpCode::NAME, a, b);            \
  }                                                                                                \
  template <class A, class Bk, class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0>         \
  auto NAME(const ChunkedArray<A, Bk>& a, S s) {                                                   \
    return detail::apply<detail::op_class(ops::OpCode::NAME)>(ops::OpCode::NAME, a, s);            \
  }                                                                                                \
  template <class A, class Bk, class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0>         \
  auto NAME(S s, const ChunkedArray<A, Bk>& a) {                                                   \
    return detail::apply<detail::op_class(ops::OpCode::NAME)>(ops::OpCode::NAME, s, a);            \
  }

// ---- Rounding and sign --------------------------------------------------------------------------

/// The largest whole number not above x (-0.0 stays -0.0; NaN and infinities stay).
template <class T, class B> auto floor(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::floor>(x);
}
/// The smallest whole number not below x.
template <class T, class B> auto ceil(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::ceil>(x);
}
/// x rounded toward zero.
template <class T, class B> auto trunc(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::trunc>(x);
}
/// x rounded to the nearest whole number, ties to even (NumPy's round with no decimals, and
/// rint): round(0.5) is 0, round(1.5) and round(2.5) are 2, round(-0.4) is -0.0. Integers are
/// returned as they are.
template <class T, class B> auto round(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::round>(x);
}
/// -1, 0 or 1 by the sign of x, in x's type; NaN gives NaN and -0.0 gives 0.0.
template <class T, class B> auto sign(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::sign>(x);
}

// ---- Powers
// ---------------------------------------------------------------------------------------

/// x * x in x's type; integers wrap around as in NumPy.
template <class T, class B> auto square(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::square>(x);
}
/// 1 / x in x's type. For integers that is 1 / x truncated: 1 and -1 are their own reciprocals,
/// other nonzero values give 0, and 0 gives the type's minimum (as NumPy on x86, which warns).
template <class T, class B> auto reciprocal(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::reciprocal>(x);
}
/// 2 to the power x.
template <class T, class B> auto exp2(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::exp2>(x);
}
/// Base-2 logarithm: -inf at 0, NaN below.
template <class T, class B> auto log2(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::log2>(x);
}
/// Base-10 logarithm: -inf at 0, NaN below.
template <class T, class B> auto log10(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::log10>(x);
}
/// sqrt(a * a + b * b), without overflow or underflow on the way; inf where either is infinite,
/// even if the other is NaN.
CHUNKED_DEFINE_TABLE_BINARY(hypot)

// ---- Trigonometric and hyperbolic ---------------------------------------------------------------

/// Inverse sine, in [-pi/2, pi/2]; NaN outside [-1, 1].
template <class T, class B> auto arcsin(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::arcsin>(x);
}
/// Inverse cosine, in [0, pi]; NaN outside [-1, 1].
template <class T, class B> auto arccos(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::arccos>(x);
}
/// Inverse tangent, in [-pi/2, pi/2].
template <class T, class B> auto arctan(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::arctan>(x);
}
/// The angle of the point (b, a) from the positive x axis, in [-pi, pi]: C's atan2(a, b), signed
/// zeros included (arctan2(0.0, -0.0) is pi).
CHUNKED_DEFINE_TABLE_BINARY(arctan2)
/// Hyperbolic sine and cosine.
template <class T, class B> auto sinh(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::sinh>(x);
}
template <class T, class B> auto cosh(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::cosh>(x);
}

// ---- Remainder and sign transfer
// ------------------------------------------------------------------

/// C's fmod: the remainder of a / b truncated toward zero, with the sign of a (where `%` takes
/// b's). Floats give NaN for b == 0; integers give 0 for b == 0, as NumPy (which warns).
CHUNKED_DEFINE_TABLE_BINARY(fmod)
/// The magnitude of a with the sign of b (of -0.0 and of NaN too).
CHUNKED_DEFINE_TABLE_BINARY(copysign)

// ---- Logical functions and predicates
// -------------------------------------------------------------

/// Truth of each operand (nonzero; NaN is true) combined: bool results, for every type.
CHUNKED_DEFINE_TABLE_BINARY(logical_and)
CHUNKED_DEFINE_TABLE_BINARY(logical_or)
CHUNKED_DEFINE_TABLE_BINARY(logical_xor)
/// x == 0, as bool (NaN is true, so logical_not(NaN) is false).
template <class T, class B> auto logical_not(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::logical_not>(x);
}
/// Whether x is +inf or -inf (never, for integers and bools).
template <class T, class B> auto isinf(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::isinf>(x);
}
/// Whether x's sign bit is set: true for -0.0 and for negative NaNs; for integers x < 0.
template <class T, class B> auto signbit(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::signbit>(x);
}

#undef CHUNKED_DEFINE_TABLE_BINARY

} // namespace chunked
