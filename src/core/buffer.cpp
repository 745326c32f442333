// SPDX-License-Identifier: Apache-2.0
// Host buffers: aligned allocation that reports failure as chunked::OutOfMemory, with huge pages
// and a bounded cache for large blocks.
#include "core/memory_budget.hpp"
#include "core/memory_counters.hpp"
#include <chunked/core/buffer.hpp>
#include <chunked/core/error.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <string>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace chunked {

namespace {
/// Blocks from this size on are placed on 2 MiB boundaries and offered to the kernel for huge
/// pages: first touching a 128 MiB block then costs 64 page faults instead of 32768, which on
/// virtual machines (where a fault can take 10 us) is the difference between copying at memory
/// speed and at a few hundred MB/s.
constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t huge_from = detail::large_host_block;

std::size_t rounded_size(std::size_t bytes) {
  const std::size_t align = bytes >= huge_from ? huge_page : 64;
  return (std::max<std::size_t>(bytes, 1) + align - 1) / align * align;
}

/// Freed large blocks kept for the next allocation of the same size, up to a bound: a
/// computation that persists or returns blocks of the shape it freed before (every iteration of
/// a loop, every repeat of a benchmark) then reuses memory whose pages are already mapped, rather
/// than having the kernel find and zero fresh ones. The bound is 1/16 of physical memory, at most
/// 4 GiB; what does not fit is returned at once.
class LargeBlockCache {
public:
  void* take(std::size_t rounded) {
    std::lock_guard lock(mutex_);
    const auto it = blocks_.find(rounded);
    if (it == blocks_.end())
      return nullptr;
    void* p = it->second;
    blocks_.erase(it);
    held_ -= rounded;
    return p;
  }

  /// Keeps `p` when it fits under the bound, making room by returning older blocks of other
  /// sizes; else frees it.
  void give(void* p, std::size_t rounded) noexcept {
    {
      std::lock_guard lock(mutex_);
      if (rounded <= limit_) {
        while (held_ + rounded > limit_ && !blocks_.empty()) {
          const auto victim = blocks_.begin();
          std::free(victim->second);
          held_ -= victim->first;
          blocks_.erase(victim);
        }
        blocks_.emplace(rounded, p);
        held_ += rounded;
        return;
      }
    }
    std::free(p);
  }

  /// Returns every kept block (before an allocation that failed is retried).
  void clear() noexcept {
    std::lock_guard lock(mutex_);
    for (const auto& [size, p] : blocks_)
      std::free(p);
    blocks_.clear();
    held_ = 0;
  }

private:
  static std::size_t bound() {
    const auto physical = static_cast<std::size_t>(physical_memory_bytes());
    return std::min(physical / 16, std::size_t{4} << 30);
  }

  std::mutex mutex_;
  std::multimap<std::size_t, void*> blocks_;
  std::size_t held_ = 0;
  const std::size_t limit_ = bound();
};

LargeBlockCache& large_blocks() {
  static auto* cache = new LargeBlockCache; // never destroyed: blocks may be freed during exit
  return *cache;
}
} // namespace

namespace detail {

void* allocate_host(std::size_t bytes) {
  // No allocation can be this large, and rounding it up would wrap to a small size.
  if (bytes > std::size_t{1} << 62)
    throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes is impossible");
  const std::size_t rounded = rounded_size(bytes);
  const bool large = bytes >= huge_from;
  if (large)
    if (void* p = large_blocks().take(rounded))
      return p;
  const std::size_t align = large ? huge_page : 64;
  void* p = std::aligned_alloc(align, rounded);
  if (!p && large) {
    large_blocks().clear();
    p = std::aligned_alloc(align, rounded);
  }
  if (!p)
    throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes failed");
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (large)
    ::madvise(p, rounded, MADV_HUGEPAGE); // advice only: without huge pages it changes nothing
#endif
  return p;
}

void free_host(void* p, std::size_t bytes) noexcept {
  if (p && bytes >= huge_from)
    large_blocks().give(p, rounded_size(bytes));
  else
    std::free(p);
}

} // namespace detail

HostBuffer::HostBuffer(std::size_t bytes)
    : Buffer(detail::allocate_host(bytes), bytes, MemorySpace{}) {
  detail::count_memory(detail::MemoryKind::host, static_cast<std::int64_t>(bytes));
}

HostBuffer::~HostBuffer() {
  detail::free_host(data(), bytes());
  detail::count_memory(detail::MemoryKind::host, -static_cast<std::int64_t>(bytes()));
}

std::shared_ptr<Buffer> make_host_buffer(std::size_t bytes) {
  return std::make_shared<HostBuffer>(bytes);
}

} // namespace chunked
