// SPDX-License-Identifier: Apache-2.0
// Array creation: constants, ranges and copies of host data.
#pragma once

#include <chunked/array.hpp>

#include <cmath>
#include <ranges>
#include <span>

namespace chunked {

namespace detail {
graph::NodePtr constant(const Shape& shape, const Chunks& chunks, DType t, double f,
                        std::int64_t i);
/// Number of elements of arange(start, stop, step): NumPy's ceil((stop - start) / step), exact for
/// integers whatever stop - start; ValueError for a zero or non-finite argument or for more
/// elements than int64 counts.
index_t arange_length(double start, double stop, double step);
index_t arange_length(std::int64_t start, std::int64_t stop, std::int64_t step);
/// The increment of a floating arange of `length` elements of dtype t: (start + step) - start
/// rounded as NumPy rounds it (the sum in double, then both in t); 0 when length <= 1, where it
/// is never used (and an infinite one would turn element 0 into NaN).
double arange_delta(double start, double step, DType t, index_t length);
} // namespace detail

/// An array of `shape` whose every element is `value`.
template <class T, class B = Cpu>
ChunkedArray<T, B> full(const Shape& shape, const Chunks& chunks, T value) {
  return ChunkedArray<T, B>(
      detail::constant(shape, chunks, dtype_v<T>, static_cast<double>(value),
                       std::is_floating_point_v<T> ? 0 : static_cast<std::int64_t>(value)));
}
template <class T, class B = Cpu>
ChunkedArray<T, B> zeros(const Shape& shape, const Chunks& chunks) {
  return full<T, B>(shape, chunks, T(0));
}
template <class T, class B = Cpu>
ChunkedArray<T, B> ones(const Shape& shape, const Chunks& chunks) {
  return full<T, B>(shape, chunks, T(1));
}

/// Values start, start + step, ... below stop (above it for a negative step), in chunks of
/// `chunk` elements: ceil((stop - start) / step) of them, as NumPy counts (exactly, for integers).
///
/// Integer element i is start + i * step exactly (its value always fits T, even where stop - start
/// does not). Floating element i is computed as NumPy computes it,
/// `start + T(i) * delta` with `delta = T(start + step) - start` (the sum in double, then every
/// operation in T, rounded once each and never fused), so that the values equal `np.arange`'s bit
/// for bit: `arange<double>(0.0, 1.0, 0.1, 4)` holds what `np.arange(0.0, 1.0, 0.1)` does.
/// ValueError for a zero step, non-finite arguments, or more elements than int64 counts.
template <class T, class B = Cpu>
ChunkedArray<T, B> arange(T start, T stop, T step, index_t chunk) {
  static_assert(!std::is_same_v<T, bool>, "arange does not support bool");
  ops::Scalar a, s;
  index_t n;
  if constexpr (std::is_floating_point_v<T>) {
    n = detail::arange_length(static_cast<double>(start), static_cast<double>(stop),
                              static_cast<double>(step));
    a.f = static_cast<double>(start);
    s.f =
        detail::arange_delta(static_cast<double>(start), static_cast<double>(step), dtype_v<T>, n);
  } else {
    n = detail::arange_length(static_cast<std::int64_t>(start), static_cast<std::int64_t>(stop),
                              static_cast<std::int64_t>(step));
    a.i = start;
    s.i = step;
  }
  return ChunkedArray<T, B>(graph::make_arange(n, chunk, dtype_v<T>, a, s));
}

/// Copies dense C-order host data now; the array does not refer to `data` afterwards. For the
/// Cuda backend (and Auto with a usable GPU) the copy lives in pinned host memory, so that
/// computations move it to the GPUs asynchronously and at the bus's full rate.
template <class B = Cpu, class T>
ChunkedArray<std::remove_const_t<T>, B> from_host(std::span<T> data, const Shape& shape,
                                                  const Chunks& chunks) {
  using U = std::remove_const_t<T>;
  if (static_cast<index_t>(data.size()) != shape.size())
    throw ShapeError("from_host: " + std::to_string(data.size()) + " values given for shape " +
                     shape.to_string() + " of " + std::to_string(shape.size()) + " elements");
  return ChunkedArray<U, B>(detail::store_host_data(
      data.data(), dtype_v<U>, shape, chunks.resolve(shape, sizeof(U)), backend_traits<B>::kind));
}
/// The same from any contiguous range of elements (std::vector, std::array, ...).
template <class B = Cpu, std::ranges::contiguous_range R>
requires is_element_type_v<std::ranges::range_value_t<R>>
auto from_host(const R& data, const Shape& shape, const Chunks& chunks) {
  return from_host<B>(std::span<const std::ranges::range_value_t<R>>(std::ranges::data(data),
                                                                     std::ranges::size(data)),
                      shape, chunks);
}
template <class B = Cpu, class T>
ChunkedArray<T, B> from_host(const NDArray<T>& data, const Chunks& chunks) {
  return from_host<B>(data.span(), data.shape(), chunks);
}

} // namespace chunked
