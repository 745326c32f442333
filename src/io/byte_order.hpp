// SPDX-License-Identifier: Apache-2.0
// Byte order of stored elements: swapping in place between big- and little-endian files.
#pragma once

#include <bit>
#include <cstddef>

namespace chunked::io {

/// True on a little-endian host: files written little-endian need no swap there.
inline constexpr bool host_little_endian = std::endian::native == std::endian::little;

/// Reverses the bytes of each of `count` elements of `element_size` bytes (1 leaves them).
void swap_bytes(void* data, std::size_t count, std::size_t element_size);

/// Swaps when the stored order (`big_endian`) is not the host's.
inline void to_native(void* data, std::size_t count, std::size_t element_size, bool big_endian) {
  if (big_endian == host_little_endian)
    swap_bytes(data, count, element_size);
}

} // namespace chunked::io
