// SPDX-License-Identifier: Apache-2.0
// Memory limits of this process and the bookkeeping checks against them (memory_budget.hpp).
#include "core/memory_budget.hpp"
#include <chunked/core/error.hpp>

#include <algorithm>
#include <limits>
#include <string>

#if defined(__unix__)
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace chunked {

std::uint64_t physical_memory_bytes() {
#if defined(__unix__)
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
#endif
  return std::uint64_t{16} << 30;
}

std::uint64_t usable_memory_bytes() {
  std::uint64_t bytes = physical_memory_bytes();
#if defined(__unix__)
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    bytes = std::min<std::uint64_t>(bytes, limit.rlim_cur);
#endif
  return bytes;
}

namespace detail {

namespace {
std::uint64_t bookkeeping_budget() { return usable_memory_bytes() / 2; }
} // namespace

bool bookkeeping_fits(std::uint64_t count, std::uint64_t bytes_each) {
  constexpr std::uint64_t always_fits = std::uint64_t{64} << 20;
  if (bytes_each == 0 || count <= always_fits / bytes_each)
    return true;
  return count <= bookkeeping_budget() / bytes_each;
}

void throw_bookkeeping_too_large(std::uint64_t count, std::uint64_t bytes_each,
                                 std::string_view what, std::string_view records,
                                 std::string_view advice) {
  const std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
  const bool huge = bytes_each != 0 && count > most / bytes_each;
  throw OutOfMemory(std::string(what) + " needs " + std::to_string(count) + " " +
                    std::string(records) + " of " + std::to_string(bytes_each) + " bytes (" +
                    (huge ? std::string("over 2^64") : std::to_string(count * bytes_each)) +
                    " bytes), more than the " + std::to_string(bookkeeping_budget()) +
                    " bytes allowed (half of the memory this process may use); " +
                    std::string(advice));
}

void throw_out_of_memory(std::string_view doing, std::string_view cause, std::string_view advice) {
  throw OutOfMemory(std::string(doing) + " ran out of memory (" + std::string(cause) + "); " +
                    std::string(advice));
}

} // namespace detail
} // namespace chunked
