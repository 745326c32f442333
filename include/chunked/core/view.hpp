// SPDX-License-Identifier: Apache-2.0
// View<T>: a non-owning strided view of dense memory (NDArray::view(), from_host_view), and its
// std::mdspan form where the standard library has one.
#pragma once

#include <chunked/core/shape.hpp>
#include <chunked/core/types.hpp>

#include <cstddef>
#include <type_traits>
#include <vector>
#if __has_include(<version>)
#include <version>
#endif
#if defined(__cpp_lib_mdspan)
#include <array>
#include <mdspan>
#endif

namespace chunked {

/// A non-owning view of an N-d array in memory: element (i_0, ..., i_{n-1}) is
/// `data[sum_k i_k * strides[k]]`, strides counted in elements (not bytes), one per axis of
/// `shape`. It holds no memory: whoever made it keeps `data` alive while the view is used.
///
/// `NDArray<T>::view()` gives one (C-order strides); `from_host_view(View<const T>, chunks)` reads
/// one in place (it must be contiguous in C order). With a standard library that has
/// `std::mdspan` (`__cpp_lib_mdspan`), `to_mdspan<N>()` gives the same view as a
/// `std::mdspan<T, std::dextents<index_t, N>, std::layout_stride>`.
template <class T> struct View {
  T* data = nullptr;
  Shape shape;
  std::vector<index_t> strides; ///< per axis, in elements

  /// C-order strides of `shape`: a dense array starting at `data`.
  static View c_order(T* data, Shape shape) {
    std::vector<index_t> strides = shape.strides();
    return View{data, std::move(shape), std::move(strides)};
  }

  index_t ndim() const { return shape.ndim(); }
  index_t size() const { return shape.size(); }

  /// True when the elements are dense in C order: `strides` equals `shape.strides()` on every axis
  /// of extent above 1 (the stride of an axis of extent 0 or 1 never matters).
  bool is_c_contiguous() const {
    if (static_cast<index_t>(strides.size()) != shape.ndim())
      return false;
    if (shape.size() == 0)
      return true;
    index_t expected = 1;
    for (index_t k = shape.ndim(); k-- > 0;) {
      const index_t n = shape[k];
      if (n > 1 && strides[static_cast<std::size_t>(k)] != expected)
        return false;
      expected *= n;
    }
    return true;
  }

  /// The same memory as a view of const elements.
  template <class U = T, std::enable_if_t<!std::is_const_v<U>, int> = 0>
  operator View<const U>() const {
    return View<const U>{data, shape, strides};
  }

#if defined(__cpp_lib_mdspan)
  /// The view as a std::mdspan of rank N with layout_stride. N must equal ndim() (a
  /// precondition, unchecked as std::mdspan's own).
  template <std::size_t N>
  std::mdspan<T, std::dextents<index_t, N>, std::layout_stride> to_mdspan() const {
    std::array<index_t, N> ext{}, str{};
    for (std::size_t k = 0; k < N; ++k) {
      ext[k] = shape[static_cast<index_t>(k)];
      str[k] = strides[k];
    }
    using Ext = std::dextents<index_t, N>;
    return {data, std::layout_stride::mapping<Ext>(Ext(ext), str)};
  }
#endif
};

#if defined(__cpp_lib_mdspan)
/// A View of any std::mdspan of a strided layout (layout_right, layout_left, layout_stride):
/// strides as the mapping gives them.
template <class T, class E, class L, class A> View<T> view_of(const std::mdspan<T, E, L, A>& m) {
  View<T> v;
  v.data = m.data_handle();
  std::vector<index_t> ext(E::rank());
  v.strides.resize(E::rank());
  for (std::size_t k = 0; k < E::rank(); ++k) {
    ext[k] = static_cast<index_t>(m.extent(k));
    v.strides[k] = static_cast<index_t>(m.stride(k));
  }
  v.shape = Shape(std::move(ext));
  return v;
}
#endif

} // namespace chunked
