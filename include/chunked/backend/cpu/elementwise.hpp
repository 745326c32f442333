// SPDX-License-Identifier: Apache-2.0
// Scalar semantics of every elementwise OpCode for each element type, as the CPU backend runs them.
#pragma once

#include <chunked/core/dtype.hpp>
#include <chunked/plan/block_program.hpp>
#include <chunked/plan/op_types.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

/// @file
/// One function per operation, templated on the element type. They are written so that a loop
/// calling them over a tile compiles to branch-free, vectorisable code, and so that no input
/// (NaN, infinities, INT64_MIN, zero divisors) has undefined behaviour: integer arithmetic wraps
/// like two's complement hardware, out-of-range float-to-integer casts give the type's minimum
/// (what x86 conversion instructions, and so NumPy there, produce).

namespace chunked::cpu {

namespace detail {

template <class T> using unsigned_of_t = std::make_unsigned_t<T>;

/// A float-to-integer cast defined for every input: truncation toward zero when the truncated
/// value fits, else the integer type's minimum (NaN included).
template <class I, class F> constexpr I float_to_int(F x) {
  const double d = static_cast<double>(x);
  // -2^(bits-1) and 2^(bits-1) are exact doubles; the test is false for NaN.
  constexpr double lo = -static_cast<double>(std::numeric_limits<I>::max()) - 1.0;
  constexpr double hi = static_cast<double>(std::numeric_limits<I>::max()) + 1.0;
  const bool fits = d > lo - 1.0 && d < hi;
  // Select the operand before converting so the conversion itself never sees a bad value.
  return fits ? static_cast<I>(fits ? d : 0.0) : std::numeric_limits<I>::min();
}

} // namespace detail

/// Converts between any two element types: C++ conversion, except that a float that is NaN or
/// does not fit the target integer gives that integer's minimum, and any type becomes bool as
/// `x != 0` (so NaN becomes true).
template <class To, class From> constexpr To cast_value(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    return detail::float_to_int<To>(x);
  } else {
    // int64 -> int32 is modular since C++20; int -> float rounds; double -> float rounds (IEEE).
    return static_cast<To>(x);
  }
}

template <class T> constexpr T wrap_add(T a, T b) {
  using U = detail::unsigned_of_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T> constexpr T wrap_sub(T a, T b) {
  using U = detail::unsigned_of_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T> constexpr T wrap_mul(T a, T b) {
  using U = detail::unsigned_of_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

template <class T> constexpr T op_neg(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return -x;
  else
    return wrap_sub(T(0), x);
}

template <class T> constexpr T op_abs(T x) {
  if constexpr (std::is_same_v<T, bool>)
    return x;
  else if constexpr (std::is_floating_point_v<T>)
    return std::fabs(x);
  else
    return x < 0 ? wrap_sub(T(0), x) : x; // abs(INT_MIN) wraps to INT_MIN, as NumPy
}

template <class T> constexpr T op_add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a || b; // NumPy: bool + bool is logical or
  else if constexpr (std::is_floating_point_v<T>)
    return a + b;
  else
    return wrap_add(a, b);
}
template <class T> constexpr T op_sub(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return a - b;
  else
    return wrap_sub(a, b);
}
template <class T> constexpr T op_mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a && b; // NumPy: bool * bool is logical and
  else if constexpr (std::is_floating_point_v<T>)
    return a * b;
  else
    return wrap_mul(a, b);
}

/// Python/NumPy remainder: the result has the sign of the divisor. Integers: x % 0 == 0.
/// Floats: NaN for a zero divisor; a zero result takes the divisor's sign.
template <class T> T op_mod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == T(0))
      return std::numeric_limits<T>::quiet_NaN();
    T r = std::fmod(a, b);
    if (r != T(0)) {
      if ((r < T(0)) != (b < T(0)))
        r += b;
    } else {
      r = std::copysign(T(0), b);
    }
    return r;
  } else {
    // b == -1 would overflow for INT_MIN % -1; its remainder is always 0.
    if (b == 0 || b == -1)
      return T(0);
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0)))
      r = static_cast<T>(r + b);
    return r;
  }
}

/// Integer power by squaring with wrapping; a negative exponent gives 1/x^n truncated toward zero.
/// Floats use std::pow.
template <class T> T op_pow(T x, T n) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::pow(x, n);
  } else {
    if (n < 0) {
      if (x == 1)
        return T(1);
      if (x == -1)
        return (n & 1) ? T(-1) : T(1);
      return T(0);
    }
    using U = detail::unsigned_of_t<T>;
    U result = 1, base = static_cast<U>(x);
    for (U e = static_cast<U>(n); e != 0; e >>= 1) {
      if (e & 1u)
        result = static_cast<U>(result * base);
      base = static_cast<U>(base * base);
    }
    return static_cast<T>(result);
  }
}

/// NaN-propagating minimum (NumPy's `minimum`): NaN if either operand is NaN.
template <class T> constexpr T op_minimum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return (a < b || a != a) ? a : b;
  else
    return a < b ? a : b;
}
template <class T> constexpr T op_maximum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return (a > b || a != a) ? a : b;
  else
    return a > b ? a : b;
}

template <class T> constexpr bool op_isnan(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return x != x;
  else
    return false;
}
template <class T> constexpr bool op_isfinite(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return x - x == x - x; // false for inf and NaN
  else
    return true;
}

template <class T> constexpr T op_bit_not(T x) {
  if constexpr (std::is_same_v<T, bool>)
    return !x;
  else
    return static_cast<T>(~x);
}
template <class T> constexpr T op_bit_and(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a && b;
  else
    return static_cast<T>(a & b);
}
template <class T> constexpr T op_bit_or(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a || b;
  else
    return static_cast<T>(a | b);
}
template <class T> constexpr T op_bit_xor(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a != b;
  else
    return static_cast<T>(a ^ b);
}

using plan::op_accepts;
using plan::op_result_dtype;

} // namespace chunked::cpu
