// SPDX-License-Identifier: Apache-2.0
// Elementwise statements (binary, unary, where, clip, astype), dispatched on the run-time element
// types to chunked's operators and functions, so that their compile-time promotion is what runs.
#include "values.hpp"

#include <type_traits>

namespace chunked::differential {

namespace {

template <class T> struct element_of {
  using type = T; // a scalar operand is its own type
};
template <class T, class B> struct element_of<ChunkedArray<T, B>> { using type = T; };
template <class X> using element_t = typename element_of<std::remove_cvref_t<X>>::type;

/// The type both operands compute in, as chunked's operators work it out.
template <class X, class Y>
using promoted_t = std::conditional_t<
    is_chunked_array_v<X> && is_chunked_array_v<Y>, detail::promote_t<element_t<X>, element_t<Y>>,
    std::conditional_t<is_chunked_array_v<X>, detail::scalar_promote_t<element_t<X>, Y>,
                       detail::scalar_promote_t<element_t<Y>, X>>>;

/// Calls f(a, b) with each operand as its array or scalar type. Two scalars have no array to
/// give the result a shape: the generator never writes them for binary operations.
template <class B, class F>
Value<B> visit_operands(const Operand<B>& x, const Operand<B>& y, F&& f) {
  return std::visit(
      [&](const auto& xv) -> Value<B> {
        return std::visit(
            [&](const auto& yv) -> Value<B> {
              return std::visit(
                  [&](const auto& a) -> Value<B> {
                    return std::visit([&](const auto& b) -> Value<B> { return f(a, b); }, yv);
                  },
                  xv);
            },
            y);
      },
      x);
}

template <class B> struct Binary {
  const std::string& op;

  template <class X, class Y> Value<B> operator()(const X& a, const Y& b) const {
    if constexpr (!is_chunked_array_v<X> && !is_chunked_array_v<Y>) {
      throw ProgramError("binary " + op + " of two scalars");
    } else {
      using P = promoted_t<X, Y>;
      if (op == "add")
        return a + b;
      if (op == "sub")
        return a - b;
      if (op == "mul")
        return a * b;
      if (op == "div")
        return a / b;
      if (op == "mod")
        return a % b;
      if (op == "eq")
        return a == b;
      if (op == "ne")
        return a != b;
      if (op == "lt")
        return a < b;
      if (op == "le")
        return a <= b;
      if (op == "gt")
        return a > b;
      if (op == "ge")
        return a >= b;
      if (op == "minimum")
        return minimum(a, b);
      if (op == "maximum")
        return maximum(a, b);
      if (op == "pow")
        return pow(a, b);
      if constexpr (!std::is_floating_point_v<P>) {
        if (op == "and")
          return a & b;
        if (op == "or")
          return a | b;
        if (op == "xor")
          return a ^ b;
      }
      throw ProgramError("binary " + op + " is not defined for these operand types");
    }
  }
};

template <class B> Value<B> unary(const std::string& op, const Value<B>& x) {
  return std::visit(
      [&](const auto& a) -> Value<B> {
        using T = element_t<decltype(a)>;
        if constexpr (!std::is_same_v<T, bool>) {
          if (op == "neg")
            return -a;
        }
        if constexpr (!std::is_floating_point_v<T>) {
          if (op == "not")
            return ~a;
        }
        if (op == "abs")
          return abs(a);
        if (op == "sqrt")
          return sqrt(a);
        if (op == "exp")
          return exp(a);
        if (op == "log")
          return log(a);
        if (op == "log1p")
          return log1p(a);
        if (op == "expm1")
          return expm1(a);
        if (op == "sin")
          return sin(a);
        if (op == "cos")
          return cos(a);
        if (op == "tan")
          return tan(a);
        if (op == "tanh")
          return tanh(a);
        if (op == "isnan")
          return isnan(a);
        if (op == "isfinite")
          return isfinite(a);
        throw ProgramError("unary " + op + " is not defined for " +
                           std::string(dtype_name(dtype_v<T>)));
      },
      x);
}

/// where(cond, a, b) with a and b arrays or scalars.
template <class B>
Value<B> where_of(const Value<B>& cond, const Operand<B>& x, const Operand<B>& y) {
  return std::visit(
      [&](const auto& c) -> Value<B> {
        return visit_operands<B>(
            x, y, [&](const auto& a, const auto& b) -> Value<B> { return where(c, a, b); });
      },
      cond);
}

/// clip(x, lo, hi) with lo and hi arrays or scalars.
template <class B> Value<B> clip_of(const Value<B>& x, const Operand<B>& lo, const Operand<B>& hi) {
  return std::visit(
      [&](const auto& a) -> Value<B> {
        return visit_operands<B>(
            lo, hi, [&](const auto& l, const auto& h) -> Value<B> { return clip(a, l, h); });
      },
      x);
}

template <class B> Value<B> astype_of(const std::string& dtype, const Value<B>& x) {
  return std::visit(
      [&](const auto& a) -> Value<B> {
        if (dtype == "bool")
          return a.template astype<bool>();
        if (dtype == "int32")
          return a.template astype<std::int32_t>();
        if (dtype == "int64")
          return a.template astype<std::int64_t>();
        if (dtype == "float32")
          return a.template astype<float>();
        if (dtype == "float64")
          return a.template astype<double>();
        throw ProgramError("unknown dtype " + dtype);
      },
      x);
}

void expect_args(const Statement& s, std::size_t n) {
  if (s.args.size() != n)
    throw ProgramError(s.op + " takes " + std::to_string(n) + " arguments: " + s.text);
}

} // namespace

template <class B> Value<B> evaluate_elementwise(const Statement& s, const Values<B>& values) {
  if (s.op == "binary") {
    expect_args(s, 3);
    return visit_operands<B>(operand(values, s.args[1]), operand(values, s.args[2]),
                             Binary<B>{s.args[0]});
  }
  if (s.op == "unary") {
    expect_args(s, 2);
    return unary<B>(s.args[0], lookup(values, s.args[1]));
  }
  if (s.op == "where") {
    expect_args(s, 3);
    return where_of<B>(lookup(values, s.args[0]), operand(values, s.args[1]),
                       operand(values, s.args[2]));
  }
  if (s.op == "clip") {
    expect_args(s, 3);
    return clip_of<B>(lookup(values, s.args[0]), operand(values, s.args[1]),
                      operand(values, s.args[2]));
  }
  if (s.op == "astype") {
    expect_args(s, 2);
    return astype_of<B>(s.args[0], lookup(values, s.args[1]));
  }
  throw ProgramError("unknown operation: " + s.text);
}

template Value<Cpu> evaluate_elementwise<Cpu>(const Statement&, const Values<Cpu>&);
template Value<Auto> evaluate_elementwise<Auto>(const Statement&, const Values<Auto>&);

} // namespace chunked::differential
