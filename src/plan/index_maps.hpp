// SPDX-License-Identifier: Apache-2.0
// The planner's index arithmetic on AffineMap, the one type of an affine index map: a node's
// coordinates (one map per axis of the node), their composition through views, their
// flattening into a buffer's map, C-order layouts of boxes and where a grid's blocks lie, all
// overflow-checked.
#pragma once

#include "core/checked.hpp"
#include "plan/block_program.hpp"
#include <chunked/core/chunk_grid.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace chunked::plan {

/// A node's coordinates: per axis of the node, its index as an affine map of the iteration
/// position.
using Coords = std::vector<AffineMap>;

// Index maps are built with checked arithmetic (a ValueError, never a wrapped map): the backends
// then evaluate them per element unchecked, where every value they form is an index inside the
// buffer read or written (graph nodes keep views inside their inputs and sizes within int64).
inline constexpr const char* map_context = "planning an index map";

/// a + b * c, checked.
inline index_t add_mul(index_t a, index_t b, index_t c) {
  return chunked::detail::checked_add(a, chunked::detail::checked_mul(b, c, map_context),
                                      map_context);
}

/// m's value at position `pos` (its first `ndim` entries), checked: the index a box starting
/// at `pos` starts from.
inline index_t value_at(const AffineMap& m, std::span<const index_t> pos, int ndim) {
  index_t r = m.base;
  for (int k = 0; k < ndim; ++k)
    r = add_mul(r, m.coef[k], pos[k]);
  return r;
}

/// m moved to start at `pos`: the same coefficients, the base its value there.
inline AffineMap shifted(AffineMap m, std::span<const index_t> pos, int ndim) {
  m.base = value_at(m, pos, ndim);
  return m;
}

/// acc += w * m over the first `ndim` coefficients, checked.
inline void add_scaled(AffineMap& acc, index_t w, const AffineMap& m, int ndim) {
  acc.base = add_mul(acc.base, w, m.base);
  for (int k = 0; k < ndim; ++k)
    acc.coef[k] = add_mul(acc.coef[k], w, m.coef[k]);
}

/// start + step * m: m seen through an axis that maps index i to start + step * i (a view's
/// slice), checked.
inline AffineMap compose(index_t start, index_t step, const AffineMap& m, int ndim) {
  AffineMap r;
  r.base = start;
  add_scaled(r, step, m, ndim);
  return r;
}

/// The map of flat indices into a buffer of these strides, read at coordinates m:
/// sum_d strides[d] * m[d].
inline AffineMap flatten(const Coords& m, std::span<const index_t> strides, int ndim) {
  AffineMap map;
  for (std::size_t d = 0; d < m.size(); ++d)
    add_scaled(map, strides[d], m[d], ndim);
  return map;
}

inline Coords identity_coords(int ndim) {
  Coords m(static_cast<std::size_t>(ndim));
  for (int k = 0; k < ndim; ++k)
    m[k].coef[k] = 1;
  return m;
}

/// The values a map takes over a box: at the box's origin, the least and the greatest.
struct IndexRange {
  index_t start = 0, lo = 0, hi = 0;
};

/// The values m takes over the box of `extent` at `origin` (an extent of 0 counts as 1).
inline IndexRange range_over(const AffineMap& m, std::span<const index_t> origin,
                             std::span<const index_t> extent, int ndim) {
  IndexRange r;
  r.start = r.lo = r.hi = value_at(m, origin, ndim);
  for (int k = 0; k < ndim; ++k) {
    const index_t span =
        chunked::detail::checked_mul(m.coef[k], std::max<index_t>(0, extent[k] - 1), map_context);
    index_t& end = span < 0 ? r.lo : r.hi;
    end = chunked::detail::checked_add(end, span, map_context);
  }
  return r;
}

/// A C-order buffer over a box: the map from positions in the box to flat indices, and the
/// buffer's length.
struct Layout {
  AffineMap map;
  index_t elements = 1;
};

/// The C-order layout of a box of these extents. Axes in `skip` (bit k for axis k) take no room
/// and get coefficient 0: a reduction's partial entries laid out over the kept axes.
inline Layout c_order(std::span<const index_t> extents, std::uint32_t skip = 0) {
  Layout l;
  for (std::size_t k = extents.size(); k-- > 0;) {
    if ((skip >> k) & 1u)
      continue;
    l.map.coef[k] = l.elements;
    l.elements = chunked::detail::checked_mul(l.elements, extents[k], map_context);
  }
  return l;
}

/// Where block number `block` (C order over the grid) lies: its origin and extents.
inline void block_box(const ChunkGrid& grid, index_t block, int ndim,
                      std::array<index_t, max_ndim>& origin,
                      std::array<index_t, max_ndim>& extent) {
  for (int k = ndim; k-- > 0;) {
    const auto& lengths = grid.lengths(k);
    const auto nb = static_cast<index_t>(lengths.size());
    const index_t b = block % nb;
    block /= nb;
    origin[k] = grid.offsets(k)[b];
    extent[k] = lengths[b];
  }
}

/// The C-order index in a box of these extents of its element number `flat`.
inline void unflatten(index_t flat, std::span<const index_t> extents, std::span<index_t> at) {
  for (std::size_t d = extents.size(); d-- > 0;) {
    at[d] = flat % extents[d];
    flat /= extents[d];
  }
}

/// Steps `at` to the next index of the box [first, last] (both inclusive) in C order; false,
/// with `at` back at `first`, after the last one.
inline bool next_in_box(std::span<index_t> at, std::span<const index_t> first,
                        std::span<const index_t> last) {
  for (std::size_t d = at.size(); d-- > 0;) {
    if (++at[d] <= last[d])
      return true;
    at[d] = first[d];
  }
  return false;
}

} // namespace chunked::plan
