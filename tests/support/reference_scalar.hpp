// SPDX-License-Identifier: Apache-2.0
// NumPy's scalar semantics for the naive reference (reference.hpp): + - * % ** minimum maximum.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

// Written from NumPy's documented semantics, not from the library's code, for the reason given in
// reference.hpp: a shared misunderstanding must not make both sides agree.

namespace chunked::test {

template <class T> T wrapping_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <class T> T wrapping_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <class T> T wrapping_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

/// NumPy's + - * on one type: bools are or / and, integers wrap.
template <class T> T np_add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a || b;
  else if constexpr (std::is_integral_v<T>)
    return wrapping_add(a, b);
  else
    return a + b;
}
template <class T> T np_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return wrapping_sub(a, b);
  else
    return a - b;
}
template <class T> T np_mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a && b;
  else if constexpr (std::is_integral_v<T>)
    return wrapping_mul(a, b);
  else
    return a * b;
}

/// Python's %: the sign of the divisor; NumPy gives 0 for an integer zero divisor, NaN for a float.
template <class T> T np_mod(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0 || b == -1)
      return 0; // x % -1 is always 0; computing INT_MIN % -1 would trap
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0)))
      r = static_cast<T>(r + b);
    return r;
  } else {
    if (b == 0)
      return std::numeric_limits<T>::quiet_NaN();
    T r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0)))
      r += b;
    if (r == 0)
      r = std::copysign(T(0), b);
    return r;
  }
}

/// Integer power: exact with wraparound; x ** -n is 1 / x^n truncated (0 unless |x| == 1).
template <class T> T np_pow(T x, T n) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::pow(x, n);
  } else {
    if (n < 0)
      return x == 1 ? 1 : x == -1 ? ((n % 2 != 0) ? -1 : 1) : 0;
    T r = 1;
    for (T k = 0; k < n; ++k)
      r = wrapping_mul(r, x);
    return r;
  }
}

template <class T> T np_minimum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<T>::quiet_NaN();
  return b < a ? b : a;
}
template <class T> T np_maximum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<T>::quiet_NaN();
  return a < b ? b : a;
}

} // namespace chunked::test
