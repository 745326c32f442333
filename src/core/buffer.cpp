// SPDX-License-Identifier: Apache-2.0
// Host buffers: aligned allocation that reports failure as chunked::OutOfMemory.
#include <chunked/core/buffer.hpp>
#include <chunked/core/error.hpp>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <string>

namespace chunked {

namespace {
void* allocate_aligned(std::size_t bytes) {
  constexpr std::size_t align = 64;
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (!p)
    throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes failed");
  return p;
}
} // namespace

HostBuffer::HostBuffer(std::size_t bytes)
    : Buffer(allocate_aligned(bytes), bytes, MemorySpace{}) {}

HostBuffer::~HostBuffer() { std::free(data()); }

std::shared_ptr<Buffer> make_host_buffer(std::size_t bytes) {
  return std::make_shared<HostBuffer>(bytes);
}

} // namespace chunked
