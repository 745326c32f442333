// SPDX-License-Identifier: Apache-2.0
// A region of borrowed memory (from_host_view, from_device) that a plan's tasks read: a box of the
// caller's whole array, in place, with the whole array's strides.
#pragma once

#include <chunked/core/buffer.hpp>
#include <chunked/core/types.hpp>

#include <array>
#include <memory>

namespace chunked::plan {

/// The box of a borrowed array at `lo` of extents `extent` (its first `ndim` entries), as a Buffer
/// whose data() is the box's first element in the caller's memory and whose bytes() run to its
/// last element: a task reads it through a map with the whole array's `strides` (TaskInput::map).
/// A backend that cannot read the memory where it is (a GPU reading host memory or another
/// device's) copies the box packed in C order instead, and reads the copy through
/// TaskInput::packed. Plans own their regions (Plan::borrowed_regions); the regions hold the whole
/// array's buffer.
class BorrowedRegion final : public Buffer {
public:
  BorrowedRegion(std::shared_ptr<Buffer> whole, std::size_t element_bytes, int ndim,
                 const std::array<index_t, max_ndim>& lo,
                 const std::array<index_t, max_ndim>& extent,
                 const std::array<index_t, max_ndim>& strides)
      : Buffer(static_cast<char*>(whole->data()) +
                   offset(ndim, lo, strides) * static_cast<index_t>(element_bytes),
               span(ndim, extent, strides) * element_bytes, whole->space()),
        whole_(std::move(whole)), element_bytes_(element_bytes), ndim_(ndim), extent_(extent),
        strides_(strides) {}

  int ndim() const { return ndim_; }
  std::size_t element_bytes() const { return element_bytes_; }
  /// Extents of the box per axis.
  const std::array<index_t, max_ndim>& extent() const { return extent_; }
  /// The whole array's strides in elements (all non-negative).
  const std::array<index_t, max_ndim>& strides() const { return strides_; }
  /// Elements of the box (the size of its packed copy).
  index_t elements() const {
    index_t n = 1;
    for (int k = 0; k < ndim_; ++k)
      n *= extent_[k];
    return n;
  }
  /// The caller's whole buffer (its data() is the array's first element).
  const Buffer& whole() const { return *whole_; }

private:
  static index_t offset(int ndim, const std::array<index_t, max_ndim>& lo,
                        const std::array<index_t, max_ndim>& strides) {
    index_t o = 0;
    for (int k = 0; k < ndim; ++k)
      o += lo[k] * strides[k];
    return o;
  }
  /// Elements from the box's first element to past its last (0 for an empty box).
  static std::size_t span(int ndim, const std::array<index_t, max_ndim>& extent,
                          const std::array<index_t, max_ndim>& strides) {
    index_t last = 0;
    for (int k = 0; k < ndim; ++k) {
      if (extent[k] == 0)
        return 0;
      last += (extent[k] - 1) * strides[k];
    }
    return static_cast<std::size_t>(last + 1);
  }

  std::shared_ptr<Buffer> whole_;
  std::size_t element_bytes_;
  int ndim_;
  std::array<index_t, max_ndim> extent_;
  std::array<index_t, max_ndim> strides_;
};

} // namespace chunked::plan
