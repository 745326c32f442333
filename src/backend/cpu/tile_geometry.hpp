// SPDX-License-Identifier: Apache-2.0
// The iteration geometry of the CPU tile interpreter: a block's box with unit axes dropped and
// contiguous axes merged, the row segments of one tile, and the strided copies between them.
#pragma once

#include "plan/block_program.hpp"
#include <chunked/core/types.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace chunked::cpu {

/// The iteration box after dropping unit axes and merging axes that every map walks
/// contiguously: it visits the same elements in the same C order, in longer rows.
struct Geometry {
  int ndim = 1;
  std::array<index_t, plan::max_ndim> extent{};
};

/// Rewrites the coefficients of `maps` for the normalized box of `p`, which it returns. Bases are
/// left alone: the normal form depends on extents and coefficients only.
Geometry normalize(const plan::BlockProgram& p, std::vector<plan::AffineMap*>& maps);

/// Whether m maps box position t (in C order) to m.base + t.
bool c_order(const plan::AffineMap& m, const Geometry& g);

/// One row segment of a tile: tile positions j .. j+len-1 are box positions idx, idx + e_last, ...
struct Run {
  index_t j = 0, len = 0;
  index_t idx[plan::max_ndim];
};

/// The row segments of the tile that starts at box position t0 and holds n positions. Computed
/// once per tile and shared by every map the tile reads or writes.
class TileRuns {
public:
  void cut(const Geometry& g, index_t t0, index_t n) {
    ndim_ = g.ndim;
    last_ = g.ndim - 1;
    runs_.clear();
    Run r;
    for (int k = last_; k >= 0; --k) {
      r.idx[k] = t0 % g.extent[k];
      t0 /= g.extent[k];
    }
    for (index_t j = 0;;) {
      r.j = j;
      r.len = std::min(n - j, g.extent[last_] - r.idx[last_]);
      runs_.push_back(r);
      j += r.len;
      if (j >= n)
        return;
      r.idx[last_] = 0;
      for (int k = last_ - 1; k >= 0 && ++r.idx[k] == g.extent[k]; --k)
        r.idx[k] = 0;
    }
  }
  bool single() const { return runs_.size() == 1; }
  /// Calls f(j, offset, step, len) for each run: positions j .. j+len-1 of the tile map to
  /// offset + step * k under `m`.
  template <class F> void each(const plan::AffineMap& m, F&& f) const {
    const index_t step = m.coef[last_];
    for (const Run& r : runs_)
      f(r.j, m.at(r.idx, ndim_), step, r.len);
  }
  index_t first_offset(const plan::AffineMap& m) const { return m.at(runs_.front().idx, ndim_); }
  /// each() of two maps at once: f(offset under a, step under a, offset under b, len) per run.
  template <class F>
  void each_pair(const plan::AffineMap& a, const plan::AffineMap& b, F&& f) const {
    for (const Run& r : runs_)
      f(a.at(r.idx, ndim_), a.coef[last_], b.at(r.idx, ndim_), r.len);
  }

private:
  int ndim_ = 1, last_ = 0;
  std::vector<Run> runs_;
};

/// dst[k * dstep] = src[k * sstep] for k < len, with the common layouts as loops the compiler
/// vectorises (contiguous, reversed, every other element, broadcast).
template <class T>
void strided_copy(const T* __restrict src, index_t sstep, T* __restrict dst, index_t dstep,
                  index_t len) {
  if (dstep == 1) {
    if (sstep == 1)
      std::memcpy(dst, src, static_cast<std::size_t>(len) * sizeof(T));
    else if (sstep == 0)
      std::fill_n(dst, len, *src);
    else if (sstep == -1)
      for (index_t k = 0; k < len; ++k)
        dst[k] = src[-k];
    else if (sstep == 2)
      for (index_t k = 0; k < len; ++k)
        dst[k] = src[2 * k];
    else
      for (index_t k = 0; k < len; ++k)
        dst[k] = src[k * sstep];
  } else if (sstep == 1 && dstep == -1) {
    for (index_t k = 0; k < len; ++k)
      dst[-k] = src[k];
  } else {
    for (index_t k = 0; k < len; ++k)
      dst[k * dstep] = src[k * sstep];
  }
}

} // namespace chunked::cpu
