// SPDX-License-Identifier: Apache-2.0
// Shape: the extents of an N-dimensional array.
#pragma once

#include <chunked/core/error.hpp>
#include <chunked/core/types.hpp>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

namespace chunked {

/// The extent of each axis, outermost first (C order). A Shape of rank 0 describes a scalar.
///
/// Every extent is >= 0 and the product of the non-zero extents fits int64 (else ValueError when
/// the shape is made, as NumPy counts), so size() and strides() never overflow.
class Shape {
public:
  Shape() = default;
  Shape(std::initializer_list<index_t> extents);
  explicit Shape(std::vector<index_t> extents);

  /// Number of axes.
  index_t ndim() const { return static_cast<index_t>(extents_.size()); }
  /// Number of elements: the product of the extents (1 for rank 0).
  index_t size() const;
  /// Extent of axis i; negative i counts from the end.
  index_t operator[](index_t i) const;

  const std::vector<index_t>& extents() const { return extents_; }
  auto begin() const { return extents_.begin(); }
  auto end() const { return extents_.end(); }

  /// C-order strides in elements.
  std::vector<index_t> strides() const;

  friend bool operator==(const Shape&, const Shape&) = default;

  /// "(4, 5)", like NumPy ("(3,)" for rank 1, "()" for rank 0).
  std::string to_string() const;

private:
  std::vector<index_t> extents_;
};

namespace detail {
/// "(a, b)" / "(a,)" / "()": Python's tuple notation, used for shapes and chunk lengths.
std::string format_tuple(const std::vector<index_t>& values);
/// Bytes of an array of `shape` whose elements take `element_size` bytes. ValueError naming the
/// shape when they exceed int64 (NumPy's limit, size * itemsize <= the largest intp): every byte
/// count of an array that exists then fits both int64 and size_t.
std::size_t array_nbytes(const Shape& shape, std::size_t element_size);
} // namespace detail

/// Maps a possibly negative axis to [0, ndim), or throws IndexError naming the axis and rank.
index_t normalize_axis(index_t axis, index_t ndim);

} // namespace chunked
