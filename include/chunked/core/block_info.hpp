// SPDX-License-Identifier: Apache-2.0
// What a user's block function is given (DESIGN section 8.3): BlockInfo, BlockView, and the
// boundary modes of map_overlap.
#pragma once

#include <chunked/core/shape.hpp>
#include <chunked/core/types.hpp>

#include <functional>
#include <string>
#include <vector>

namespace chunked {

/// Where the block a user function is called for lies, and where it runs.
struct BlockInfo {
  std::vector<index_t> block;  ///< block index per axis (of the output's grid)
  std::vector<index_t> offset; ///< global index of the output block's first element, per axis
  Shape shape;                 ///< the output block's shape
  int device = -1;             ///< the CUDA device the pointers live on; -1 on the CPU
  /// The cudaStream_t the function enqueues its work on (Cuda); nullptr on the CPU.
  void* stream = nullptr;
};

/// A dense C-order block of values: `shape.size()` elements from `data`. On the Cuda backend
/// `data` is a device pointer.
template <class T> struct BlockView {
  T* data = nullptr;
  Shape shape;

  index_t size() const { return shape.size(); }
};

/// How map_overlap fills the halo of blocks at the array's edges (Dask's boundary modes).
/// `periodic` wraps around, `reflect` mirrors including the edge element (NumPy's "symmetric"),
/// `nearest` repeats the edge element, `constant(v)` pads with v (converted to the element type),
/// `none` gives edge blocks no halo on their outer sides (their `in` is smaller).
struct Boundary {
  enum class Kind : unsigned char { none, periodic, reflect, nearest, constant };
  Kind kind = Kind::none;
  double value = 0; ///< Kind::constant: the padding value

  static const Boundary none;
  static const Boundary periodic;
  static const Boundary reflect;
  static const Boundary nearest;
  /// Pads with `v`.
  static constexpr Boundary constant(double v) { return Boundary{Kind::constant, v}; }
};
inline constexpr Boundary Boundary::none{Boundary::Kind::none, 0};
inline constexpr Boundary Boundary::periodic{Boundary::Kind::periodic, 0};
inline constexpr Boundary Boundary::reflect{Boundary::Kind::reflect, 0};
inline constexpr Boundary Boundary::nearest{Boundary::Kind::nearest, 0};

namespace detail {

/// An untyped view: what the runtime hands to a type-erased block function. `strides` (in
/// elements, one per axis) is empty for a dense C-order block; the runtime hands strided views
/// only to functions that take them (BlockFunction::strided).
struct RawView {
  void* data = nullptr;
  Shape shape;
  std::vector<index_t> strides;
};

/// A user block function with its types erased: called with the output block and the inputs (one
/// per input array, in order). `name` says in messages which call raised ("map_blocks").
/// `strided`: the function takes View<T> (any strides), so the runtime may hand it blocks where
/// they lie (a persisted stencil's blocks inside one buffer with their halos, DESIGN 8.3's
/// addition) rather than dense copies.
struct BlockFunction {
  std::string name;
  bool strided = false;
  std::function<void(const BlockInfo&, const RawView& out, const std::vector<RawView>& in)> call;
};

} // namespace detail

} // namespace chunked
