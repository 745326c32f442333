// SPDX-License-Identifier: Apache-2.0
// The process-wide memory counters.
#include "core/memory_counters.hpp"

namespace chunked::detail {

MemoryCounterSlot* memory_counter_slots_array() {
  static MemoryCounterSlot slots[memory_counter_slots];
  return slots;
}

MemoryCounterSlot& memory_counter_slot() {
  static std::atomic<int> next{0};
  thread_local MemoryCounterSlot& slot =
      memory_counter_slots_array()[next.fetch_add(1, std::memory_order_relaxed) %
                                   memory_counter_slots];
  return slot;
}

} // namespace chunked::detail
