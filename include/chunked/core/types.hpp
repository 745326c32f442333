// SPDX-License-Identifier: Apache-2.0
// Fundamental scalar types shared by every layer.
#pragma once

#include <cstdint>

namespace chunked {

/// Signed index type for shapes, offsets and flat indices (arrays may exceed 2^32 elements).
using index_t = std::int64_t;

/// Highest rank of any array chunked computes (and so of a block program's iteration box).
inline constexpr int max_ndim = 8;

} // namespace chunked
