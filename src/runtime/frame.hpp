// SPDX-License-Identifier: Apache-2.0
// The frame of a persisted stencil (graph::StoredData::frame): the halo around the whole array in
// its one buffer, filled from the array as map_overlap's boundary says, once, when it is persisted.
#pragma once

#include <chunked/core/block_info.hpp>
#include <chunked/core/buffer.hpp>
#include <chunked/core/dtype.hpp>
#include <chunked/core/types.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace chunked::runtime {

/// An array of `extent` whose element (i_0, ...) is at `interior + sum_k i_k * strides[k]`
/// (elements), with `depth[k]` elements of frame on each side of axis k in the same memory.
struct Frame {
  void* interior = nullptr;
  MemorySpace space;
  std::size_t element_bytes = 8;
  int ndim = 0;
  std::array<index_t, max_ndim> extent{}, depth{}, strides{};
  int mode = 0;               ///< frame::Mode (runtime/frame_map.hpp)
  std::uint64_t constant = 0; ///< Boundary::Kind::constant: the value's bytes in the element type
};

/// A box of frame positions: `lo` (negative where it lies below the array) and `extent` per axis.
struct FrameBox {
  std::array<index_t, max_ndim> lo{}, extent{};
};

/// The boxes that cover the frame once: for each axis k with depth and each side, the slab of
/// depth[k] positions beyond that side of axis k, over the array's extent on the axes before k
/// and the frame's full extent on the axes after. Empty boxes are left out.
std::vector<FrameBox> frame_boxes(const Frame& f);

/// The frame of an array of `dtype` filled as `boundary` says (Boundary::none fills nothing).
Frame make_frame(void* interior, MemorySpace space, DType dtype, const std::vector<index_t>& extent,
                 const std::vector<index_t>& depth, const std::vector<index_t>& strides,
                 Boundary boundary);

/// Fills the frame of host memory on this thread (frames are thin: a surface of the array).
void fill_frame_on_host(const Frame& f);

} // namespace chunked::runtime
