// SPDX-License-Identifier: Apache-2.0
// ops::Scalar, a constant parameter of an operation, and ops::LeafKind, the kinds of source values.
#pragma once

#include <cstdint>

namespace chunked::ops {

/// A scalar parameter: floating values live in f, integer and bool values in i.
struct Scalar {
  double f = 0;
  std::int64_t i = 0;
  friend bool operator==(const Scalar&, const Scalar&) = default;
};

/// Where the values of an array without inputs come from: the graph's random, constant and
/// arange arrays, and a block program's leaves (which add `stored`).
enum class LeafKind : std::uint8_t {
  constant, ///< every element is `a`
  normal,   ///< DESIGN section 4 normal at flat index map(i): mean a.f, stddev b.f
  uniform,  ///< uniform at flat index map(i) in [a.f, b.f) (random::uniform_form of the dtype)
  integers, ///< integers at flat index map(i) in [a.i, b.i)
  arange,   ///< a + map(i) * b: floats as NumPy's fill, T(a.f) + T(map(i)) * T(b.f) in the
            ///< dtype T, multiply and add each rounded (b.f is NumPy's increment, see
            ///< detail::arange_delta); integers in wrapping int64 arithmetic, then cast
  stored,   ///< element map(i) of the program's input buffer `input`, of the leaf's dtype
};

} // namespace chunked::ops
