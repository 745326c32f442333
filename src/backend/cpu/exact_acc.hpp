// SPDX-License-Identifier: Apache-2.0
// The tile accumulator of exact partial states (ComputeOptions::exact_sums) on the CPU.
#pragma once

#include "backend/common/exact_sum.hpp"
#include "plan/partial.hpp"
#include <chunked/core/types.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

/// @file
/// ExactAcc<T> has the interface of the accumulators of tile_reduce.hpp over the exact entry of
/// backend/common/exact_sum.hpp. A run of values into one entry (`segment`) goes through eight
/// lanes of windows held in registers, anchored per tile at the tile's largest magnitude: three
/// additions and subtractions per part, no branch, in loops the compiler vectorises; the lanes'
/// bins are moved into the entry's digits when the anchor changes, every 2^20 values per lane
/// and at the end. Values per entry (`element`, `row`) go through the entry's own window. Every
/// path adds exactly, so the entry holds the same number whichever path its values took.

namespace chunked::cpu {

namespace detail {

inline constexpr int exact_lanes = 8;
/// Values per tile: the anchor is chosen for each.
inline constexpr index_t exact_tile = 2048;

/// The lanes' windows of one run of values into an entry.
struct ExactLanes {
  double bin[scalar::exact::bins][exact_lanes] = {};
  int anchor = 0;
  bool anchored = false;
  index_t added = 0; ///< values per lane since the bins were last moved into the entry

  void settle(std::int64_t* w) {
    for (auto& lanes : bin)
      for (double& b : lanes) {
        scalar::exact::deposit_finite(w, b);
        b = 0.0;
      }
    added = 0;
  }
};

/// The largest magnitude of x[0 .. n), and whether any value is an infinity or a NaN.
template <class T> double exact_tile_max(const T* __restrict x, index_t n, bool& special) {
  double m[exact_lanes] = {};
  double inf[exact_lanes] = {}; // nonzero once a lane saw a value that is not finite
  constexpr double big = std::numeric_limits<double>::max();
  index_t k = 0;
  for (; k + exact_lanes <= n; k += exact_lanes)
    for (int l = 0; l < exact_lanes; ++l) {
      const double a = std::abs(static_cast<double>(x[k + l]));
      m[l] = a > m[l] ? a : m[l];
      inf[l] += a <= big ? 0.0 : 1.0;
    }
  for (; k < n; ++k) {
    const double a = std::abs(static_cast<double>(x[k]));
    m[0] = a > m[0] ? a : m[0];
    inf[0] += a <= big ? 0.0 : 1.0;
  }
  double mx = 0, bad = 0;
  for (int l = 0; l < exact_lanes; ++l) {
    mx = std::max(mx, m[l]);
    bad += inf[l];
  }
  special = bad != 0;
  return mx;
}

/// Adds the finite values x[0 .. n), all below 2^lanes.anchor, to the lanes; the parts too small
/// for the window go to the entry's digits.
template <class T>
void exact_tile_parts(const T* __restrict x, index_t n, ExactLanes& lanes, std::int64_t* w) {
  const scalar::exact::Splitters c = scalar::exact::splitters(lanes.anchor);
  const double s0 = c.s[0], s1 = c.s[1], s2 = c.s[2];
  double rest[exact_lanes] = {};
  auto split = [&](double v, int l) {
    const scalar::exact::Parts p = scalar::exact::split(v, s0, s1, s2);
    lanes.bin[0][l] += p.q0;
    lanes.bin[1][l] += p.q1;
    lanes.bin[2][l] += p.q2;
    rest[l] += std::abs(p.rest);
  };
  index_t k = 0;
  for (; k + exact_lanes <= n; k += exact_lanes)
    for (int l = 0; l < exact_lanes; ++l)
      split(static_cast<double>(x[k + l]), l);
  for (; k < n; ++k)
    split(static_cast<double>(x[k]), static_cast<int>(k % exact_lanes));
  double any = 0;
  for (double r : rest)
    any += r;
  if (any == 0)
    return;
  // Some value is more than 44 binades below the anchor: the same splits again, depositing what
  // they leave (rare for data of one scale; exact either way).
  for (k = 0; k < n; ++k) {
    const double r = scalar::exact::split(static_cast<double>(x[k]), s0, s1, s2).rest;
    if (r != 0.0)
      scalar::exact::deposit_finite(w, r);
  }
}

/// Adds x[0 .. n) to the exact entry w.
template <class T> void exact_segment(const T* x, index_t n, std::int64_t* w) {
  namespace exact = scalar::exact;
  ExactLanes lanes;
  for (index_t t0 = 0; t0 < n; t0 += exact_tile) {
    const index_t len = std::min(exact_tile, n - t0);
    const T* p = x + t0;
    bool special = false;
    const double mx = exact_tile_max(p, len, special);
    if (special || mx == 0.0) { // flags per value: infinities, NaNs, signed zeros
      for (index_t k = 0; k < len; ++k)
        exact::deposit(w, static_cast<double>(p[k]));
      continue;
    }
    w[exact::flags_word] |= exact::flag_any | exact::flag_not_negative_zero;
    const int need = exact::anchor_for(mx);
    if (!lanes.anchored || lanes.anchor < need || lanes.anchor > need + 16) {
      lanes.settle(w);
      lanes.anchor = need + 2;
      lanes.anchored = true;
    }
    if (lanes.anchor < exact::min_anchor || lanes.anchor > exact::max_anchor) {
      for (index_t k = 0; k < len; ++k)
        exact::deposit_finite(w, static_cast<double>(p[k]));
      continue;
    }
    const index_t per_lane = (len + exact_lanes - 1) / exact_lanes;
    if (lanes.added + per_lane >= exact::settle_after)
      lanes.settle(w);
    exact_tile_parts(p, len, lanes, w);
    lanes.added += per_lane;
  }
  lanes.settle(w);
}

} // namespace detail

template <class T> struct ExactAcc {
  using value_type = T;
  static constexpr int words = scalar::exact::words;
  static void segment(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    detail::exact_segment(x, n, &e->i);
  }
  static void element(T x, index_t, plan::PartialWord* e) {
    scalar::exact::add(&e->i, static_cast<double>(x));
  }
  static void row(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    for (index_t k = 0; k < n; ++k)
      scalar::exact::add(&e[k * words].i, static_cast<double>(x[k]));
  }
};

} // namespace chunked::cpu
