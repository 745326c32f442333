// SPDX-License-Identifier: Apache-2.0
// Scans: cumulative sums and products along one axis (DESIGN 8.2).
#pragma once

#include <chunked/array.hpp>

namespace chunked {

// A scan is lazy like a reduction: it builds a node, checks its axis at once and computes
// nothing. Rules (DESIGN 8.9): the result keeps the shape and the chunk grid; bool, int32 and
// int64 accumulate and give int64 (integer overflow wraps, as NumPy's does); float and double
// keep their type; a NaN propagates to every later element along the axis. An axis outside
// [-ndim, ndim) is an IndexError (so is any axis of a 0-d array).
//
// The order of operations is fixed by the chunk grid alone, so a result is bitwise the same on
// any thread or GPU count: each block is scanned along the axis in index order, and the carried
// prefix of the blocks before it along the axis (their running total, combined in block order)
// is then combined with every element. Float results depend on the chunking in their last bits
// (as a reduction's do) and may differ between the CPU and CUDA backends in the last bits;
// integer results are exact everywhere. Under ComputeOptions::exact_sums a float cumsum is
// exact: each element is its prefix's exact sum, correctly rounded, the same bits on every
// chunking and backend.

/// The cumulative sum of x along `axis`: element i of the result is x[0] + ... + x[i] along that
/// axis, as `np.cumsum(x, axis)`.
///
/// @code
/// auto x = chunked::arange<std::int32_t>(1, 6, 1, /*chunk=*/2);    // 1 2 3 4 5
/// auto c = chunked::cumsum(x, 0);                                   // int64: 1 3 6 10 15
/// @endcode
template <class T, class B>
ChunkedArray<detail::sum_t<T>, B> cumsum(const ChunkedArray<T, B>& x, index_t axis) {
  return x.cumsum(axis);
}

/// The cumulative product of x along `axis`, as `np.cumprod(x, axis)`.
template <class T, class B>
ChunkedArray<detail::sum_t<T>, B> cumprod(const ChunkedArray<T, B>& x, index_t axis) {
  return x.cumprod(axis);
}

} // namespace chunked
