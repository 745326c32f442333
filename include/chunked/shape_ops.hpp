// SPDX-License-Identifier: Apache-2.0
// Shape operations that only change how elements are indexed: transpose, moveaxis, swapaxes,
// expand_dims, squeeze, broadcast_to.
#pragma once

#include <chunked/array.hpp>

#include <vector>

namespace chunked {

// Each of these makes a lazy view, as slicing does: no data moves until a block program reads
// it, and the planner folds the view into the index maps of the leaves below it. A transposed
// random array generates only the elements that are read; views, slices, elementwise operations
// and reductions compose in any order. Arguments are checked when the view is made.
//
// Errors (DESIGN 8.9): an axis out of range is an IndexError; a repeated axis or a permutation
// of the wrong length is a ValueError; squeezing an axis whose length is not 1 is a ValueError;
// shapes that do not broadcast are a ShapeError.

namespace detail {
graph::NodePtr moveaxis(const graph::NodePtr& node, const std::vector<index_t>& source,
                        const std::vector<index_t>& destination);
graph::NodePtr swapaxes(const graph::NodePtr& node, index_t axis1, index_t axis2);
graph::NodePtr expand_dims(const graph::NodePtr& node, const std::vector<index_t>& axes);
graph::NodePtr squeeze(const graph::NodePtr& node, const Axes& axes);
graph::NodePtr broadcast_to(const graph::NodePtr& node, const Shape& shape);
} // namespace detail

/// The axes reversed (NumPy's `np.transpose(x)`, `x.T`): element (i, j, k) of the result is
/// x's (k, j, i). The chunk grid is x's, reversed.
template <class T, class B> ChunkedArray<T, B> transpose(const ChunkedArray<T, B>& x) {
  return x.transpose();
}

/// The axes permuted: output axis k is x's axis `axes[k]` (negative counts from the end), as
/// `np.transpose(x, axes)`; the chunk grid is permuted the same way. ValueError for a list whose
/// length is not x.ndim() or that repeats an axis; IndexError for an axis out of range.
template <class T, class B>
ChunkedArray<T, B> transpose(const ChunkedArray<T, B>& x, const std::vector<index_t>& axes) {
  return x.transpose(axes);
}

/// Axis `source` moved to position `destination`, the others keeping their order
/// (`np.moveaxis`): moveaxis(x, 0, -1) of a (2, 3, 4) array has shape (3, 4, 2).
template <class T, class B>
ChunkedArray<T, B> moveaxis(const ChunkedArray<T, B>& x, index_t source, index_t destination) {
  return ChunkedArray<T, B>(detail::moveaxis(x.node(), {source}, {destination}));
}

/// Several axes moved at once: axis source[j] goes to position destination[j]. The lists must
/// have the same length and no repeated axis (ValueError).
template <class T, class B>
ChunkedArray<T, B> moveaxis(const ChunkedArray<T, B>& x, const std::vector<index_t>& source,
                            const std::vector<index_t>& destination) {
  return ChunkedArray<T, B>(detail::moveaxis(x.node(), source, destination));
}

/// Axes `axis1` and `axis2` exchanged (`np.swapaxes`); the same axis twice gives x.
template <class T, class B>
ChunkedArray<T, B> swapaxes(const ChunkedArray<T, B>& x, index_t axis1, index_t axis2) {
  return ChunkedArray<T, B>(detail::swapaxes(x.node(), axis1, axis2));
}

/// A new axis of length 1 (one block of length 1) at position `axis` of the result, valid in
/// [-ndim - 1, ndim] (`np.expand_dims`): expand_dims(x, 1) of a (2, 3) array has shape (2, 1, 3).
template <class T, class B>
ChunkedArray<T, B> expand_dims(const ChunkedArray<T, B>& x, index_t axis) {
  return ChunkedArray<T, B>(detail::expand_dims(x.node(), {axis}));
}

/// New axes at every position of `axes`, each counted in the result's rank (ndim + axes count),
/// as `np.expand_dims(x, (0, 2))`. Axes{} adds none.
template <class T, class B>
ChunkedArray<T, B> expand_dims(const ChunkedArray<T, B>& x, const Axes& axes) {
  return ChunkedArray<T, B>(detail::expand_dims(x.node(), axes.values()));
}

/// The axes of length 1 removed: every one of them with Axes{} (the default), else only those
/// given, each of which must have length 1 (ValueError). Differs from NumPy in one respect,
/// consistently with reductions: an empty Axes{} means every axis of length 1, where NumPy's
/// `squeeze(x, axis=())` removes none.
template <class T, class B>
ChunkedArray<T, B> squeeze(const ChunkedArray<T, B>& x, const Axes& axes = {}) {
  return ChunkedArray<T, B>(detail::squeeze(x.node(), axes));
}

/// x broadcast to `shape` by NumPy's rules (axes aligned from the last one; each of x's axes
/// must have length 1 or the target's), or a ShapeError naming both shapes. Broadcast axes (new
/// ones, and those of length 1 that grow) are one chunk each, as Dask's broadcast_to gives them;
/// the other axes keep x's chunks. Nothing is copied: every position of a broadcast axis reads
/// the same element.
template <class T, class B>
ChunkedArray<T, B> broadcast_to(const ChunkedArray<T, B>& x, const Shape& shape) {
  return ChunkedArray<T, B>(detail::broadcast_to(x.node(), shape));
}

} // namespace chunked
