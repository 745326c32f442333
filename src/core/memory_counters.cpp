// SPDX-License-Identifier: Apache-2.0
// The process-wide memory counters.
#include "core/memory_counters.hpp"

namespace chunked::detail {

std::atomic<std::int64_t>* memory_counters() {
  static std::atomic<std::int64_t> counters[memory_kinds]{};
  return counters;
}

} // namespace chunked::detail
