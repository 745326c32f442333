// SPDX-License-Identifier: Apache-2.0
// Shape: construction checks, sizes, strides and text form.
#include <chunked/core/shape.hpp>

#include <string>

namespace chunked {

Shape::Shape(std::initializer_list<index_t> extents) : Shape(std::vector<index_t>(extents)) {}

Shape::Shape(std::vector<index_t> extents) : extents_(std::move(extents)) {
  for (std::size_t k = 0; k < extents_.size(); ++k)
    if (extents_[k] < 0)
      throw ValueError("shape extent " + std::to_string(extents_[k]) + " on axis " +
                       std::to_string(k) + " is negative; extents must be >= 0");
}

index_t Shape::size() const {
  index_t n = 1;
  for (index_t e : extents_) n *= e;
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

std::string detail::format_tuple(const std::vector<index_t>& values) {
  std::string s = "(";
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (k) s += ", ";
    s += std::to_string(values[k]);
  }
  if (values.size() == 1) s += ",";
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
