// SPDX-License-Identifier: Apache-2.0
// Naive references of map_overlap's halos: an array padded as np.pad pads it, and window sums.
#pragma once

#include "support/reference.hpp"

#include <chunked/chunked.hpp>

#include <string>
#include <vector>

namespace chunked::test {

/// Element g (global, maybe outside the array) of x padded as np.pad pads it for `b` (wrap,
/// symmetric, edge, constant); depth is at most the axis, so one wrap or mirror suffices.
inline double padded_at(const Dense<double>& x, Extents g, Boundary b) {
  for (std::size_t k = 0; k < g.size(); ++k) {
    const index_t n = x.shape()[k];
    if (g[k] >= 0 && g[k] < n)
      continue;
    switch (b.kind) {
    case Boundary::Kind::periodic:
      g[k] = g[k] < 0 ? g[k] + n : g[k] - n;
      break;
    case Boundary::Kind::reflect:
      g[k] = g[k] < 0 ? -g[k] - 1 : 2 * n - g[k] - 1;
      break;
    case Boundary::Kind::nearest:
      g[k] = g[k] < 0 ? 0 : n - 1;
      break;
    case Boundary::Kind::constant:
    case Boundary::Kind::none:
      return b.value;
    }
  }
  return x.at(g);
}

/// Per element, the sum of the padded reference over the window of half-width `depth` around it
/// (Boundary::none: the part of the window inside the array).
inline Dense<double> window_sums(const Dense<double>& ref, const std::vector<index_t>& depth,
                                 Boundary b) {
  const std::size_t nd = depth.size();
  Extents win(nd);
  for (std::size_t k = 0; k < nd; ++k)
    win[k] = 2 * depth[k] + 1;
  return generate<double>(ref.shape(), [&](index_t i) {
    const Extents p = unravel(i, ref.shape());
    double s = 0;
    for (index_t w = 0; w < numel(win); ++w) {
      Extents g = unravel(w, win);
      bool inside = true;
      for (std::size_t k = 0; k < nd; ++k) {
        g[k] += p[k] - depth[k];
        inside = inside && (b.kind != Boundary::Kind::none || (g[k] >= 0 && g[k] < ref.shape()[k]));
      }
      if (inside)
        s += padded_at(ref, g, b);
    }
    return s;
  });
}

inline const std::vector<Boundary> all_boundaries = {Boundary::none, Boundary::periodic,
                                                     Boundary::reflect, Boundary::nearest,
                                                     Boundary::constant(-3.5)};

inline std::string boundary_name(Boundary b) {
  const char* names[] = {"none", "periodic", "reflect", "nearest", "constant"};
  return names[static_cast<int>(b.kind)];
}

} // namespace chunked::test
