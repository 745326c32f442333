// SPDX-License-Identifier: Apache-2.0
// Byte swapping of stored elements.
#include "io/byte_order.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace chunked::io {

namespace {
template <class U, class F> void swap_each(void* data, std::size_t count, F swap) {
  auto* p = static_cast<unsigned char*>(data);
  for (std::size_t i = 0; i < count; ++i, p += sizeof(U)) {
    U v;
    std::memcpy(&v, p, sizeof(U));
    v = swap(v);
    std::memcpy(p, &v, sizeof(U));
  }
}
} // namespace

void swap_bytes(void* data, std::size_t count, std::size_t element_size) {
  switch (element_size) {
  case 1:
    return;
  case 2:
    swap_each<std::uint16_t>(data, count, [](std::uint16_t v) { return __builtin_bswap16(v); });
    return;
  case 4:
    swap_each<std::uint32_t>(data, count, [](std::uint32_t v) { return __builtin_bswap32(v); });
    return;
  case 8:
    swap_each<std::uint64_t>(data, count, [](std::uint64_t v) { return __builtin_bswap64(v); });
    return;
  default: {
    auto* p = static_cast<unsigned char*>(data);
    for (std::size_t i = 0; i < count; ++i, p += element_size)
      std::reverse(p, p + element_size);
  }
  }
}

} // namespace chunked::io
