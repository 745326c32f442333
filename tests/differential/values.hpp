// SPDX-License-Identifier: Apache-2.0
// The run-time values of a differential-test program: a ChunkedArray of any element type, or a
// Python-like scalar operand, and the evaluation of statements through chunked's public API.
#pragma once

#include "program.hpp"

#include <chunked/chunked.hpp>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <variant>

namespace chunked::differential {

/// An array of the program; its element type is known only at run time.
template <class B>
using Value =
    std::variant<ChunkedArray<bool, B>, ChunkedArray<std::int32_t, B>,
                 ChunkedArray<std::int64_t, B>, ChunkedArray<float, B>, ChunkedArray<double, B>>;

/// A Python scalar operand (b:1, i:-3, f:2.5): bool, int and float kinds for NEP 50.
using Scalar = std::variant<bool, std::int64_t, double>;

template <class B> using Operand = std::variant<Value<B>, Scalar>;

template <class B> using Values = std::map<std::string, Value<B>>;

/// A program the runner cannot interpret (not a chunked error).
class ProgramError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The array named `name`.
template <class B> const Value<B>& lookup(const Values<B>& values, const std::string& name) {
  const auto it = values.find(name);
  if (it == values.end())
    throw ProgramError("no value named " + name);
  return it->second;
}

/// A value name, or a scalar written b:0, i:-3 or f:2.5.
template <class B> Operand<B> operand(const Values<B>& values, const std::string& text) {
  if (text.size() > 2 && text[1] == ':') {
    const std::string v = text.substr(2);
    switch (text[0]) {
    case 'b':
      return Scalar{v != "0"};
    case 'i':
      return Scalar{static_cast<std::int64_t>(std::stoll(v))};
    case 'f':
      return Scalar{std::strtod(v.c_str(), nullptr)};
    default:
      break;
    }
  }
  return lookup(values, text);
}

/// Evaluates one statement through the public API; throws what chunked throws.
template <class B> Value<B> evaluate(const Statement& s, const Values<B>& values);

/// array, arange and full.
template <class B> Value<B> evaluate_leaf(const Statement& s);
/// binary, unary, where, clip and astype.
template <class B> Value<B> evaluate_elementwise(const Statement& s, const Values<B>& values);
/// index, reduce, moment, arg and rechunk.
template <class B> Value<B> evaluate_structure(const Statement& s, const Values<B>& values);
/// transpose, moveaxis, swapaxes, expand_dims, squeeze, broadcast_to, reshape, concatenate,
/// stack and scan.
template <class B> Value<B> evaluate_shape(const Statement& s, const Values<B>& values);
/// overlap: map_overlap of a weighted box stencil (integer arrays).
template <class B> Value<B> evaluate_overlap(const Statement& s, const Values<B>& values);
/// Whether evaluate_shape() takes `op`.
bool is_shape_op(const std::string& op);

/// Computes `value` and compares it with NumPy's; an empty string when it matches, else what
/// differs. `extra_ulps` widens the ulp tolerance (for GPU math libraries).
template <class B>
std::string compare(const Value<B>& value, const Check& check, const ComputeOptions& options,
                    std::int64_t extra_ulps);

} // namespace chunked::differential
