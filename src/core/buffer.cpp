// SPDX-License-Identifier: Apache-2.0
// Host buffers: aligned allocation that reports failure as chunked::OutOfMemory.
#include <chunked/core/buffer.hpp>
#include <chunked/core/error.hpp>

#include <algorithm>
#include <cstdlib>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <new>
#include <string>

namespace chunked {

namespace {
/// Blocks from this size on are placed on 2 MiB boundaries and offered to the kernel for huge
/// pages: first touching a 128 MiB block then costs 64 page faults instead of 32768, which on
/// virtual machines (where a fault can take 10 us) is the difference between copying at memory
/// speed and at a few hundred MB/s.
constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t huge_from = 2 * huge_page;
} // namespace

namespace detail {

void* allocate_host(std::size_t bytes) {
  const std::size_t align = bytes >= huge_from ? huge_page : 64;
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (!p)
    throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes failed");
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == huge_page)
    ::madvise(p, rounded, MADV_HUGEPAGE); // advice only: without huge pages it changes nothing
#endif
  return p;
}

void free_host(void* p) noexcept { std::free(p); }

} // namespace detail

HostBuffer::HostBuffer(std::size_t bytes)
    : Buffer(detail::allocate_host(bytes), bytes, MemorySpace{}) {}

HostBuffer::~HostBuffer() { detail::free_host(data()); }

std::shared_ptr<Buffer> make_host_buffer(std::size_t bytes) {
  return std::make_shared<HostBuffer>(bytes);
}

} // namespace chunked
