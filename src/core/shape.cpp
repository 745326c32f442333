// SPDX-License-Identifier: Apache-2.0
// Shape: construction checks, sizes, strides and text form.
#include "core/checked.hpp"
#include <chunked/core/shape.hpp>

#include <cstdio>
#include <string>

namespace chunked {

Shape::Shape(std::initializer_list<index_t> extents) : Shape(std::vector<index_t>(extents)) {}

namespace {

/// "18446744073709551616" style text of a product that overflowed int64, approximately.
std::string approximate_product(const std::vector<index_t>& values, std::size_t times) {
  long double p = static_cast<long double>(times);
  for (index_t v : values)
    if (v != 0)
      p *= static_cast<long double>(v);
  char text[64];
  std::snprintf(text, sizeof text, "%.6Lg", p);
  return text;
}

} // namespace

Shape::Shape(std::vector<index_t> extents) : extents_(std::move(extents)) {
  for (std::size_t k = 0; k < extents_.size(); ++k)
    if (extents_[k] < 0)
      throw ValueError("shape extent " + std::to_string(extents_[k]) + " on axis " +
                       std::to_string(k) + " is negative; extents must be >= 0");
  // Zero extents are skipped, as NumPy does: (0, 2^40, 2^40) is as invalid as (2^40, 2^40), so
  // that no sub-product (a stride, a block's size) can overflow either.
  index_t n = 1;
  for (index_t e : extents_)
    if (e != 0 && detail::mul_overflows(n, e, n))
      throw ValueError("shape " + to_string() + " has " + approximate_product(extents_, 1) +
                       " elements (counting non-zero extents), more than int64 can count (at "
                       "most 9223372036854775807)");
}

index_t Shape::size() const {
  index_t n = 1;
  for (index_t e : extents_)
    n *= e; // cannot overflow: checked when the shape was made
  return n;
}

index_t Shape::operator[](index_t i) const {
  return extents_[static_cast<std::size_t>(normalize_axis(i, ndim()))];
}

std::vector<index_t> Shape::strides() const {
  std::vector<index_t> s(extents_.size());
  index_t acc = 1;
  for (std::size_t k = extents_.size(); k-- > 0;) {
    s[k] = acc;
    acc *= extents_[k];
  }
  return s;
}

std::string Shape::to_string() const { return detail::format_tuple(extents_); }

std::size_t detail::array_nbytes(const Shape& shape, std::size_t element_size) {
  index_t bytes = static_cast<index_t>(element_size);
  for (index_t e : shape)
    if (e != 0 && detail::mul_overflows(bytes, e, bytes))
      throw ValueError("an array of shape " + shape.to_string() + " with " +
                       std::to_string(element_size) + "-byte elements would take " +
                       approximate_product(shape.extents(), element_size) +
                       " bytes, more than int64 can count (at most 9223372036854775807, "
                       "NumPy's limit too)");
  return shape.size() == 0 ? 0 : static_cast<std::size_t>(bytes);
}

std::string detail::format_tuple(const std::vector<index_t>& values) {
  std::string s = "(";
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (k)
      s += ", ";
    s += std::to_string(values[k]);
  }
  if (values.size() == 1)
    s += ",";
  return s + ")";
}

index_t normalize_axis(index_t axis, index_t ndim) {
  const index_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim)
    throw IndexError("axis " + std::to_string(axis) + " is out of bounds for an array of rank " +
                     std::to_string(ndim) + "; expected an axis in [" + std::to_string(-ndim) +
                     ", " + std::to_string(ndim) + ")");
  return a;
}

} // namespace chunked
