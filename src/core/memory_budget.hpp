// SPDX-License-Identifier: Apache-2.0
// How much memory this process may use, and the checks that refuse bookkeeping (chunk grids,
// task lists) too large for it before it is allocated.
#pragma once

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string_view>

namespace chunked {

/// Bytes of the machine's physical memory (16 GiB where the system does not say).
std::uint64_t physical_memory_bytes();

/// Bytes this process may use: physical memory, or the address-space limit (RLIMIT_AS) where that
/// is lower.
std::uint64_t usable_memory_bytes();

namespace detail {

/// True when `count` records of `bytes_each` bytes take at most half of usable_memory_bytes().
/// Bookkeeping that cannot fit is refused before any of it is allocated, rather than grown until
/// an allocation fails or the system ends the process. Small amounts answer without a system call.
bool bookkeeping_fits(std::uint64_t count, std::uint64_t bytes_each);

/// Throws OutOfMemory for bookkeeping that bookkeeping_fits() refused: "<what> needs <count>
/// <records> of <bytes_each> bytes (<total> bytes), more than the <budget> bytes allowed ...;
/// <advice>".
[[noreturn]] void throw_bookkeeping_too_large(std::uint64_t count, std::uint64_t bytes_each,
                                              std::string_view what, std::string_view records,
                                              std::string_view advice);

/// Throws OutOfMemory: "<doing> ran out of memory (<cause>); <advice>".
[[noreturn]] void throw_out_of_memory(std::string_view doing, std::string_view cause,
                                      std::string_view advice);

/// Runs f(), rethrowing std::bad_alloc and std::length_error (a container asked for more than it
/// can hold) as OutOfMemory naming what was being done.
template <class F>
decltype(auto) reporting_out_of_memory(std::string_view doing, std::string_view advice, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw_out_of_memory(doing, "std::bad_alloc", advice);
  } catch (const std::length_error& e) {
    throw_out_of_memory(doing, e.what(), advice);
  }
}

} // namespace detail
} // namespace chunked
