// SPDX-License-Identifier: Apache-2.0
// Where an element of a persisted stencil's frame takes its value from, for both backends.
#pragma once

// Compiled by the host compiler and by nvcc.
#include <chunked/core/host_device.hpp>

#include <cstdint>

namespace chunked::frame {

/// The boundary modes as the frame fill sees them (Boundary::Kind's values, checked where a
/// runtime::Frame is made).
enum Mode : int { none = 0, periodic = 1, reflect = 2, nearest = 3, constant = 4 };

/// The index along an axis of `n` elements that frame position `p` (in [-depth, n + depth),
/// depth <= n) reads under `mode`, as map_overlap's halos read it (Dask's boundaries): wrapped,
/// mirrored including the edge element, or the edge repeated; -1 for the constant.
CHUNKED_HD inline std::int64_t frame_source(std::int64_t p, std::int64_t n, int mode) {
  if (p >= 0 && p < n)
    return p;
  switch (mode) {
  case periodic:
    return p < 0 ? p + n : p - n;
  case reflect:
    return p < 0 ? -p - 1 : 2 * n - p - 1;
  case nearest:
    return p < 0 ? 0 : n - 1;
  default:
    return -1;
  }
}

} // namespace chunked::frame
