// SPDX-License-Identifier: Apache-2.0
// Frames of persisted stencils (frame.hpp): their boxes, and their fill in host memory.
#include "runtime/frame.hpp"

#include "runtime/frame_map.hpp"

#include <cstring>

namespace chunked::runtime {

static_assert(static_cast<int>(Boundary::Kind::none) == frame::none &&
              static_cast<int>(Boundary::Kind::periodic) == frame::periodic &&
              static_cast<int>(Boundary::Kind::reflect) == frame::reflect &&
              static_cast<int>(Boundary::Kind::nearest) == frame::nearest &&
              static_cast<int>(Boundary::Kind::constant) == frame::constant);

std::vector<FrameBox> frame_boxes(const Frame& f) {
  std::vector<FrameBox> boxes;
  if (f.mode == frame::none)
    return boxes;
  for (int k = 0; k < f.ndim; ++k) {
    if (f.depth[k] == 0)
      continue;
    for (int side = 0; side < 2; ++side) {
      FrameBox b;
      bool empty = false;
      for (int j = 0; j < f.ndim; ++j) {
        if (j < k) { // the array's extent: positions outside it are in an earlier axis' slabs
          b.lo[j] = 0;
          b.extent[j] = f.extent[j];
        } else if (j > k) {
          b.lo[j] = -f.depth[j];
          b.extent[j] = f.extent[j] + 2 * f.depth[j];
        } else {
          b.lo[j] = side == 0 ? -f.depth[j] : f.extent[j];
          b.extent[j] = f.depth[j];
        }
        empty = empty || b.extent[j] == 0;
      }
      if (!empty)
        boxes.push_back(b);
    }
  }
  return boxes;
}

Frame make_frame(void* interior, MemorySpace space, DType dtype, const std::vector<index_t>& extent,
                 const std::vector<index_t>& depth, const std::vector<index_t>& strides,
                 Boundary boundary) {
  Frame f;
  f.interior = interior;
  f.space = space;
  f.element_bytes = dtype_size(dtype);
  f.ndim = static_cast<int>(extent.size());
  for (std::size_t k = 0; k < extent.size(); ++k) {
    f.extent[k] = extent[k];
    f.depth[k] = depth[k];
    f.strides[k] = strides[k];
  }
  f.mode = static_cast<int>(boundary.kind);
  // The constant as map_overlap's halo gather pads with it (a constant leaf): bool from v != 0,
  // integers through int64 (wrapping into int32, never converting an out-of-range double to it),
  // floats rounded.
  const double v = boundary.value;
  const auto put = [&f](auto x) { std::memcpy(&f.constant, &x, sizeof x); };
  switch (dtype) {
  case DType::bool_:
    put(v != 0);
    break;
  case DType::int32:
    put(static_cast<std::int32_t>(static_cast<std::int64_t>(v)));
    break;
  case DType::int64:
    put(static_cast<std::int64_t>(v));
    break;
  case DType::float32:
    put(static_cast<float>(v));
    break;
  case DType::float64:
    put(v);
    break;
  }
  return f;
}

void fill_frame_on_host(const Frame& f) {
  auto* base = static_cast<unsigned char*>(f.interior);
  const auto esize = static_cast<index_t>(f.element_bytes);
  for (const FrameBox& b : frame_boxes(f)) {
    std::array<index_t, max_ndim> at{};
    index_t count = 1;
    for (int k = 0; k < f.ndim; ++k)
      count *= b.extent[k];
    for (index_t e = 0; e < count; ++e) {
      index_t dst = 0, src = 0;
      bool constant = false;
      for (int k = 0; k < f.ndim; ++k) {
        const index_t p = b.lo[k] + at[k];
        const index_t s = frame::frame_source(p, f.extent[k], f.mode);
        constant = constant || s < 0;
        dst += p * f.strides[k];
        src += s * f.strides[k];
      }
      std::memcpy(base + dst * esize,
                  constant ? static_cast<const void*>(&f.constant) : base + src * esize,
                  f.element_bytes);
      for (int k = f.ndim; k-- > 0;) {
        if (++at[k] < b.extent[k])
          break;
        at[k] = 0;
      }
    }
  }
}

} // namespace chunked::runtime
