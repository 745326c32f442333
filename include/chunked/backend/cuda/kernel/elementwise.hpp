// SPDX-License-Identifier: Apache-2.0
// Device versions of every elementwise OpCode and cast, with the CPU backend's exact semantics.
#pragma once

// For nvcc and NVRTC only. Mirrors chunked/backend/cpu/elementwise.hpp, which is normative:
// wrapping integers, Python-style mod, NaN-propagating minimum/maximum, float-to-int casts that
// give the integer minimum when out of range.
#include "chunked/backend/cuda/kernel/args.hpp"

#define CHUNKED_KD __device__ __forceinline__

namespace chunked::cuda::kernel {

template <class T> struct is_float { static constexpr bool value = false; };
template <> struct is_float<float> { static constexpr bool value = true; };
template <> struct is_float<double> { static constexpr bool value = true; };
template <class A, class B> struct is_same { static constexpr bool value = false; };
template <class A> struct is_same<A, A> { static constexpr bool value = true; };

template <class T> struct int_limits;
template <> struct int_limits<int> {
  static constexpr int min = -2147483647 - 1;
  static constexpr int max = 2147483647;
  using unsigned_type = unsigned int;
};
template <> struct int_limits<long> { // std::int64_t on LP64 hosts
  static constexpr long min = -9223372036854775807l - 1;
  static constexpr long max = 9223372036854775807l;
  using unsigned_type = unsigned long;
};
template <> struct int_limits<long long> {
  static constexpr long long min = -9223372036854775807ll - 1;
  static constexpr long long max = 9223372036854775807ll;
  using unsigned_type = unsigned long long;
};

// Overloads by precision, so templates call the float function for float operands.
#define CHUNKED_KMATH1(name)                                                                       \
  CHUNKED_KD float k_##name(float x) { return ::name##f(x); }                                      \
  CHUNKED_KD double k_##name(double x) { return ::name(x); }
CHUNKED_KMATH1(sqrt)
CHUNKED_KMATH1(exp)
CHUNKED_KMATH1(log)
CHUNKED_KMATH1(log1p)
CHUNKED_KMATH1(expm1)
CHUNKED_KMATH1(sin)
CHUNKED_KMATH1(cos)
CHUNKED_KMATH1(tan)
CHUNKED_KMATH1(tanh)
CHUNKED_KMATH1(fabs)
#undef CHUNKED_KMATH1
CHUNKED_KD float k_fmod(float a, float b) { return ::fmodf(a, b); }
CHUNKED_KD double k_fmod(double a, double b) { return ::fmod(a, b); }
CHUNKED_KD float k_pow(float a, float b) { return ::powf(a, b); }
CHUNKED_KD double k_pow(double a, double b) { return ::pow(a, b); }
CHUNKED_KD float k_copysign(float a, float b) { return ::copysignf(a, b); }
CHUNKED_KD double k_copysign(double a, double b) { return ::copysign(a, b); }
CHUNKED_KD float k_nan(float) { return __int_as_float(0x7fc00000); }
CHUNKED_KD double k_nan(double) { return __longlong_as_double(0x7ff8000000000000ll); }

template <class I, class F> CHUNKED_KD I float_to_int(F x) {
  const double d = static_cast<double>(x);
  const double lo = -static_cast<double>(int_limits<I>::max) - 1.0;
  const double hi = static_cast<double>(int_limits<I>::max) + 1.0;
  const bool fits = d > lo - 1.0 && d < hi;
  return fits ? static_cast<I>(fits ? d : 0.0) : int_limits<I>::min;
}

template <class To, class From> CHUNKED_KD To cast_value(From x) {
  if constexpr (is_same<To, From>::value)
    return x;
  else if constexpr (is_same<To, bool>::value)
    return x != From(0);
  else if constexpr (is_float<From>::value && !is_float<To>::value)
    return float_to_int<To>(x);
  else
    return static_cast<To>(x);
}

template <class T> CHUNKED_KD T wrap_add(T a, T b) {
  using U = typename int_limits<T>::unsigned_type;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T> CHUNKED_KD T wrap_sub(T a, T b) {
  using U = typename int_limits<T>::unsigned_type;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T> CHUNKED_KD T wrap_mul(T a, T b) {
  using U = typename int_limits<T>::unsigned_type;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

template <class T> CHUNKED_KD T op_neg(T x) {
  if constexpr (is_float<T>::value)
    return -x;
  else
    return wrap_sub(T(0), x);
}
template <class T> CHUNKED_KD T op_abs(T x) {
  if constexpr (is_same<T, bool>::value)
    return x;
  else if constexpr (is_float<T>::value)
    return k_fabs(x);
  else
    return x < 0 ? wrap_sub(T(0), x) : x;
}
template <class T> CHUNKED_KD T op_add(T a, T b) {
  if constexpr (is_same<T, bool>::value)
    return a || b;
  else if constexpr (is_float<T>::value)
    return a + b;
  else
    return wrap_add(a, b);
}
template <class T> CHUNKED_KD T op_sub(T a, T b) {
  if constexpr (is_float<T>::value)
    return a - b;
  else
    return wrap_sub(a, b);
}
template <class T> CHUNKED_KD T op_mul(T a, T b) {
  if constexpr (is_same<T, bool>::value)
    return a && b;
  else if constexpr (is_float<T>::value)
    return a * b;
  else
    return wrap_mul(a, b);
}
template <class T> CHUNKED_KD T op_div(T a, T b) { return a / b; }
template <class T> CHUNKED_KD T op_mod(T a, T b) {
  if constexpr (is_float<T>::value) {
    if (b == T(0))
      return k_nan(T(0));
    T r = k_fmod(a, b);
    if (r != T(0)) {
      if ((r < T(0)) != (b < T(0)))
        r += b;
    } else {
      r = k_copysign(T(0), b);
    }
    return r;
  } else {
    if (b == 0 || b == -1)
      return T(0);
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0)))
      r = static_cast<T>(r + b);
    return r;
  }
}
template <class T> CHUNKED_KD T op_pow(T x, T n) {
  if constexpr (is_float<T>::value) {
    return k_pow(x, n);
  } else {
    if (n < 0) {
      if (x == 1)
        return T(1);
      if (x == -1)
        return (n & 1) ? T(-1) : T(1);
      return T(0);
    }
    using U = typename int_limits<T>::unsigned_type;
    U result = 1, base = static_cast<U>(x);
    for (U e = static_cast<U>(n); e != 0; e >>= 1) {
      if (e & 1u)
        result = static_cast<U>(result * base);
      base = static_cast<U>(base * base);
    }
    return static_cast<T>(result);
  }
}
template <class T> CHUNKED_KD T op_minimum(T a, T b) {
  if constexpr (is_float<T>::value)
    return (a < b || a != a) ? a : b;
  else
    return a < b ? a : b;
}
template <class T> CHUNKED_KD T op_maximum(T a, T b) {
  if constexpr (is_float<T>::value)
    return (a > b || a != a) ? a : b;
  else
    return a > b ? a : b;
}
template <class T> CHUNKED_KD bool op_isnan(T x) {
  if constexpr (is_float<T>::value)
    return x != x;
  else
    return false;
}
template <class T> CHUNKED_KD bool op_isfinite(T x) {
  if constexpr (is_float<T>::value)
    return x - x == x - x;
  else
    return true;
}
template <class T> CHUNKED_KD T op_bit_not(T x) {
  if constexpr (is_same<T, bool>::value)
    return !x;
  else
    return static_cast<T>(~x);
}
template <class T> CHUNKED_KD T op_bit_and(T a, T b) {
  if constexpr (is_same<T, bool>::value)
    return a && b;
  else
    return static_cast<T>(a & b);
}
template <class T> CHUNKED_KD T op_bit_or(T a, T b) {
  if constexpr (is_same<T, bool>::value)
    return a || b;
  else
    return static_cast<T>(a | b);
}
template <class T> CHUNKED_KD T op_bit_xor(T a, T b) {
  if constexpr (is_same<T, bool>::value)
    return a != b;
  else
    return static_cast<T>(a ^ b);
}
template <class T> CHUNKED_KD T op_sqrt(T x) { return k_sqrt(x); }
template <class T> CHUNKED_KD T op_exp(T x) { return k_exp(x); }
template <class T> CHUNKED_KD T op_log(T x) { return k_log(x); }
template <class T> CHUNKED_KD T op_log1p(T x) { return k_log1p(x); }
template <class T> CHUNKED_KD T op_expm1(T x) { return k_expm1(x); }
template <class T> CHUNKED_KD T op_sin(T x) { return k_sin(x); }
template <class T> CHUNKED_KD T op_cos(T x) { return k_cos(x); }
template <class T> CHUNKED_KD T op_tan(T x) { return k_tan(x); }
template <class T> CHUNKED_KD T op_tanh(T x) { return k_tanh(x); }

} // namespace chunked::cuda::kernel
