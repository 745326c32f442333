// SPDX-License-Identifier: Apache-2.0
// Distance in units in the last place between two doubles, for tests that allow a few ulp.
#pragma once

#include <bit>
#include <cstdint>

namespace chunked::test {

/// Steps from a to b through consecutive doubles: 0 when they are equal (+0 and -0 included), 1
/// for neighbours, across zero too. For finite inputs; a NaN gives some large distance.
inline std::uint64_t ulp_distance(double a, double b) {
  // Doubles ordered as integers: non-negative ones keep their bits, negative ones are mirrored
  // below zero, so that neighbours differ by one across the whole line.
  auto ordered = [](double x) {
    const auto bits = std::bit_cast<std::int64_t>(x);
    return bits < 0 ? INT64_MIN - bits : bits;
  };
  const std::int64_t d = ordered(a) - ordered(b);
  return d < 0 ? static_cast<std::uint64_t>(-d) : static_cast<std::uint64_t>(d);
}

} // namespace chunked::test
