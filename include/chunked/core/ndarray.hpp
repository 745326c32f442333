// SPDX-License-Identifier: Apache-2.0
// NDArray<T>: a dense host array in C order, the result of compute().
#pragma once

#include <chunked/core/buffer.hpp>
#include <chunked/core/error.hpp>
#include <chunked/core/shape.hpp>
#include <chunked/core/view.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

namespace chunked {

/// Dense, owning, C-order host array. Unlike std::vector<bool>, NDArray<bool> stores one byte per
/// element so that data() and span() work for every element type.
template <class T> class NDArray {
public:
  using value_type = T;

  NDArray() : NDArray(Shape{0}) {}
  /// Storage for `shape`, every value zero. ValueError when its bytes would exceed int64,
  /// OutOfMemory when they cannot be allocated.
  explicit NDArray(Shape shape) : NDArray(uninitialized(std::move(shape))) {
    std::memset(data_.get(), 0, bytes_of(size_)); // all-zero bits are 0 for every element type
  }
  /// Storage for `shape` whose values are unspecified until written: for code that writes every
  /// element next (compute() does), which then touches the memory once instead of twice.
  static NDArray uninitialized(Shape shape) { return NDArray(std::move(shape), Raw{}); }
  NDArray(Shape shape, std::span<const T> values) : NDArray(std::move(shape), Raw{}) {
    if (static_cast<index_t>(values.size()) != size_)
      throw ShapeError("NDArray: " + std::to_string(values.size()) + " values given for shape " +
                       shape_.to_string() + " of " + std::to_string(size_) + " elements");
    std::copy(values.begin(), values.end(), data_.get());
  }
  NDArray(const NDArray& o) : NDArray(o.shape_, std::span<const T>(o.data(), o.size_)) {}
  NDArray& operator=(const NDArray& o) {
    if (this != &o)
      *this = NDArray(o);
    return *this;
  }
  NDArray(NDArray&&) noexcept = default;
  NDArray& operator=(NDArray&&) noexcept = default;

  const Shape& shape() const { return shape_; }
  index_t ndim() const { return shape_.ndim(); }
  index_t size() const { return size_; }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::span<T> span() { return {data_.get(), static_cast<std::size_t>(size_)}; }
  std::span<const T> span() const { return {data_.get(), static_cast<std::size_t>(size_)}; }
  T* begin() { return data_.get(); }
  T* end() { return data_.get() + size_; }
  const T* begin() const { return data_.get(); }
  const T* end() const { return data_.get() + size_; }

  /// Element at a full multi-index (negative indices count from the end); IndexError when out of
  /// range or when the number of indices differs from ndim().
  template <class... I> T& operator()(I... index) {
    return data_[offset_of(std::array<index_t, sizeof...(I)>{static_cast<index_t>(index)...})];
  }
  template <class... I> const T& operator()(I... index) const {
    return data_[offset_of(std::array<index_t, sizeof...(I)>{static_cast<index_t>(index)...})];
  }

  /// The only element; ShapeError unless size() == 1.
  T item() const {
    if (size_ != 1)
      throw ShapeError("item(): the array has shape " + shape_.to_string() + " (" +
                       std::to_string(size_) + " elements); expected exactly one element");
    return data_[0];
  }

  // ---- Views (interop): the array's memory as chunked::View / std::mdspan, not a copy
  /// The array's memory as a View with C-order strides; valid while the NDArray lives and is
  /// not moved from or assigned to.
  View<T> view() { return View<T>::c_order(data_.get(), shape_); }
  View<const T> view() const { return View<const T>::c_order(data_.get(), shape_); }
#if defined(__cpp_lib_mdspan)
  /// The same as a std::mdspan of rank N (N must equal ndim()), where the library has mdspan.
  template <std::size_t N> auto mdspan() { return view().template to_mdspan<N>(); }
  template <std::size_t N> auto mdspan() const { return view().template to_mdspan<N>(); }
#endif

private:
  struct Raw {};
  // array_nbytes raises ValueError for a shape whose bytes exceed int64, so that bytes_of never
  // wraps; an allocation that fails is an OutOfMemory.
  NDArray(Shape shape, Raw)
      : shape_(std::move(shape)), size_(shape_.size()),
        data_(static_cast<T*>(detail::allocate_host(detail::array_nbytes(shape_, sizeof(T)))),
              Free{bytes_of(size_)}) {}

  template <std::size_t N> std::size_t offset_of(const std::array<index_t, N>& index) const {
    if (static_cast<index_t>(N) != shape_.ndim())
      throw IndexError("NDArray of shape " + shape_.to_string() + " indexed with " +
                       std::to_string(N) + " indices; expected " + std::to_string(shape_.ndim()));
    index_t off = 0;
    for (std::size_t k = 0; k < N; ++k) {
      const index_t n = shape_[static_cast<index_t>(k)];
      index_t i = index[k] < 0 ? index[k] + n : index[k];
      if (i < 0 || i >= n)
        throw IndexError("index " + std::to_string(index[k]) + " is out of bounds for axis " +
                         std::to_string(k) + " with size " + std::to_string(n));
      off = off * n + i;
    }
    return static_cast<std::size_t>(off);
  }

  Shape shape_;
  index_t size_ = 0;
  static std::size_t bytes_of(index_t n) { return static_cast<std::size_t>(n) * sizeof(T); }
  struct Free {
    std::size_t bytes = 0;
    void operator()(T* p) const noexcept { detail::free_host(p, bytes); }
  };
  std::unique_ptr<T[], Free> data_;
};

} // namespace chunked
