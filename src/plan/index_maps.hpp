// SPDX-License-Identifier: Apache-2.0
// The planner's index arithmetic: a node's coordinates as affine functions of the iteration
// position, and their flattening into a buffer's AffineMap, all overflow-checked.
#pragma once

#include <chunked/core/checked.hpp>
#include <chunked/plan/block_program.hpp>

#include <array>
#include <vector>

namespace chunked::plan {

/// Index along one axis of a node as an affine function of the iteration position.
struct AxisAffine {
  index_t off = 0;
  std::array<index_t, max_ndim> c{};
  friend bool operator==(const AxisAffine&, const AxisAffine&) = default;
};
using Coords = std::vector<AxisAffine>;

// Index maps are built with checked arithmetic (a ValueError, never a wrapped map): the backends
// then evaluate them per element unchecked, where every value they form is an index inside the
// buffer read or written (graph nodes keep views inside their inputs and sizes within int64).
inline constexpr const char* map_context = "planning an index map";

/// a + b * c, checked.
inline index_t add_mul(index_t a, index_t b, index_t c) {
  return chunked::detail::checked_add(a, chunked::detail::checked_mul(b, c, map_context),
                                      map_context);
}

/// C-order strides of a box of these extents.
inline std::vector<index_t> c_strides(const std::vector<index_t>& extents) {
  std::vector<index_t> s(extents.size());
  index_t acc = 1;
  for (std::size_t k = extents.size(); k-- > 0;) {
    s[k] = acc;
    acc = chunked::detail::checked_mul(acc, extents[k], map_context);
  }
  return s;
}

/// The map of flat indices into a C-order buffer of these strides, read at coordinates m.
inline AffineMap flatten(const Coords& m, const std::vector<index_t>& strides, int ndim) {
  AffineMap map;
  for (std::size_t d = 0; d < m.size(); ++d) {
    map.base = add_mul(map.base, strides[d], m[d].off);
    for (int k = 0; k < ndim; ++k)
      map.coef[k] = add_mul(map.coef[k], strides[d], m[d].c[k]);
  }
  return map;
}

inline Coords identity_coords(int ndim) {
  Coords m(static_cast<std::size_t>(ndim));
  for (int k = 0; k < ndim; ++k)
    m[k].c[k] = 1;
  return m;
}

} // namespace chunked::plan
