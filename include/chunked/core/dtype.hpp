// SPDX-License-Identifier: Apache-2.0
// Element types, their run-time tags, and NumPy/NEP 50 type promotion.
#pragma once

#include <chunked/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace chunked {

/// Run-time tag of an element type. The graph is typed by DType, the API by the C++ type.
enum class DType : std::uint8_t { bool_, int32, int64, float32, float64 };

inline constexpr int num_dtypes = 5;

/// True for the five element types chunked supports.
template <class T>
inline constexpr bool is_element_type_v =
    std::is_same_v<T, bool> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class T> constexpr DType dtype_of() {
  static_assert(is_element_type_v<T>,
                "chunked supports bool, std::int32_t, std::int64_t, float and double elements");
  if constexpr (std::is_same_v<T, bool>)
    return DType::bool_;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return DType::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return DType::int64;
  else if constexpr (std::is_same_v<T, float>)
    return DType::float32;
  else
    return DType::float64;
}

template <class T> inline constexpr DType dtype_v = dtype_of<T>();

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
  case DType::bool_:
    return 1;
  case DType::int32:
  case DType::float32:
    return 4;
  default:
    return 8;
  }
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
  case DType::bool_:
    return "bool";
  case DType::int32:
    return "int32";
  case DType::int64:
    return "int64";
  case DType::float32:
    return "float32";
  default:
    return "float64";
  }
}

constexpr bool is_floating(DType t) { return t == DType::float32 || t == DType::float64; }
constexpr bool is_integral(DType t) { return t == DType::int32 || t == DType::int64; }

/// Promotion of two array dtypes (NumPy's table restricted to the supported types).
constexpr DType promote(DType a, DType b) {
  if (a == b)
    return a;
  if (a == DType::bool_)
    return b;
  if (b == DType::bool_)
    return a;
  if (is_integral(a) && is_integral(b))
    return DType::int64;
  if (is_floating(a) && is_floating(b))
    return DType::float64;
  // One integer, one float: int32 fits float64 exactly, so NumPy gives float64 for any pairing
  // with int64 or with float64; int32 with float32 also gives float64.
  return DType::float64;
}

/// Kind of a Python-like scalar for NEP 50: a scalar never widens an array of its own kind.
enum class ScalarKind : std::uint8_t { boolean, integer, floating };

template <class S> constexpr ScalarKind scalar_kind() {
  if constexpr (std::is_same_v<S, bool>)
    return ScalarKind::boolean;
  else if constexpr (std::is_integral_v<S>)
    return ScalarKind::integer;
  else
    return ScalarKind::floating;
}

/// Result dtype of `array (op) scalar` under NEP 50 weak scalars.
constexpr DType promote_with_scalar(DType a, ScalarKind s) {
  switch (s) {
  case ScalarKind::boolean:
    return a;
  case ScalarKind::integer:
    return a == DType::bool_ ? DType::int64 : a;
  default:
    return is_floating(a) ? a : DType::float64;
  }
}

/// C++ type of a DType, for dispatching on run-time tags.
template <DType D> struct dtype_type;
template <> struct dtype_type<DType::bool_> { using type = bool; };
template <> struct dtype_type<DType::int32> { using type = std::int32_t; };
template <> struct dtype_type<DType::int64> { using type = std::int64_t; };
template <> struct dtype_type<DType::float32> { using type = float; };
template <> struct dtype_type<DType::float64> { using type = double; };
template <DType D> using dtype_type_t = typename dtype_type<D>::type;

/// Calls f(T{}) with the C++ type for t: the one place run-time dtype switches are written.
template <class F> decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
  case DType::bool_:
    return f(bool{});
  case DType::int32:
    return f(std::int32_t{});
  case DType::int64:
    return f(std::int64_t{});
  case DType::float32:
    return f(float{});
  case DType::float64:
    return f(double{});
  }
  throw ValueError("unknown dtype tag");
}

} // namespace chunked
