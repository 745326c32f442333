// SPDX-License-Identifier: Apache-2.0
// What every elementwise operation computes on one element: the one definition both backends use.
#pragma once

// Compiled by the host compiler, by nvcc and by NVRTC (which has no standard headers): no standard
// header under NVRTC, and math goes through overloads that pick CUDA's functions on the device.
#include "chunked/core/host_device.hpp"
#include "chunked/ops/elementwise_table.hpp"
#include "chunked/ops/op_code.hpp"

#if !CHUNKED_RTC
#include <cmath>
#include <limits>
#endif

/// @file
/// One function `op_<name>` per row of the operation table (elementwise_table.hpp), templated on
/// the element type (bool, int, long, long long, float or double), and `apply<OpCode>` to call
/// the one of a row. This header is the single definition of what an operation computes: the CPU
/// tile interpreter calls these functions in its loops and the CUDA code generator emits calls to
/// them, so both backends give bit-identical results for the integer and IEEE-exact operations.
///
/// They are written so that a loop calling them compiles to branch-free, vectorisable code, and so
/// that no input (NaN, infinities, INT64_MIN, zero divisors) has undefined behaviour: integer
/// arithmetic wraps like two's complement hardware, out-of-range float-to-integer casts give the
/// type's minimum (what x86 conversion instructions, and so NumPy there, produce).
///
/// @code
/// using namespace chunked::scalar;
/// op_mod(-7, 3);                        // 2, the sign of the divisor (Python)
/// op_minimum(1.0, NAN);                 // NaN
/// cast_value<int>(1e30);                // INT_MIN
/// wrap_add<long long>(INT64_MAX, 1);    // INT64_MIN
/// @endcode

/// Every function of the shared scalar semantics: host, nvcc device code and NVRTC alike.
#define CHUNKED_SCALAR CHUNKED_HD CHUNKED_FORCEINLINE constexpr

namespace chunked::scalar {

// long long rather than std::int64_t: one spelling on the host, in nvcc and in NVRTC.
using i64 = long long;

// ---- Type traits (no <type_traits> under NVRTC) -----------------------------------------------

template <class T> struct is_float { static constexpr bool value = false; };
template <> struct is_float<float> { static constexpr bool value = true; };
template <> struct is_float<double> { static constexpr bool value = true; };

template <class A, class B> struct is_same { static constexpr bool value = false; };
template <class A> struct is_same<A, A> { static constexpr bool value = true; };

/// Range and unsigned counterpart of the signed integer element types. `long` and `long long` are
/// both listed because std::int64_t is `long` on LP64 hosts while kernels spell it `long long`.
template <class T> struct int_limits;
template <> struct int_limits<int> {
  static constexpr int min = -2147483647 - 1;
  static constexpr int max = 2147483647;
  using unsigned_type = unsigned int;
};
template <> struct int_limits<long> {
  static_assert(sizeof(long) == 8, "chunked assumes an LP64 platform");
  static constexpr long min = -9223372036854775807l - 1;
  static constexpr long max = 9223372036854775807l;
  using unsigned_type = unsigned long;
};
template <> struct int_limits<long long> {
  static constexpr long long min = -9223372036854775807ll - 1;
  static constexpr long long max = 9223372036854775807ll;
  using unsigned_type = unsigned long long;
};

template <class T> using unsigned_of_t = typename int_limits<T>::unsigned_type;

// ---- Math: CUDA's functions on the device, the C++ library's on the host ----------------------

#if CHUNKED_DEVICE_CODE
#define CHUNKED_SCALAR_MATH1(name)                                                                 \
  CHUNKED_HD CHUNKED_FORCEINLINE float math_##name(float x) { return ::name##f(x); }               \
  CHUNKED_HD CHUNKED_FORCEINLINE double math_##name(double x) { return ::name(x); }
#define CHUNKED_SCALAR_MATH2(name)                                                                 \
  CHUNKED_HD CHUNKED_FORCEINLINE float math_##name(float a, float b) { return ::name##f(a, b); }   \
  CHUNKED_HD CHUNKED_FORCEINLINE double math_##name(double a, double b) { return ::name(a, b); }
#else
#define CHUNKED_SCALAR_MATH1(name)                                                                 \
  CHUNKED_HD CHUNKED_FORCEINLINE float math_##name(float x) { return std::name(x); }               \
  CHUNKED_HD CHUNKED_FORCEINLINE double math_##name(double x) { return std::name(x); }
#define CHUNKED_SCALAR_MATH2(name)                                                                 \
  CHUNKED_HD CHUNKED_FORCEINLINE float math_##name(float a, float b) { return std::name(a, b); }   \
  CHUNKED_HD CHUNKED_FORCEINLINE double math_##name(double a, double b) { return std::name(a, b); }
#endif
CHUNKED_SCALAR_MATH1(sqrt)
CHUNKED_SCALAR_MATH1(exp)
CHUNKED_SCALAR_MATH1(log)
CHUNKED_SCALAR_MATH1(log1p)
CHUNKED_SCALAR_MATH1(expm1)
CHUNKED_SCALAR_MATH1(sin)
CHUNKED_SCALAR_MATH1(cos)
CHUNKED_SCALAR_MATH1(tan)
CHUNKED_SCALAR_MATH1(tanh)
CHUNKED_SCALAR_MATH1(fabs)
CHUNKED_SCALAR_MATH1(floor)
CHUNKED_SCALAR_MATH1(ceil)
CHUNKED_SCALAR_MATH1(trunc)
CHUNKED_SCALAR_MATH1(rint)
CHUNKED_SCALAR_MATH1(log2)
CHUNKED_SCALAR_MATH1(log10)
CHUNKED_SCALAR_MATH1(exp2)
CHUNKED_SCALAR_MATH1(asin)
CHUNKED_SCALAR_MATH1(acos)
CHUNKED_SCALAR_MATH1(atan)
CHUNKED_SCALAR_MATH1(sinh)
CHUNKED_SCALAR_MATH1(cosh)
CHUNKED_SCALAR_MATH2(fmod)
CHUNKED_SCALAR_MATH2(pow)
CHUNKED_SCALAR_MATH2(copysign)
CHUNKED_SCALAR_MATH2(atan2)
CHUNKED_SCALAR_MATH2(hypot)
#undef CHUNKED_SCALAR_MATH1
#undef CHUNKED_SCALAR_MATH2

/// Whether the sign bit of x is set (-0.0 and NaNs with the bit included).
template <class T> CHUNKED_HD CHUNKED_FORCEINLINE bool math_signbit(T x) {
#if CHUNKED_DEVICE_CODE
  if constexpr (is_same<T, float>::value)
    return __float_as_int(x) < 0;
  else
    return __double_as_longlong(x) < 0;
#else
  return std::signbit(x);
#endif
}

/// Quiet NaN of T's precision.
template <class T> CHUNKED_HD CHUNKED_FORCEINLINE T quiet_nan() {
#if CHUNKED_DEVICE_CODE
  if constexpr (is_same<T, float>::value)
    return __int_as_float(0x7fc00000);
  else
    return __longlong_as_double(0x7ff8000000000000ll);
#else
  return std::numeric_limits<T>::quiet_NaN();
#endif
}

/// Positive infinity as a double.
CHUNKED_HD CHUNKED_FORCEINLINE double infinity() {
#if CHUNKED_DEVICE_CODE
  return __longlong_as_double(0x7ff0000000000000ll);
#else
  return std::numeric_limits<double>::infinity();
#endif
}

// ---- Casts ------------------------------------------------------------------------------------

/// A float-to-integer cast defined for every input: truncation toward zero when the truncated
/// value fits, else the integer type's minimum (NaN included).
template <class I, class F> CHUNKED_SCALAR I float_to_int(F x) {
  const double d = static_cast<double>(x);
  // -2^(bits-1) and 2^(bits-1) are exact doubles; the test is false for NaN.
  constexpr double lo = -static_cast<double>(int_limits<I>::max) - 1.0;
  constexpr double hi = static_cast<double>(int_limits<I>::max) + 1.0;
  const bool fits = d > lo - 1.0 && d < hi;
  // Select the operand before converting so the conversion itself never sees a bad value.
  return fits ? static_cast<I>(fits ? d : 0.0) : int_limits<I>::min;
}

/// Converts between any two element types: C++ conversion, except that a float that is NaN or
/// does not fit the target integer gives that integer's minimum, and any type becomes bool as
/// `x != 0` (so NaN becomes true).
template <class To, class From> CHUNKED_SCALAR To cast_value(From x) {
  if constexpr (is_same<To, From>::value) {
    return x;
  } else if constexpr (is_same<To, bool>::value) {
    return x != From(0);
  } else if constexpr (is_float<From>::value && !is_float<To>::value) {
    return float_to_int<To>(x);
  } else {
    // int64 -> int32 is modular since C++20; int -> float rounds; double -> float rounds (IEEE).
    return static_cast<To>(x);
  }
}

// ---- Arithmetic -------------------------------------------------------------------------------

/// Two's complement wrapping add, subtract and multiply of signed integers (done in the unsigned
/// type, where overflow is defined).
template <class T> CHUNKED_SCALAR T wrap_add(T a, T b) {
  using U = unsigned_of_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T> CHUNKED_SCALAR T wrap_sub(T a, T b) {
  using U = unsigned_of_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T> CHUNKED_SCALAR T wrap_mul(T a, T b) {
  using U = unsigned_of_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

template <class T> CHUNKED_SCALAR T op_neg(T x) {
  if constexpr (is_float<T>::value)
    return -x;
  else
    return wrap_sub(T(0), x);
}

template <class T> CHUNKED_SCALAR T op_abs(T x) {
  if constexpr (is_same<T, bool>::value)
    return x;
  else if constexpr (is_float<T>::value)
    return math_fabs(x);
  else
    return x < 0 ? wrap_sub(T(0), x) : x; // abs(INT_MIN) wraps to INT_MIN, as NumPy
}

template <class T> CHUNKED_SCALAR T op_add(T a, T b) {
  if constexpr (is_same<T, bool>::value)
    return a || b; // NumPy: bool + bool is logical or
  else if constexpr (is_float<T>::value)
    return a + b;
  else
    return wrap_add(a, b);
}
template <class T> CHUNKED_SCALAR T op_sub(T a, T b) {
  if constexpr (is_float<T>::value)
    return a - b;
  else
    return wrap_sub(a, b);
}
template <class T> CHUNKED_SCALAR T op_mul(T a, T b) {
  if constexpr (is_same<T, bool>::value)
    return a && b; // NumPy: bool * bool is logical and
  else if constexpr (is_float<T>::value)
    return a * b;
  else
    return wrap_mul(a, b);
}
/// True division; the planner only asks it of floating operands.
template <class T> CHUNKED_SCALAR T op_div(T a, T b) { return a / b; }

/// Python/NumPy remainder: the result has the sign of the divisor. Integers: x % 0 == 0.
/// Floats: NaN for a zero divisor; a zero result takes the divisor's sign.
template <class T> CHUNKED_SCALAR T op_mod(T a, T b) {
  if constexpr (is_float<T>::value) {
    if (b == T(0))
      return quiet_nan<T>();
    T r = math_fmod(a, b);
    if (r != T(0)) {
      if ((r < T(0)) != (b < T(0)))
        r += b;
    } else {
      r = math_copysign(T(0), b);
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
/// Floats use the math library's pow.
template <class T> CHUNKED_SCALAR T op_pow(T x, T n) {
  if constexpr (is_float<T>::value) {
    return math_pow(x, n);
  } else {
    if (n < 0) {
      if (x == 1)
        return T(1);
      if (x == -1)
        return (n & 1) ? T(-1) : T(1);
      return T(0);
    }
    using U = unsigned_of_t<T>;
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
template <class T> CHUNKED_SCALAR T op_minimum(T a, T b) {
  if constexpr (is_float<T>::value)
    return (a < b || a != a) ? a : b;
  else
    return a < b ? a : b;
}
/// NaN-propagating maximum (NumPy's `maximum`): NaN if either operand is NaN.
template <class T> CHUNKED_SCALAR T op_maximum(T a, T b) {
  if constexpr (is_float<T>::value)
    return (a > b || a != a) ? a : b;
  else
    return a > b ? a : b;
}

// ---- Transcendental functions (floating operands only) ----------------------------------------

template <class T> CHUNKED_SCALAR T op_sqrt(T x) { return math_sqrt(x); }
template <class T> CHUNKED_SCALAR T op_exp(T x) { return math_exp(x); }
template <class T> CHUNKED_SCALAR T op_log(T x) { return math_log(x); }
template <class T> CHUNKED_SCALAR T op_log1p(T x) { return math_log1p(x); }
template <class T> CHUNKED_SCALAR T op_expm1(T x) { return math_expm1(x); }
template <class T> CHUNKED_SCALAR T op_sin(T x) { return math_sin(x); }
template <class T> CHUNKED_SCALAR T op_cos(T x) { return math_cos(x); }
template <class T> CHUNKED_SCALAR T op_tan(T x) { return math_tan(x); }
template <class T> CHUNKED_SCALAR T op_tanh(T x) { return math_tanh(x); }

// ---- Predicates and bit operations ------------------------------------------------------------

template <class T> CHUNKED_SCALAR bool op_isnan(T x) {
  if constexpr (is_float<T>::value)
    return x != x;
  else
    return false;
}
template <class T> CHUNKED_SCALAR bool op_isfinite(T x) {
  if constexpr (is_float<T>::value)
    return x - x == x - x; // false for inf and NaN
  else
    return true;
}

template <class T> CHUNKED_SCALAR T op_bit_not(T x) {
  if constexpr (is_same<T, bool>::value)
    return !x;
  else
    return static_cast<T>(~x);
}
template <class T> CHUNKED_SCALAR T op_bit_and(T a, T b) {
  if constexpr (is_same<T, bool>::value)
    return a && b;
  else
    return static_cast<T>(a & b);
}
template <class T> CHUNKED_SCALAR T op_bit_or(T a, T b) {
  if constexpr (is_same<T, bool>::value)
    return a || b;
  else
    return static_cast<T>(a | b);
}
template <class T> CHUNKED_SCALAR T op_bit_xor(T a, T b) {
  if constexpr (is_same<T, bool>::value)
    return a != b;
  else
    return static_cast<T>(a ^ b);
}

// ---- Rounding and sign ------------------------------------------------------------------------

/// Rounding of floats (floating operands only): the whole number below, above, toward zero.
template <class T> CHUNKED_SCALAR T op_floor(T x) { return math_floor(x); }
template <class T> CHUNKED_SCALAR T op_ceil(T x) { return math_ceil(x); }
template <class T> CHUNKED_SCALAR T op_trunc(T x) { return math_trunc(x); }

/// Round half to even (NumPy's round and rint): floats in the default rounding mode, which rounds
/// ties to even and keeps the sign of a zero result; integers are whole already.
template <class T> CHUNKED_SCALAR T op_round(T x) {
  if constexpr (is_float<T>::value)
    return math_rint(x);
  else
    return x;
}

/// -1, 0 or 1 by the sign of x (not for bool). NaN stays NaN and -0.0 gives +0.0, as NumPy.
template <class T> CHUNKED_SCALAR T op_sign(T x) {
  if constexpr (is_float<T>::value)
    return x > T(0) ? T(1) : x < T(0) ? T(-1) : x == T(0) ? T(0) : x;
  else
    return static_cast<T>((x > T(0)) - (x < T(0)));
}

/// x * x: integers wrap (not for bool: NumPy gives int8).
template <class T> CHUNKED_SCALAR T op_square(T x) { return op_mul(x, x); }

/// 1 / x (not for bool). Integers truncate toward zero, so |x| > 1 gives 0, and 0 gives the
/// type's minimum: NumPy divides in floating point and converts, which gives that on x86 (with a
/// warning), and chunked's float-to-integer casts do the same.
template <class T> CHUNKED_SCALAR T op_reciprocal(T x) {
  if constexpr (is_float<T>::value)
    return T(1) / x;
  else
    return x == T(0) ? int_limits<T>::min : (x == T(1) || x == T(-1)) ? x : T(0);
}

/// C's fmod: the remainder of division truncated toward zero, with the sign of the dividend (not
/// for bool). Floats: NaN for a zero divisor or an infinite dividend. Integers: x fmod 0 is 0
/// (NumPy gives 0 with a warning), INT_MIN fmod -1 is 0.
template <class T> CHUNKED_SCALAR T op_fmod(T a, T b) {
  if constexpr (is_float<T>::value) {
    return math_fmod(a, b);
  } else {
    if (b == 0 || b == -1)
      return T(0);
    return static_cast<T>(a % b);
  }
}

/// The magnitude of a with the sign of b (floating operands only; NaNs' signs too).
template <class T> CHUNKED_SCALAR T op_copysign(T a, T b) { return math_copysign(a, b); }

// ---- More math functions (floating operands only) ---------------------------------------------

template <class T> CHUNKED_SCALAR T op_log2(T x) { return math_log2(x); }
template <class T> CHUNKED_SCALAR T op_log10(T x) { return math_log10(x); }
template <class T> CHUNKED_SCALAR T op_exp2(T x) { return math_exp2(x); }
template <class T> CHUNKED_SCALAR T op_arcsin(T x) { return math_asin(x); }
template <class T> CHUNKED_SCALAR T op_arccos(T x) { return math_acos(x); }
template <class T> CHUNKED_SCALAR T op_arctan(T x) { return math_atan(x); }
template <class T> CHUNKED_SCALAR T op_sinh(T x) { return math_sinh(x); }
template <class T> CHUNKED_SCALAR T op_cosh(T x) { return math_cosh(x); }
/// The angle of the point (b, a): atan2(a, b), in [-pi, pi].
template <class T> CHUNKED_SCALAR T op_arctan2(T a, T b) { return math_atan2(a, b); }
/// sqrt(a * a + b * b) without overflow or underflow in between; inf if either is infinite.
/// CUDA's hypot is within 2 ulp, which can round a result just under the largest finite value up
/// to inf: with finite operands such a result is computed again, scaled by the larger operand.
template <class T> CHUNKED_SCALAR T op_hypot(T a, T b) {
  const T r = math_hypot(a, b);
#if CHUNKED_DEVICE_CODE
  const bool finite_operands = (a - a == T(0)) & (b - b == T(0));
  if (finite_operands && r - r != T(0)) {
    const T x = math_fabs(a), y = math_fabs(b);
    const T hi = x > y ? x : y, lo = x > y ? y : x;
    const T q = lo / hi;
    return hi * math_sqrt(T(1) + q * q);
  }
#endif
  return r;
}

// ---- Logical functions and predicates (any operand dtype; bool results) -----------------------

/// Operands count as true when nonzero (NaN included).
template <class T> CHUNKED_SCALAR bool op_logical_and(T a, T b) {
  return (a != T(0)) & (b != T(0));
}
template <class T> CHUNKED_SCALAR bool op_logical_or(T a, T b) { return (a != T(0)) | (b != T(0)); }
template <class T> CHUNKED_SCALAR bool op_logical_xor(T a, T b) {
  return (a != T(0)) != (b != T(0));
}
template <class T> CHUNKED_SCALAR bool op_logical_not(T x) { return x == T(0); }

/// Whether x is +inf or -inf; integers and bools never are.
template <class T> CHUNKED_SCALAR bool op_isinf(T x) {
  if constexpr (is_float<T>::value)
    return (x - x != x - x) & (x == x); // inf - inf is NaN; NaN fails x == x
  else
    return false;
}
/// Whether the sign bit is set: true for -0.0 and for NaNs with the bit; integers below zero.
template <class T> CHUNKED_SCALAR bool op_signbit(T x) {
  if constexpr (is_float<T>::value)
    return math_signbit(x);
  else if constexpr (is_same<T, bool>::value)
    return false;
  else
    return x < T(0);
}

// ---- Comparisons and selection ----------------------------------------------------------------

template <class T> CHUNKED_SCALAR bool op_eq(T a, T b) { return a == b; }
template <class T> CHUNKED_SCALAR bool op_ne(T a, T b) { return a != b; }
template <class T> CHUNKED_SCALAR bool op_lt(T a, T b) { return a < b; }
template <class T> CHUNKED_SCALAR bool op_le(T a, T b) { return a <= b; }
template <class T> CHUNKED_SCALAR bool op_gt(T a, T b) { return a > b; }
template <class T> CHUNKED_SCALAR bool op_ge(T a, T b) { return a >= b; }

/// where(c, a, b): a where c holds, else b.
template <class T> CHUNKED_SCALAR T op_where(bool c, T a, T b) { return c ? a : b; }

/// A cast's result type is its instruction's, not its operand's: casts go through cast_value<To>,
/// and asking apply for one is an error.
template <class T> void op_cast(T) = delete;

// ---- Every operation by its OpCode -------------------------------------------------------------

template <ops::OpCode> inline constexpr bool no_such_op = false;

/// `scalar::op_<name>(args...)` of the table row of Op: how the CPU's loops call an operation
/// whose code they know at compile time.
template <ops::OpCode Op, class... A> CHUNKED_SCALAR auto apply(A... args) {
#define CHUNKED_SCALAR_APPLY(name, ...)                                                            \
  if constexpr (Op == ops::OpCode::name)                                                           \
    return op_##name(args...);                                                                     \
  else
  CHUNKED_ELEMENTWISE_OPS(CHUNKED_SCALAR_APPLY)
#undef CHUNKED_SCALAR_APPLY
  static_assert(no_such_op<Op>, "not an OpCode of the table");
}

} // namespace chunked::scalar
