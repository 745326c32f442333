// SPDX-License-Identifier: Apache-2.0
// Live bytes of each kind of memory the library holds, for the trace's memory counters.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace chunked::detail {

/// What the counters count: the library's blocks in ordinary host memory, in page-locked host
/// memory, in device memory (all devices), and in spill files.
enum class MemoryKind : int { host, pinned, device, spilled };

inline constexpr int memory_kinds = 4;

/// The counters, process-wide. One relaxed atomic add per allocation and free: blocks are large,
/// so counting always costs nothing a computation could measure, and a trace can sample them
/// without asking every allocator.
std::atomic<std::int64_t>* memory_counters();

/// Adds `bytes` (negative to subtract) to the counter of `kind`.
inline void count_memory(MemoryKind kind, std::int64_t bytes) {
  memory_counters()[static_cast<int>(kind)].fetch_add(bytes, std::memory_order_relaxed);
}

/// The live bytes of `kind` now.
inline std::int64_t memory_in_use(MemoryKind kind) {
  return memory_counters()[static_cast<int>(kind)].load(std::memory_order_relaxed);
}

} // namespace chunked::detail
