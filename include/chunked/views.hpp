// SPDX-License-Identifier: Apache-2.0
// Arrays over memory the caller owns: from_host_view (borrowed host memory) and from_device
// (borrowed device memory), read in place or block by block, never copied when they are made.
// Results go into caller device memory with ChunkedArray::to_device (array.hpp).
#pragma once

#include <chunked/array.hpp>
#include <chunked/core/view.hpp>

#include <cstddef>
#include <ranges>
#include <span>
#include <type_traits>

namespace chunked {

namespace detail {
/// A stored node over `count` elements of dtype `dtype` at `data` in host memory (C order),
/// borrowed: the node reads them where they are. ShapeError when count is not shape's size;
/// ValueError for null data with elements or data not aligned to `align`.
graph::NodePtr borrow_host(const void* data, std::size_t count, std::size_t align, DType dtype,
                           const Shape& shape, const Chunks& chunks);
/// The same over device memory of `device` (Cuda and Auto arrays): BackendError in a build without
/// CUDA or for a device that does not exist; ValueError for a null, misaligned or non-device
/// pointer (or one into another device's memory).
graph::NodePtr borrow_device(const void* data, std::size_t align, DType dtype, const Shape& shape,
                             const Chunks& chunks, int device, BackendKind backend);
} // namespace detail

/// An array over dense C-order host memory that the caller owns: **borrowed, never copied when
/// the array is made.**
///
/// **Lifetime rule.** The caller keeps `data` alive, and unchanged, for as long as any array
/// reading it (this one, and every array computed from it) may still be computed: each
/// compute(), item(), to_host(), to_device() or persist() reads the memory again, at that time.
/// Changing the values between two computations changes what the second one sees. To stop
/// depending on the memory, call `persist()`: it makes an owned copy (in the backend's memory),
/// and arrays made from the persisted array no longer read `data`.
///
/// On the CPU, block programs read the memory in place (slices, transposes and broadcasts of the
/// view read only the elements they need). On CUDA, each block that a computation reads is copied
/// to the GPU as it is needed, and only that block: straight from page-locked memory
/// (cudaHostAlloc, cudaHostRegister), through the library's pinned staging buffers from ordinary
/// memory. Nothing of `data` is copied to the host or held once the computation is over.
///
/// Arguments are checked as from_host checks them: ShapeError when `data.size()` differs from
/// `shape.size()`; ValueError for a null pointer with elements, or one not aligned for T.
template <class B = Cpu, class T>
ChunkedArray<std::remove_const_t<T>, B> from_host_view(std::span<T> data, const Shape& shape,
                                                       const Chunks& chunks) {
  using U = std::remove_const_t<T>;
  return ChunkedArray<U, B>(
      detail::borrow_host(data.data(), data.size(), alignof(U), dtype_v<U>, shape, chunks));
}
/// The same over an lvalue contiguous range (std::vector, std::array, NDArray): the range, not a
/// copy of it, is borrowed, so it must outlive the array's computations (a temporary cannot be
/// passed).
template <class B = Cpu, std::ranges::contiguous_range R>
requires is_element_type_v<std::remove_cv_t<std::ranges::range_value_t<R>>>
auto from_host_view(R& data, const Shape& shape, const Chunks& chunks) {
  using U = std::remove_cv_t<std::ranges::range_value_t<R>>;
  return from_host_view<B>(std::span<const U>(std::ranges::data(data),
                                              static_cast<std::size_t>(std::ranges::size(data))),
                           shape, chunks);
}
/// The same over a View, which must be contiguous in C order (`view.is_c_contiguous()`; else a
/// ValueError): `from_host_view(nd.view(), chunks)` borrows an NDArray's memory.
template <class B = Cpu, class T>
ChunkedArray<std::remove_const_t<T>, B> from_host_view(const View<T>& view, const Chunks& chunks) {
  using U = std::remove_const_t<T>;
  if (!view.is_c_contiguous())
    throw ValueError("from_host_view: the View of shape " + view.shape.to_string() +
                     " is not contiguous in C order (its strides must be the shape's C-order "
                     "strides, one per axis)");
  return ChunkedArray<U, B>(detail::borrow_host(view.data, static_cast<std::size_t>(view.size()),
                                                alignof(U), dtype_v<U>, view.shape, chunks));
}

/// An array over dense C-order memory of CUDA device `device` that the caller owns (cudaMalloc,
/// a pool, a solver's state): borrowed, never copied when the array is made. Only for Cuda and
/// Auto arrays. The lifetime rule of from_host_view holds: the memory stays allocated and
/// unchanged while arrays reading it may be computed; `persist()` makes an owned copy.
///
/// Kernels on `device` read each block where it is; a computation on other devices
/// (ComputeOptions::devices) copies the blocks they read, each once. The memory must be ready when
/// a computation starts (the work that writes it finished, or ordered before it).
///
/// BackendError in a build without CUDA and for a device that does not exist; ValueError for a
/// Cpu array, a null pointer with elements, one not aligned for T, or one that is not memory of
/// `device`.
template <class B = Cuda, class T>
ChunkedArray<std::remove_const_t<T>, B> from_device(T* dev_ptr, const Shape& shape,
                                                    const Chunks& chunks, int device = 0) {
  using U = std::remove_const_t<T>;
  return ChunkedArray<U, B>(detail::borrow_device(dev_ptr, alignof(U), dtype_v<U>, shape, chunks,
                                                  device, backend_traits<B>::kind));
}

} // namespace chunked
