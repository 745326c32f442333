// SPDX-License-Identifier: Apache-2.0
// An independent reference for exact sums: Shewchuk's summation with correct rounding.
#pragma once

#include <cmath>
#include <utility>
#include <vector>

namespace chunked::test {

/// The sum of finite doubles (with no intermediate overflow) correctly rounded to nearest, ties
/// to even: Shewchuk's non-overlapping partials, then the half-even fix-up of Python's
/// math.fsum. A method unlike the library's digits, so the two check each other.
inline double fsum(const std::vector<double>& xs) {
  std::vector<double> partials;
  for (double x : xs) {
    std::size_t i = 0;
    for (double y : partials) {
      if (std::abs(x) < std::abs(y))
        std::swap(x, y);
      const double hi = x + y;
      const double lo = y - (hi - x);
      if (lo != 0.0)
        partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
  }
  std::size_t n = partials.size();
  double hi = 0.0, lo = 0.0;
  if (n > 0) {
    hi = partials[--n];
    while (n > 0) {
      const double x = hi;
      const double y = partials[--n];
      hi = x + y;
      lo = y - (hi - x);
      if (lo != 0.0)
        break;
    }
    if (n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0))) {
      const double y = lo * 2.0;
      const double x = hi + y;
      if (y == x - hi)
        hi = x;
    }
  }
  return hi;
}

} // namespace chunked::test
