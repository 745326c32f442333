// SPDX-License-Identifier: Apache-2.0
// Naive references of NumPy's shape operations on Dense arrays: transpose, moveaxis, the shapes
// of expand_dims and squeeze, and broadcast_to. Written from NumPy's documentation, not from the
// library's code (see reference.hpp).
#pragma once

#include "support/reference.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

namespace chunked::test {

/// np.transpose(a, perm): element idx of the result is a's element whose axis perm[k] index is
/// idx[k]. `perm` holds axes in [0, ndim).
template <class T> Dense<T> ref_transpose(const Dense<T>& a, const Extents& perm) {
  Extents shape(perm.size());
  for (std::size_t k = 0; k < perm.size(); ++k)
    shape[k] = a.shape()[static_cast<std::size_t>(perm[k])];
  return generate<T>(shape, [&](index_t i) {
    const Extents idx = unravel(i, shape);
    Extents src(perm.size());
    for (std::size_t k = 0; k < perm.size(); ++k)
      src[static_cast<std::size_t>(perm[k])] = idx[k];
    return a.at(src);
  });
}

/// The axes reversed.
inline Extents reversed_axes(index_t ndim) {
  Extents perm;
  for (index_t k = ndim; k-- > 0;)
    perm.push_back(k);
  return perm;
}

/// An axis counted from the end made non-negative (no range check: callers pass valid axes).
inline index_t nonneg_axis(index_t axis, index_t ndim) { return axis < 0 ? axis + ndim : axis; }

/// The permutation np.moveaxis makes, by NumPy's documented algorithm: the axes not moved in
/// their order, then each moved axis inserted at its destination in increasing destination order.
inline Extents moveaxis_perm(index_t ndim, Extents source, Extents destination) {
  for (auto& s : source)
    s = nonneg_axis(s, ndim);
  for (auto& d : destination)
    d = nonneg_axis(d, ndim);
  Extents order;
  for (index_t k = 0; k < ndim; ++k)
    if (std::find(source.begin(), source.end(), k) == source.end())
      order.push_back(k);
  std::vector<std::pair<index_t, index_t>> moves;
  for (std::size_t j = 0; j < source.size(); ++j)
    moves.emplace_back(destination[j], source[j]);
  std::sort(moves.begin(), moves.end());
  for (const auto& [dest, src] : moves)
    order.insert(order.begin() + dest, src);
  return order;
}

/// The same elements in C order under another shape of the same size (what expand_dims and
/// squeeze do to the values).
template <class T> Dense<T> with_shape(const Dense<T>& a, const Extents& shape) {
  if (numel(shape) != a.size())
    throw std::invalid_argument("with_shape: sizes differ");
  return Dense<T>(shape, a.values());
}

/// np.broadcast_to(a, shape), for shapes that broadcast.
template <class T> Dense<T> ref_broadcast_to(const Dense<T>& a, const Extents& shape) {
  return generate<T>(shape, [&](index_t i) { return broadcast_read(a, unravel(i, shape)); });
}

} // namespace chunked::test
