// SPDX-License-Identifier: Apache-2.0
// Statements of the shape operations and scans (transpose, moveaxis, swapaxes, expand_dims,
// squeeze, broadcast_to, reshape, concatenate, stack, scan), through chunked's public API.
#include "values.hpp"

#include <vector>

namespace chunked::differential {

namespace {

void expect_args(const Statement& s, std::size_t n) {
  if (s.args.size() != n)
    throw ProgramError(s.op + " takes " + std::to_string(n) + " arguments: " + s.text);
}

/// f(x) for the array named by the statement's first argument.
template <class B, class F>
Value<B> with_array(const Statement& s, const Values<B>& values, F&& f) {
  return std::visit([&](const auto& x) -> Value<B> { return f(x); }, lookup(values, s.args[0]));
}

/// concatenate and stack: AXIS, then two or more arrays of one element type.
template <class B, class F> Value<B> joined(const Statement& s, const Values<B>& values, F&& f) {
  if (s.args.size() < 3)
    throw ProgramError(s.op + " takes an axis and two or more arrays: " + s.text);
  const index_t axis = std::stoll(s.args[0]);
  return std::visit(
      [&](const auto& first) -> Value<B> {
        using A = std::decay_t<decltype(first)>;
        std::vector<A> arrays{first};
        for (std::size_t k = 2; k < s.args.size(); ++k) {
          const auto* x = std::get_if<A>(&lookup(values, s.args[k]));
          if (x == nullptr)
            throw ProgramError(s.op + " of arrays of different dtypes: " + s.text);
          arrays.push_back(*x);
        }
        return f(arrays, axis);
      },
      lookup(values, s.args[1]));
}

} // namespace

bool is_shape_op(const std::string& op) {
  for (const char* name : {"transpose", "moveaxis", "swapaxes", "expand_dims", "squeeze",
                           "broadcast_to", "reshape", "concatenate", "stack", "scan"})
    if (op == name)
      return true;
  return false;
}

template <class B> Value<B> evaluate_shape(const Statement& s, const Values<B>& values) {
  if (s.op == "concatenate")
    return joined(s, values, [](const auto& arrays, index_t axis) -> Value<B> {
      return concatenate(arrays, axis);
    });
  if (s.op == "stack")
    return joined(s, values,
                  [](const auto& arrays, index_t axis) -> Value<B> { return stack(arrays, axis); });
  if (s.op == "scan") { // scan cumsum|cumprod VALUE AXIS
    expect_args(s, 3);
    const bool sum = s.args[0] == "cumsum";
    if (!sum && s.args[0] != "cumprod")
      throw ProgramError("unknown scan " + s.args[0]);
    const index_t axis = std::stoll(s.args[2]);
    return std::visit(
        [&](const auto& x) -> Value<B> { return sum ? cumsum(x, axis) : cumprod(x, axis); },
        lookup(values, s.args[1]));
  }
  // The others: OP VALUE ARGS...
  if (s.args.empty())
    throw ProgramError(s.op + " needs a value: " + s.text);
  if (s.op == "transpose") { // transpose VALUE AXES|n
    expect_args(s, 2);
    return with_array(s, values, [&](const auto& x) {
      return s.args[1] == "n" ? transpose(x) : transpose(x, parse_extents(s.args[1]));
    });
  }
  if (s.op == "moveaxis" || s.op == "swapaxes") { // OP VALUE AXIS AXIS
    expect_args(s, 3);
    const index_t a = std::stoll(s.args[1]), b = std::stoll(s.args[2]);
    const bool move = s.op == "moveaxis";
    return with_array(s, values,
                      [&](const auto& x) { return move ? moveaxis(x, a, b) : swapaxes(x, a, b); });
  }
  if (s.op == "expand_dims") { // expand_dims VALUE AXES (one axis: the index_t overload)
    expect_args(s, 2);
    const std::vector<index_t> axes = parse_extents(s.args[1]);
    return with_array(s, values, [&](const auto& x) {
      return axes.size() == 1 ? expand_dims(x, axes[0]) : expand_dims(x, Axes(axes));
    });
  }
  if (s.op == "squeeze") { // squeeze VALUE AXES|all
    expect_args(s, 2);
    const Axes axes = s.args[1] == "all" ? Axes{} : Axes(parse_extents(s.args[1]));
    return with_array(s, values, [&](const auto& x) { return squeeze(x, axes); });
  }
  if (s.op == "broadcast_to") { // broadcast_to VALUE SHAPE
    expect_args(s, 2);
    const Shape shape(parse_extents(s.args[1]));
    return with_array(s, values, [&](const auto& x) { return broadcast_to(x, shape); });
  }
  if (s.op == "reshape") { // reshape VALUE SHAPE (one extent may be -1)
    expect_args(s, 2);
    const std::vector<index_t> shape = parse_extents(s.args[1]);
    return with_array(s, values, [&](const auto& x) { return reshape(x, shape); });
  }
  throw ProgramError("unknown operation: " + s.text);
}

template Value<Cpu> evaluate_shape<Cpu>(const Statement&, const Values<Cpu>&);
template Value<Auto> evaluate_shape<Auto>(const Statement&, const Values<Auto>&);

} // namespace chunked::differential
