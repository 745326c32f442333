// SPDX-License-Identifier: Apache-2.0
// trace_ticks(): the time-stamp counter where it is invariant, else steady_clock.
#include "runtime/trace_clock.hpp"

#include <chrono>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace chunked::runtime {

namespace {

std::int64_t steady_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// CPUID leaf 0x80000007, EDX bit 8: the counter runs at a constant rate in every power state
/// (the kernel then keeps it synchronised across cores).
bool invariant_tsc() noexcept {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u)
    return false;
  __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
  return (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

const bool cycles = invariant_tsc();

} // namespace

std::int64_t trace_ticks() noexcept {
#if defined(__x86_64__)
  if (cycles)
    return static_cast<std::int64_t>(__rdtsc());
#endif
  return steady_ns();
}

bool trace_ticks_are_cycles() noexcept { return cycles; }

double trace_ticks_per_ns() {
  static const double rate = [] {
    if (!cycles)
      return 1.0;
    const std::int64_t ns0 = steady_ns(), ticks0 = trace_ticks();
    std::int64_t ns1 = ns0;
    while (ns1 - ns0 < 100'000)
      ns1 = steady_ns();
    const std::int64_t ticks1 = trace_ticks();
    return static_cast<double>(ticks1 - ticks0) / static_cast<double>(ns1 - ns0);
  }();
  return rate;
}

} // namespace chunked::runtime
