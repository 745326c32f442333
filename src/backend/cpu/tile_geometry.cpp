// SPDX-License-Identifier: Apache-2.0
// Normal form of a block's iteration box (see tile_geometry.hpp).
#include "backend/cpu/tile_geometry.hpp"

namespace chunked::cpu {

using plan::AffineMap;

Geometry normalize(const plan::BlockProgram& p, std::vector<AffineMap*>& maps) {
  Geometry g;
  int nd = 0;
  for (int k = 0; k < p.ndim; ++k) {
    if (p.extent[k] == 1)
      continue;
    g.extent[nd] = p.extent[k];
    for (AffineMap* m : maps)
      m->coef[nd] = m->coef[k];
    ++nd;
  }
  for (AffineMap* m : maps)
    for (int k = nd; k < plan::max_ndim; ++k)
      m->coef[k] = 0;
  if (nd == 0) {
    g.ndim = 1;
    g.extent[0] = 1;
    return g;
  }
  int out = 0;
  for (int k = 1; k < nd; ++k) {
    bool mergeable = true;
    for (const AffineMap* m : maps) {
      index_t walked = 0;
      if (__builtin_mul_overflow(m->coef[k], g.extent[k], &walked) || walked != m->coef[out]) {
        mergeable = false;
        break;
      }
    }
    if (mergeable) {
      g.extent[out] *= g.extent[k];
      for (AffineMap* m : maps)
        m->coef[out] = m->coef[k];
    } else {
      ++out;
      g.extent[out] = g.extent[k];
      for (AffineMap* m : maps)
        m->coef[out] = m->coef[k];
    }
  }
  for (AffineMap* m : maps)
    for (int k = out + 1; k < plan::max_ndim; ++k)
      m->coef[k] = 0;
  g.ndim = out + 1;
  return g;
}

bool c_order(const AffineMap& m, const Geometry& g) {
  index_t stride = 1;
  for (int k = g.ndim - 1; k >= 0; --k) {
    if (m.coef[k] != stride)
      return false;
    stride *= g.extent[k];
  }
  return true;
}

} // namespace chunked::cpu
