// SPDX-License-Identifier: Apache-2.0
// Shape operations that move data: reshape, concatenate, stack.
#pragma once

#include <chunked/array.hpp>

#include <initializer_list>
#include <vector>

namespace chunked {

// Unlike the views of shape_ops.hpp, these change which elements share a block, so the planner
// plans the copies their blocks need: each block of the result is an `assemble` task that copies
// rectangular pieces of the input blocks it overlaps into one buffer (a reshape's rows cut where
// they cross an input block; a concatenated block's box inside one operand). Live memory is the
// blocks being produced and the input blocks they still wait for, never the whole array. Where a
// result block is a whole input block in its own layout (a reshape between compatible grids, a
// concatenated block equal to an operand's), it is that block: nothing is copied. Arguments are
// checked when the array is made (DESIGN 8.9).

namespace detail {
graph::NodePtr concatenate(const std::vector<graph::NodePtr>& nodes, index_t axis);
graph::NodePtr stack(const std::vector<graph::NodePtr>& nodes, index_t axis);

template <class T, class B>
std::vector<graph::NodePtr> nodes_of(const ChunkedArray<T, B>* first, std::size_t count) {
  std::vector<graph::NodePtr> nodes;
  nodes.reserve(count);
  for (std::size_t j = 0; j < count; ++j)
    nodes.push_back(first[j].node());
  return nodes;
}
} // namespace detail

/// The elements of x in C order, in an array of `shape` (NumPy's `np.reshape`, order 'C'). One
/// extent may be -1: it is inferred from the others. Two -1s or any other negative extent is a
/// ValueError; a shape of another size, or a -1 next to extents whose product is 0, is a
/// ShapeError. The result's chunks are the library's choice: axes the reshape keeps keep their
/// chunks, merged or split axes get blocks of about an input block's size, laid out so that
/// whole input blocks map to whole output blocks where the chunk lengths allow (then nothing is
/// copied). Adding or removing axes of length 1 only is a view, as expand_dims and squeeze are.
///
/// @code
/// auto x = chunked::arange<double>(0, 12, 1, 4);        // (12,), chunks of 4
/// auto m = chunked::reshape(x, {3, -1});                // (3, 4), chunks (1, 4): no copies
/// auto t = chunked::reshape(chunked::transpose(m), {12}); // 3 elements per run
/// @endcode
template <class T, class B>
ChunkedArray<T, B> reshape(const ChunkedArray<T, B>& x, std::initializer_list<index_t> shape) {
  return x.reshape(shape);
}
/// As above, the shape given as a std::vector (with at most one -1).
template <class T, class B>
ChunkedArray<T, B> reshape(const ChunkedArray<T, B>& x, const std::vector<index_t>& shape) {
  return x.reshape(shape);
}
/// As above, the shape given as a Shape (no extent to infer).
template <class T, class B>
ChunkedArray<T, B> reshape(const ChunkedArray<T, B>& x, const Shape& shape) {
  return x.reshape(shape);
}
/// Reshaped onto exactly the regular grid `chunks` (resolved against the new shape as rechunk
/// resolves them: a rank that differs is a ShapeError, a length <= 0 a ValueError).
template <class T, class B>
ChunkedArray<T, B> reshape(const ChunkedArray<T, B>& x, std::initializer_list<index_t> shape,
                           const Chunks& chunks) {
  return x.reshape(shape, chunks);
}
template <class T, class B>
ChunkedArray<T, B> reshape(const ChunkedArray<T, B>& x, const std::vector<index_t>& shape,
                           const Chunks& chunks) {
  return x.reshape(shape, chunks);
}
template <class T, class B>
ChunkedArray<T, B> reshape(const ChunkedArray<T, B>& x, const Shape& shape, const Chunks& chunks) {
  return x.reshape(shape, chunks);
}

/// The arrays joined along `axis` (negative counts from the end), as `np.concatenate`. They
/// must share the element type and backend (the template enforces it: convert with astype<U>()
/// or to<B2>() first) and the rank, and their extents off the axis must be equal (ShapeError).
/// The chunks along the axis are the operands' chunks in order (Dask's rule); off the axis, every
/// operand's block boundaries. An empty list is a ValueError, an axis out of range an
/// IndexError, arrays of rank 0 a ValueError. One array is returned as it is.
///
/// @code
/// auto c = chunked::concatenate({a, b, c}, 0);
/// @endcode
template <class T, class B>
ChunkedArray<T, B> concatenate(std::initializer_list<ChunkedArray<T, B>> arrays, index_t axis = 0) {
  return ChunkedArray<T, B>(
      detail::concatenate(detail::nodes_of(arrays.begin(), arrays.size()), axis));
}
/// As above, from a std::vector (which may be empty only to raise the ValueError).
template <class T, class B>
ChunkedArray<T, B> concatenate(const std::vector<ChunkedArray<T, B>>& arrays, index_t axis = 0) {
  return ChunkedArray<T, B>(
      detail::concatenate(detail::nodes_of(arrays.data(), arrays.size()), axis));
}

/// The arrays, all of one shape (else a ShapeError), joined along a new axis at position `axis`
/// of the result, valid in [-ndim - 1, ndim] (IndexError otherwise), as `np.stack`: each gets an
/// axis of length 1 there (expand_dims) and they are concatenated along it, so the new axis has
/// one block per array. An empty list is a ValueError.
template <class T, class B>
ChunkedArray<T, B> stack(std::initializer_list<ChunkedArray<T, B>> arrays, index_t axis = 0) {
  return ChunkedArray<T, B>(detail::stack(detail::nodes_of(arrays.begin(), arrays.size()), axis));
}
template <class T, class B>
ChunkedArray<T, B> stack(const std::vector<ChunkedArray<T, B>>& arrays, index_t axis = 0) {
  return ChunkedArray<T, B>(detail::stack(detail::nodes_of(arrays.data(), arrays.size()), axis));
}

} // namespace chunked
