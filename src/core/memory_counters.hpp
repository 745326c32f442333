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
/// Each thread adds to one of this many slots, each on its own cache line: workers that allocate
/// and free blocks at once then never contend for one line, so counting always costs nothing a
/// computation could measure (a relaxed add to a line the thread owns).
inline constexpr int memory_counter_slots = 32;

struct alignas(64) MemoryCounterSlot {
  std::atomic<std::int64_t> bytes[memory_kinds]{};
};

/// The slots, process-wide.
MemoryCounterSlot* memory_counter_slots_array();
/// The calling thread's slot.
MemoryCounterSlot& memory_counter_slot();

/// Adds `bytes` (negative to subtract) to the counter of `kind`.
inline void count_memory(MemoryKind kind, std::int64_t bytes) {
  memory_counter_slot().bytes[static_cast<int>(kind)].fetch_add(bytes, std::memory_order_relaxed);
}

/// The live bytes of `kind` now: the sum over the slots (a block freed on another thread than
/// the one that allocated it moves bytes between slots, never out of the sum).
inline std::int64_t memory_in_use(MemoryKind kind) {
  std::int64_t sum = 0;
  const MemoryCounterSlot* slots = memory_counter_slots_array();
  for (int s = 0; s < memory_counter_slots; ++s)
    sum += slots[s].bytes[static_cast<int>(kind)].load(std::memory_order_relaxed);
  return sum;
}

} // namespace chunked::detail
