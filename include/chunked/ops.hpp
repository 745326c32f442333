// SPDX-License-Identifier: Apache-2.0
// Elementwise operators and functions on ChunkedArray, with NumPy broadcasting and NEP 50
// promotion.
#pragma once

#include <chunked/array.hpp>

#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace chunked {

namespace detail {
/// Both operands cast to `compute`, broadcast together, combined by op into `result`.
graph::NodePtr binary(ops::OpCode op, DType compute, DType result, const graph::NodePtr& a,
                      const graph::NodePtr& b);
graph::NodePtr unary(ops::OpCode op, DType compute, DType result, const graph::NodePtr& a);
graph::NodePtr where(const graph::NodePtr& cond, DType result, const graph::NodePtr& a,
                     const graph::NodePtr& b);
/// A rank-0 constant of dtype t holding the scalar (broadcast by the operation using it).
graph::NodePtr scalar(DType t, double f, std::int64_t i);

template <class S> graph::NodePtr scalar_node(DType t, S s) {
  return scalar(t, static_cast<double>(s), is_floating(t) ? 0 : static_cast<std::int64_t>(s));
}

/// logical: the table's bool-valued functions of two operands (logical_and, ...); like
/// comparisons they give bool, but an integer scalar outside the array's type is an error for
/// them, as in NumPy, not a comparison by value.
enum class OpClass { arithmetic, true_divide, comparison, bitwise, logical };

template <OpClass C, class R> constexpr void check_op_types() {
  if constexpr (C == OpClass::bitwise)
    static_assert(!std::is_floating_point_v<R>, "& | ^ ~ need bool or integer arrays");
}

template <class T> inline constexpr bool is_array_v = is_chunked_array_v<std::remove_cvref_t<T>>;

/// Result element type of op class C on types A and B (after promotion P).
template <OpClass C, class P>
using op_result_t =
    std::conditional_t<C == OpClass::comparison || C == OpClass::logical, bool,
                       std::conditional_t<C == OpClass::true_divide, true_div_t<P>, P>>;
template <OpClass C, class P>
using op_compute_t = std::conditional_t<C == OpClass::true_divide, true_div_t<P>, P>;

/// add/mul of bools are logical or/and, as in NumPy; subtraction of bools is an error there.
template <class P> constexpr ops::OpCode bool_aware(ops::OpCode op) {
  if constexpr (std::is_same_v<P, bool>) {
    if (op == ops::OpCode::add)
      return ops::OpCode::bit_or;
    if (op == ops::OpCode::mul)
      return ops::OpCode::bit_and;
  }
  return op;
}

/// The operator class of a binary operation of the table: its promotion and result rule.
constexpr OpClass op_class(ops::OpCode op) {
  if (ops::op_domain(op) == ops::Domain::floating)
    return OpClass::true_divide;
  if (ops::op_info(op).result == ops::ResultRule::boolean)
    return OpClass::logical;
  return ops::op_domain(op) == ops::Domain::integral ? OpClass::bitwise : OpClass::arithmetic;
}

/// Unary operation `Op` of the table on x, computed in the dtype the table gives for x's (double
/// for integer and bool arrays of floating operations) and giving the table's result dtype.
template <ops::OpCode Op, class T, class B> auto unary_op(const ChunkedArray<T, B>& x) {
  constexpr DType compute = ops::op_compute_dtype(Op, dtype_v<T>);
  constexpr DType result = ops::op_result_dtype(Op, compute);
  return ChunkedArray<dtype_type_t<result>, B>(unary(Op, compute, result, x.node()));
}

/// ValueError: the integer scalar `value` does not fit dtype t (NumPy's OverflowError).
[[noreturn]] void scalar_out_of_bounds(const std::string& value, DType t);

/// An integer scalar (not bool) meeting an integer type P (not bool), where NEP 50 gives the
/// scalar type P and so its value must fit.
template <class P, class S>
inline constexpr bool int_scalar_for_v = std::is_integral_v<S> && !std::is_same_v<S, bool> &&
                                         std::is_integral_v<P> && !std::is_same_v<P, bool>;

/// The scalar widened to the 64-bit integer of its signedness (std::in_range takes no char types).
template <class S> auto widen_int(S s) {
  if constexpr (std::is_signed_v<S>)
    return static_cast<long long>(s);
  else
    return static_cast<unsigned long long>(s);
}

/// `x op s` (`s op x` when scalar_left) for an integer x of a type whose whole range lies below
/// s (above s when scalar_below): the same for every x.
constexpr bool comparison_everywhere(ops::OpCode op, bool scalar_below, bool scalar_left) {
  using ops::OpCode;
  const bool x_less = !scalar_below;                     // x < s, for every x
  const bool left_less = scalar_left ? !x_less : x_less; // the left operand is the smaller
  switch (op) {
  case OpCode::eq:
    return false;
  case OpCode::ne:
    return true;
  case OpCode::lt:
  case OpCode::le:
    return left_less;
  default:
    return !left_less; // gt, ge
  }
}

/// NEP 50 for an array of A and a scalar s on one side: the scalar takes the array's kind. An
/// integer scalar outside the array's integer type is compared by value (the comparison becomes
/// one against the type's bound that holds for every element, or for none, so the result keeps
/// the array's shape and chunks) and is a ValueError in any other operation.
template <OpClass C, class A, class S, class Bk>
auto apply_scalar(ops::OpCode op, const ChunkedArray<A, Bk>& a, S s, bool scalar_left) {
  using P = scalar_promote_t<A, S>;
  check_op_types<C, P>();
  using R = op_result_t<C, P>;
  using K = op_compute_t<C, P>;
  if constexpr (int_scalar_for_v<P, S>) {
    const auto w = widen_int(s);
    if (!std::in_range<P>(w)) {
      if constexpr (C != OpClass::comparison) {
        scalar_out_of_bounds(std::to_string(w), dtype_v<P>);
      } else {
        const bool below = w < 0;
        const bool truth = comparison_everywhere(op, below, scalar_left);
        const P bound = below ? std::numeric_limits<P>::min() : std::numeric_limits<P>::max();
        // x <= max and x >= min hold for every x; x > max and x < min for none.
        const ops::OpCode always = below ? (truth ? ops::OpCode::ge : ops::OpCode::lt)
                                         : (truth ? ops::OpCode::le : ops::OpCode::gt);
        return ChunkedArray<R, Bk>(
            binary(always, dtype_v<K>, dtype_v<R>, a.node(), scalar_node(dtype_v<K>, bound)));
      }
    }
  }
  const graph::NodePtr c = scalar_node(dtype_v<K>, s);
  const ops::OpCode k_op = bool_aware<K>(op);
  return ChunkedArray<R, Bk>(scalar_left ? binary(k_op, dtype_v<K>, dtype_v<R>, c, a.node())
                                         : binary(k_op, dtype_v<K>, dtype_v<R>, a.node(), c));
}

template <OpClass C, class A, class B, class Bk>
auto apply(ops::OpCode op, const ChunkedArray<A, Bk>& a, const ChunkedArray<B, Bk>& b) {
  using P = promote_t<A, B>;
  check_op_types<C, P>();
  using R = op_result_t<C, P>;
  using K = op_compute_t<C, P>;
  return ChunkedArray<R, Bk>(binary(bool_aware<K>(op), dtype_v<K>, dtype_v<R>, a.node(), b.node()));
}
template <OpClass C, class A, class S, class Bk>
auto apply(ops::OpCode op, const ChunkedArray<A, Bk>& a, S s) {
  return apply_scalar<C>(op, a, s, false);
}
template <OpClass C, class S, class A, class Bk>
auto apply(ops::OpCode op, S s, const ChunkedArray<A, Bk>& a) {
  return apply_scalar<C>(op, a, s, true);
}
} // namespace detail

#define CHUNKED_DEFINE_BINARY_OPERATOR(SYM, OPCODE, CLASS)                                         \
  template <class A, class B, class Bk>                                                            \
  auto operator SYM(const ChunkedArray<A, Bk>& a, const ChunkedArray<B, Bk>& b) {                  \
    return detail::apply<detail::OpClass::CLASS>(ops::OpCode::OPCODE, a, b);                       \
  }                                                                                                \
  template <class A, class Bk, class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0>         \
  auto operator SYM(const ChunkedArray<A, Bk>& a, S s) {                                           \
    return detail::apply<detail::OpClass::CLASS>(ops::OpCode::OPCODE, a, s);                       \
  }                                                                                                \
  template <class A, class Bk, class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0>         \
  auto operator SYM(S s, const ChunkedArray<A, Bk>& a) {                                           \
    return detail::apply<detail::OpClass::CLASS>(ops::OpCode::OPCODE, s, a);                       \
  }

CHUNKED_DEFINE_BINARY_OPERATOR(+, add, arithmetic)
CHUNKED_DEFINE_BINARY_OPERATOR(-, sub, arithmetic)
CHUNKED_DEFINE_BINARY_OPERATOR(*, mul, arithmetic)
CHUNKED_DEFINE_BINARY_OPERATOR(/, div, true_divide)
CHUNKED_DEFINE_BINARY_OPERATOR(%, mod, arithmetic)
CHUNKED_DEFINE_BINARY_OPERATOR(==, eq, comparison)
CHUNKED_DEFINE_BINARY_OPERATOR(!=, ne, comparison)
CHUNKED_DEFINE_BINARY_OPERATOR(<, lt, comparison)
CHUNKED_DEFINE_BINARY_OPERATOR(<=, le, comparison)
CHUNKED_DEFINE_BINARY_OPERATOR(>, gt, comparison)
CHUNKED_DEFINE_BINARY_OPERATOR(>=, ge, comparison)
CHUNKED_DEFINE_BINARY_OPERATOR(&, bit_and, bitwise)
CHUNKED_DEFINE_BINARY_OPERATOR(|, bit_or, bitwise)
CHUNKED_DEFINE_BINARY_OPERATOR(^, bit_xor, bitwise)
#undef CHUNKED_DEFINE_BINARY_OPERATOR

/// Elementwise minimum/maximum (NaN-propagating) and power, with arrays or scalars on either side.
#define CHUNKED_DEFINE_BINARY_FUNCTION(NAME, OPCODE)                                               \
  template <class A, class B, class Bk>                                                            \
  auto NAME(const ChunkedArray<A, Bk>& a, const ChunkedArray<B, Bk>& b) {                          \
    return detail::apply<detail::OpClass::arithmetic>(ops::OpCode::OPCODE, a, b);                  \
  }                                                                                                \
  template <class A, class Bk, class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0>         \
  auto NAME(const ChunkedArray<A, Bk>& a, S s) {                                                   \
    return detail::apply<detail::OpClass::arithmetic>(ops::OpCode::OPCODE, a, s);                  \
  }                                                                                                \
  template <class A, class Bk, class S, std::enable_if_t<detail::is_scalar_v<S>, int> = 0>         \
  auto NAME(S s, const ChunkedArray<A, Bk>& a) {                                                   \
    return detail::apply<detail::OpClass::arithmetic>(ops::OpCode::OPCODE, s, a);                  \
  }

CHUNKED_DEFINE_BINARY_FUNCTION(minimum, minimum)
CHUNKED_DEFINE_BINARY_FUNCTION(maximum, maximum)
CHUNKED_DEFINE_BINARY_FUNCTION(pow, pow)
#undef CHUNKED_DEFINE_BINARY_FUNCTION

/// Compound assignment rebinds the array to the lazy result, which must keep its element type
/// (NumPy's in-place casting rule: `int_array += 1.5` is an error).
#define CHUNKED_DEFINE_COMPOUND_ASSIGNMENT(SYM)                                                    \
  template <class T, class Bk, class R>                                                            \
  ChunkedArray<T, Bk>& operator SYM##=(ChunkedArray<T, Bk>& a, const R& b) {                       \
    auto r = a SYM b;                                                                              \
    static_assert(std::is_same_v<typename decltype(r)::value_type, T>,                             \
                  "compound assignment would change the array's element type; write x = x op y");  \
    a = r;                                                                                         \
    return a;                                                                                      \
  }
CHUNKED_DEFINE_COMPOUND_ASSIGNMENT(+)
CHUNKED_DEFINE_COMPOUND_ASSIGNMENT(-)
CHUNKED_DEFINE_COMPOUND_ASSIGNMENT(*)
CHUNKED_DEFINE_COMPOUND_ASSIGNMENT(/)
CHUNKED_DEFINE_COMPOUND_ASSIGNMENT(%)
CHUNKED_DEFINE_COMPOUND_ASSIGNMENT(&)
CHUNKED_DEFINE_COMPOUND_ASSIGNMENT(|)
CHUNKED_DEFINE_COMPOUND_ASSIGNMENT(^)
#undef CHUNKED_DEFINE_COMPOUND_ASSIGNMENT

/// Unary minus; not defined for bool arrays (as in NumPy).
template <class T, class B> ChunkedArray<T, B> operator-(const ChunkedArray<T, B>& x) {
  static_assert(!std::is_same_v<T, bool>, "unary - is not defined for bool arrays; use ~");
  return ChunkedArray<T, B>(detail::unary(ops::OpCode::neg, dtype_v<T>, dtype_v<T>, x.node()));
}
/// Bitwise not of integers, logical not of bools.
template <class T, class B> ChunkedArray<T, B> operator~(const ChunkedArray<T, B>& x) {
  static_assert(!std::is_floating_point_v<T>, "~ needs bool or integer arrays");
  return ChunkedArray<T, B>(detail::unary(ops::OpCode::bit_not, dtype_v<T>, dtype_v<T>, x.node()));
}

template <class T, class B> ChunkedArray<T, B> abs(const ChunkedArray<T, B>& x) {
  if constexpr (std::is_same_v<T, bool>)
    return x;
  else
    return ChunkedArray<T, B>(detail::unary(ops::OpCode::abs, dtype_v<T>, dtype_v<T>, x.node()));
}

/// Transcendental functions: floating arrays keep their type, others compute in double.
#define CHUNKED_DEFINE_MATH_FUNCTION(NAME)                                                         \
  template <class T, class B> auto NAME(const ChunkedArray<T, B>& x) {                             \
    return detail::unary_op<ops::OpCode::NAME>(x);                                                 \
  }
CHUNKED_DEFINE_MATH_FUNCTION(sqrt)
CHUNKED_DEFINE_MATH_FUNCTION(exp)
CHUNKED_DEFINE_MATH_FUNCTION(log)
CHUNKED_DEFINE_MATH_FUNCTION(log1p)
CHUNKED_DEFINE_MATH_FUNCTION(expm1)
CHUNKED_DEFINE_MATH_FUNCTION(sin)
CHUNKED_DEFINE_MATH_FUNCTION(cos)
CHUNKED_DEFINE_MATH_FUNCTION(tan)
CHUNKED_DEFINE_MATH_FUNCTION(tanh)
#undef CHUNKED_DEFINE_MATH_FUNCTION

/// Whether x is NaN; whether it is finite (neither NaN nor infinite). Every type; bool results.
template <class T, class B> auto isnan(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::isnan>(x);
}
template <class T, class B> auto isfinite(const ChunkedArray<T, B>& x) {
  return detail::unary_op<ops::OpCode::isfinite>(x);
}

/// clip(x, lo, hi) = minimum(maximum(x, lo), hi); bounds are arrays or scalars.
template <class T, class B, class L, class H>
auto clip(const ChunkedArray<T, B>& x, const L& lo, const H& hi) {
  return minimum(maximum(x, lo), hi);
}

namespace detail {
template <class R, class X> graph::NodePtr where_operand(const X& x) {
  if constexpr (is_chunked_array_v<X>) {
    return x.node();
  } else {
    if constexpr (int_scalar_for_v<R, X>)
      if (!std::in_range<R>(widen_int(x)))
        scalar_out_of_bounds(std::to_string(widen_int(x)), dtype_v<R>);
    return scalar_node(dtype_v<R>, x);
  }
}
template <class X> struct where_type { using type = X; };
template <class T, class B> struct where_type<ChunkedArray<T, B>> { using type = T; };
} // namespace detail

/// where(cond, a, b): a where cond is true, else b; a and b are arrays or scalars.
template <class C, class B, class X, class Y>
auto where(const ChunkedArray<C, B>& cond, const X& a, const Y& b) {
  using TA = typename detail::where_type<X>::type;
  using TB = typename detail::where_type<Y>::type;
  using R = std::conditional_t<
      is_chunked_array_v<X> && is_chunked_array_v<Y>, detail::promote_t<TA, TB>,
      std::conditional_t<is_chunked_array_v<X>, detail::scalar_promote_t<TA, TB>,
                         std::conditional_t<is_chunked_array_v<Y>, detail::scalar_promote_t<TB, TA>,
                                            detail::promote_t<TA, TB>>>>;
  return ChunkedArray<R, B>(detail::where(graph::cast(cond.node(), DType::bool_), dtype_v<R>,
                                          detail::where_operand<R>(a),
                                          detail::where_operand<R>(b)));
}

} // namespace chunked
