// SPDX-License-Identifier: Apache-2.0
// Statements that make arrays (array, arange, full) or change their structure (index, reduce,
// moment, arg, rechunk), through chunked's public API.
#include "values.hpp"

#include <cstdlib>
#include <memory>
#include <optional>
#include <type_traits>

namespace chunked::differential {

namespace {

void expect_args(const Statement& s, std::size_t n) {
  if (s.args.size() != n)
    throw ProgramError(s.op + " takes " + std::to_string(n) + " arguments: " + s.text);
}

/// Calls f(T{}) for the element type named `dtype`.
template <class F> decltype(auto) with_dtype(const std::string& dtype, F&& f) {
  if (dtype == "bool")
    return f(bool{});
  if (dtype == "int32")
    return f(std::int32_t{});
  if (dtype == "int64")
    return f(std::int64_t{});
  if (dtype == "float32")
    return f(float{});
  if (dtype == "float64")
    return f(double{});
  throw ProgramError("unknown dtype " + dtype);
}

Chunks parse_chunks(const std::string& text) { return Chunks(parse_extents(text)); }

template <class B> Value<B> make_array(const Statement& s) {
  // array DTYPE SHAPE CHUNKS VALUES...
  if (s.args.size() < 3)
    throw ProgramError("array takes a dtype, shape, chunks and values: " + s.text);
  const Shape shape(parse_extents(s.args[1]));
  const auto n = static_cast<std::size_t>(shape.size());
  if (s.args.size() != 3 + n)
    throw ProgramError("array: " + std::to_string(s.args.size() - 3) + " values for " +
                       shape.to_string() + ": " + s.text);
  return with_dtype(s.args[0], [&](auto t) -> Value<B> {
    using T = decltype(t);
    // A plain buffer, not std::vector (std::vector<bool> is not contiguous).
    auto data = std::make_unique<T[]>(n);
    for (std::size_t i = 0; i < n; ++i)
      data[i] = parse_number<T>(s.args[3 + i]);
    return from_host<B>(std::span<const T>(data.get(), n), shape, parse_chunks(s.args[2]));
  });
}

template <class B> Value<B> make_arange(const Statement& s) {
  // arange DTYPE START STOP STEP CHUNK
  expect_args(s, 5);
  return with_dtype(s.args[0], [&](auto t) -> Value<B> {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool>) {
      throw ProgramError("arange of bool: " + s.text);
    } else {
      return arange<T, B>(parse_number<T>(s.args[1]), parse_number<T>(s.args[2]),
                          parse_number<T>(s.args[3]), std::stoll(s.args[4]));
    }
  });
}

template <class B> Value<B> make_full(const Statement& s) {
  // full DTYPE SHAPE CHUNKS VALUE
  expect_args(s, 4);
  return with_dtype(s.args[0], [&](auto t) -> Value<B> {
    using T = decltype(t);
    return full<T, B>(Shape(parse_extents(s.args[1])), parse_chunks(s.args[2]),
                      parse_number<T>(s.args[3]));
  });
}

/// One index argument: i:N or s:START:STOP:STEP (n for none).
using IndexArg = std::variant<index_t, Slice>;

IndexArg parse_index(const std::string& text) {
  if (text.rfind("i:", 0) == 0)
    return static_cast<index_t>(std::stoll(text.substr(2)));
  std::vector<std::string> parts;
  std::size_t from = 2;
  for (std::size_t colon; (colon = text.find(':', from)) != std::string::npos; from = colon + 1)
    parts.push_back(text.substr(from, colon - from));
  parts.push_back(text.substr(from));
  if (text.rfind("s:", 0) != 0 || parts.size() != 3)
    throw ProgramError("bad index argument " + text);
  auto bound = [](const std::string& b) -> Bound {
    if (b == "n")
      return none;
    return static_cast<index_t>(std::stoll(b));
  };
  return slice(bound(parts[0]), bound(parts[1]), std::stoll(parts[2]));
}

/// x(args...) with the run-time list of integers and slices turned into the call's arguments.
template <class B, class A, class... Done>
Value<B> index_with(const A& x, const std::vector<IndexArg>& args, std::size_t k, Done... done) {
  if (k == args.size())
    return x(done...);
  if constexpr (sizeof...(Done) < 4) {
    if (const auto* i = std::get_if<index_t>(&args[k]))
      return index_with<B>(x, args, k + 1, done..., *i);
    return index_with<B>(x, args, k + 1, done..., std::get<Slice>(args[k]));
  } else {
    throw ProgramError("more than four index arguments");
  }
}

template <class B> Value<B> index_of(const Statement& s, const Values<B>& values) {
  if (s.args.empty())
    throw ProgramError("index needs a value: " + s.text);
  std::vector<IndexArg> args;
  for (std::size_t k = 1; k < s.args.size(); ++k)
    args.push_back(parse_index(s.args[k]));
  return std::visit([&](const auto& x) { return index_with<B>(x, args, 0); },
                    lookup(values, s.args[0]));
}

Axes parse_axes(const std::string& text) {
  return text == "all" ? Axes{} : Axes(parse_extents(text));
}

template <class B> Value<B> reduce_of(const Statement& s, const Values<B>& values) {
  // reduce OP VALUE AXES KEEPDIMS
  expect_args(s, 4);
  const std::string& op = s.args[0];
  const Axes axes = parse_axes(s.args[2]);
  const bool keep = s.args[3] == "1";
  return std::visit(
      [&](const auto& x) -> Value<B> {
        if (op == "sum")
          return x.sum(axes, keep);
        if (op == "prod")
          return x.prod(axes, keep);
        if (op == "min")
          return x.min(axes, keep);
        if (op == "max")
          return x.max(axes, keep);
        if (op == "mean")
          return x.mean(axes, keep);
        if (op == "any")
          return x.any(axes, keep);
        if (op == "all")
          return x.all(axes, keep);
        throw ProgramError("unknown reduction " + op);
      },
      lookup(values, s.args[1]));
}

template <class B> Value<B> moment_of(const Statement& s, const Values<B>& values) {
  // moment var|std VALUE AXES DDOF KEEPDIMS
  expect_args(s, 5);
  const Axes axes = parse_axes(s.args[2]);
  const index_t ddof = std::stoll(s.args[3]);
  const bool keep = s.args[4] == "1";
  const bool var = s.args[0] == "var";
  if (!var && s.args[0] != "std")
    throw ProgramError("unknown moment " + s.args[0]);
  return std::visit(
      [&](const auto& x) -> Value<B> {
        if (var)
          return x.var(axes, ddof, keep);
        return x.std(axes, ddof, keep);
      },
      lookup(values, s.args[1]));
}

template <class B> Value<B> arg_of(const Statement& s, const Values<B>& values) {
  // arg argmin|argmax VALUE AXIS (n for none)
  expect_args(s, 3);
  std::optional<int> axis;
  if (s.args[2] != "n")
    axis = std::stoi(s.args[2]);
  const bool min = s.args[0] == "argmin";
  if (!min && s.args[0] != "argmax")
    throw ProgramError("unknown arg reduction " + s.args[0]);
  return std::visit(
      [&](const auto& x) -> Value<B> { return min ? x.argmin(axis) : x.argmax(axis); },
      lookup(values, s.args[1]));
}

} // namespace

template <class B> Value<B> evaluate_leaf(const Statement& s) {
  if (s.op == "array")
    return make_array<B>(s);
  if (s.op == "arange")
    return make_arange<B>(s);
  if (s.op == "full")
    return make_full<B>(s);
  throw ProgramError("unknown operation: " + s.text);
}

template <class B> Value<B> evaluate_structure(const Statement& s, const Values<B>& values) {
  if (s.op == "index")
    return index_of<B>(s, values);
  if (s.op == "reduce")
    return reduce_of<B>(s, values);
  if (s.op == "moment")
    return moment_of<B>(s, values);
  if (s.op == "arg")
    return arg_of<B>(s, values);
  if (s.op == "rechunk") {
    expect_args(s, 2);
    return std::visit([&](const auto& x) -> Value<B> { return x.rechunk(parse_chunks(s.args[1])); },
                      lookup(values, s.args[0]));
  }
  throw ProgramError("unknown operation: " + s.text);
}

template <class B> Value<B> evaluate(const Statement& s, const Values<B>& values) {
  if (s.op == "array" || s.op == "arange" || s.op == "full")
    return evaluate_leaf<B>(s);
  if (s.op == "binary" || s.op == "unary" || s.op == "where" || s.op == "clip" || s.op == "astype")
    return evaluate_elementwise<B>(s, values);
  if (s.op == "overlap")
    return evaluate_overlap<B>(s, values);
  if (is_shape_op(s.op))
    return evaluate_shape<B>(s, values);
  return evaluate_structure<B>(s, values);
}

template Value<Cpu> evaluate<Cpu>(const Statement&, const Values<Cpu>&);
template Value<Auto> evaluate<Auto>(const Statement&, const Values<Auto>&);

} // namespace chunked::differential
