// SPDX-License-Identifier: Apache-2.0
// Compile-time result types of operators and reductions (NumPy / NEP 50 rules).
#pragma once

#include <chunked/core/dtype.hpp>

#include <type_traits>

namespace chunked::detail {

template <class A, class B> using promote_t = dtype_type_t<promote(dtype_v<A>, dtype_v<B>)>;

/// Python-like scalars: any arithmetic C++ type. They never widen an array of their own kind.
template <class S> inline constexpr bool is_scalar_v = std::is_arithmetic_v<S>;

template <class T, class S>
using scalar_promote_t = dtype_type_t<promote_with_scalar(dtype_v<T>, scalar_kind<S>())>;

/// true division: integers and bools divide as float64.
template <class T> using true_div_t = std::conditional_t<std::is_floating_point_v<T>, T, double>;

/// Transcendental functions of non-floating arrays compute in float64.
template <class T> using float_t = std::conditional_t<std::is_floating_point_v<T>, T, double>;

template <class T> using sum_t = std::conditional_t<std::is_floating_point_v<T>, T, std::int64_t>;
template <class T> using mean_t = std::conditional_t<std::is_floating_point_v<T>, T, double>;

} // namespace chunked::detail
