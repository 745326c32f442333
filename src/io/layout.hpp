// SPDX-License-Identifier: Apache-2.0
// Moving boxes of elements between dense buffers: a chunk's corner into a block and back, and
// Fortran-order data into C order.
#pragma once

#include <chunked/core/types.hpp>

#include <cstddef>
#include <vector>

namespace chunked::io {

/// Copies the box of shape `box` at the origin of `src` (C order, shape `src_shape`) to the
/// origin of `dst` (C order, shape `dst_shape`); elements of `element_size` bytes. Used for the
/// edge chunks of a store, whose stored shape is larger than the array's part of them.
void copy_corner(const void* src, const std::vector<index_t>& src_shape, void* dst,
                 const std::vector<index_t>& dst_shape, const std::vector<index_t>& box,
                 std::size_t element_size);

/// Writes into `dst` (C order of `shape`) the elements of `src` stored in Fortran order.
void fortran_to_c(const void* src, void* dst, const std::vector<index_t>& shape,
                  std::size_t element_size);

/// Fills `count` elements at `dst` with the element at `value`.
void fill_elements(void* dst, std::size_t count, const void* value, std::size_t element_size);

/// Product of the extents (1 for none).
index_t element_count(const std::vector<index_t>& shape);

} // namespace chunked::io
