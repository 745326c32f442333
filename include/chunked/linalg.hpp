// SPDX-License-Identifier: Apache-2.0
// Linear algebra: matmul, dot and tensordot of chunked arrays, with NumPy's semantics.
#pragma once

#include <chunked/array.hpp>
#include <chunked/detail/promotion.hpp>

#include <type_traits>
#include <utility>
#include <vector>

namespace chunked {

// How a product is computed. Each block of the result is the sum, over the blocks of the
// contracted axes in order, of products of one block of each operand: block (i, j) of a @ b is
// a(i, 0) @ b(0, j) + a(i, 1) @ b(1, j) + ..., every term added into the block in that order, so
// the result is bitwise the same on any thread, GPU or rank count (though, as for sums, it may
// change in its last bits when the chunking of the contracted axes changes). Blocks multiply with
// cuBLAS on `Cuda` and with the CPU BLAS chunked was built with on `Cpu` (one BLAS thread per
// task: the library's workers are the parallelism, and a BLAS's own threads would change the
// bits with their count; so on the CPU a product runs on as many cores as its result has
// blocks). Live memory is the blocks in flight, never the operands' size: a product reads each
// operand block when it needs it, and operands in host memory stream to the GPU block by block.
//
// Operand chunkings need not agree: along each contracted axis (and each batch axis of matmul)
// the operand with the smaller blocks there is rechunked to the other's blocks first. Elementwise
// operations that produce an operand are computed into the blocks the products read.
//
// Element types: float and double (float with double gives double). Integer and bool operands
// are a ValueError: cast them to a floating type first (an exact integer product, as NumPy
// computes it, is not provided).
//
// Errors: operands of rank 0 for matmul, unequal or repeated tensordot axis lists are
// ValueErrors; an axis out of range is an IndexError; contracted extents that differ, or batch
// shapes that do not broadcast, are ShapeErrors naming both shapes.

namespace detail {
graph::NodePtr matmul(const graph::NodePtr& a, const graph::NodePtr& b);
graph::NodePtr dot(const graph::NodePtr& a, const graph::NodePtr& b);
graph::NodePtr tensordot(const graph::NodePtr& a, const graph::NodePtr& b,
                         const std::vector<index_t>& axes_a, const std::vector<index_t>& axes_b);
graph::NodePtr tensordot(const graph::NodePtr& a, const graph::NodePtr& b, index_t axes);

/// The result type of a product of T and U arrays (the checks at the call refuse non-floats).
template <class T, class U> using product_t = promote_t<T, U>;
} // namespace detail

/// The matrix product with NumPy's `matmul` semantics (`a @ b`):
/// - 2-D: (m, k) @ (k, n) is (m, n);
/// - N-D: a stack of matrices over the last two axes; the leading (batch) axes broadcast, so
///   (5, 1, m, k) @ (3, k, n) is (5, 3, m, n);
/// - 1-D: a vector operand is a matrix with one row (a) or one column (b), that axis then
///   removed from the result: (k) @ (k, n) is (n), (k) @ (k) is a 0-d array.
/// A contracted axis of length 0 gives zeros. ValueError for a 0-d operand.
template <class T, class U, class B>
ChunkedArray<detail::product_t<T, U>, B> matmul(const ChunkedArray<T, B>& a,
                                                const ChunkedArray<U, B>& b) {
  return ChunkedArray<detail::product_t<T, U>, B>(detail::matmul(a.node(), b.node()));
}

/// NumPy's `dot`: for 1-D and 2-D operands the same as matmul; an N-D `a` with a 1-D `b` sums
/// over a's last axis; N-D with M-D (M >= 2) sums a's last axis against b's second-to-last, and
/// the result's axes are a's others, then b's others (`dot(a, b)[i, j, k, m] =
/// sum(a[i, j, :] * b[k, :, m])`). A 0-d operand multiplies elementwise.
template <class T, class U, class B>
ChunkedArray<detail::product_t<T, U>, B> dot(const ChunkedArray<T, B>& a,
                                             const ChunkedArray<U, B>& b) {
  using R = detail::product_t<T, U>;
  if (a.ndim() == 0 || b.ndim() == 0) {
    detail::dot(a.node(), b.node()); // the dtype check, for the same error
    return a.template astype<R>() * b.template astype<R>();
  }
  return ChunkedArray<R, B>(detail::dot(a.node(), b.node()));
}

/// The sum of products over the axis pairs (axes.first[j] of a, axes.second[j] of b), as NumPy's
/// `tensordot(a, b, axes=(axes_a, axes_b))`; the result's axes are a's free axes in order, then
/// b's. `tensordot(a, b, {{1}, {0}})` of 2-D operands is matmul.
template <class T, class U, class B>
ChunkedArray<detail::product_t<T, U>, B>
tensordot(const ChunkedArray<T, B>& a, const ChunkedArray<U, B>& b,
          const std::pair<std::vector<index_t>, std::vector<index_t>>& axes) {
  return ChunkedArray<detail::product_t<T, U>, B>(
      detail::tensordot(a.node(), b.node(), axes.first, axes.second));
}

/// `tensordot(a, b, n)`: a's last n axes against b's first n, in order (NumPy's integer `axes`;
/// the default 2). A negative n, or one larger than either rank, is a ValueError.
template <class T, class U, class B>
ChunkedArray<detail::product_t<T, U>, B> tensordot(const ChunkedArray<T, B>& a,
                                                   const ChunkedArray<U, B>& b, index_t axes = 2) {
  return ChunkedArray<detail::product_t<T, U>, B>(detail::tensordot(a.node(), b.node(), axes));
}

} // namespace chunked
