// SPDX-License-Identifier: Apache-2.0
// The lanes that fold a run of values into an exact entry on the CPU, compiled for the library's
// baseline and for each wider instruction set the interpreter's loops are built for.
#pragma once

#include "backend/common/exact_sum.hpp"
#include "backend/cpu/interpreter_simd.hpp"
#include <chunked/core/types.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

/// @file
/// exact_segment_lanes adds a run of values to an exact entry (backend/common/exact_sum.hpp)
/// through eight lanes of windows, anchored per tile at the tile's largest magnitude: three
/// additions and subtractions per part, no branch, in vector code. The lanes'
/// bins go into the entry's digits when the anchor changes, every 2^20 values per lane and at
/// the end. The code is in an unnamed namespace: each translation unit that includes it
/// (tile_sinks.cpp at the baseline, interpreter_avx2.cpp and interpreter_avx512.cpp through
/// interpreter_loops.hpp) has its own copy compiled for its instruction set, and none can stand
/// in for another at link time. What the lanes call of exact_sum.hpp is always inlined.

// NOLINTBEGIN(misc-definitions-in-headers): internal to each including translation unit

namespace chunked::cpu {

namespace {

inline constexpr int exact_lanes = 8;
/// Values per tile: the anchor is chosen for each.
inline constexpr index_t exact_tile = 2048;

// The eight lanes are GCC's (and Clang's) vector extensions of the build's register width: one
// AVX-512 register, two AVX2 ones or four SSE2 ones. Lane-wise IEEE operations, no intrinsics.
#if defined(__AVX512F__)
inline constexpr int lane_width = 8;
#elif defined(__AVX2__)
inline constexpr int lane_width = 4;
#else
inline constexpr int lane_width = 2;
#endif
inline constexpr int lane_vectors = exact_lanes / lane_width;
using Lanes = double __attribute__((vector_size(8 * lane_width)));
using LaneMask = long long __attribute__((vector_size(8 * lane_width)));
using LanesF = float __attribute__((vector_size(4 * lane_width)));

/// lane_width consecutive values as doubles (exactly: floats convert without rounding).
template <class T> Lanes load_lanes(const T* x) {
  if constexpr (std::is_same_v<T, double>) {
    Lanes v;
    std::memcpy(&v, x, sizeof v);
    return v;
  } else {
    LanesF v;
    std::memcpy(&v, x, sizeof v);
    return __builtin_convertvector(v, Lanes);
  }
}

/// The lanes' windows of one run of values into an entry.
struct ExactLanes {
  Lanes bin[scalar::exact::bins][lane_vectors] = {};
  int anchor = 0;
  bool anchored = false;
  index_t added = 0; ///< values per lane since the bins were last moved into the entry

  void settle(std::int64_t* w) {
    for (auto& vectors : bin)
      for (Lanes& b : vectors) {
        for (int l = 0; l < lane_width; ++l)
          scalar::exact::deposit_finite(w, b[l]);
        b = Lanes{};
      }
    added = 0;
  }
};

/// The largest magnitude of x[0 .. n), and whether any value is an infinity or a NaN.
template <class T> double exact_tile_max(const T* __restrict x, index_t n, bool& special) {
  constexpr long long magnitude = 0x7fffffffffffffffll, exponent = 0x7ff0000000000000ll;
  LaneMask m[lane_vectors] = {}, bad[lane_vectors] = {};
  index_t k = 0;
  for (; k + exact_lanes <= n; k += exact_lanes)
    for (int v = 0; v < lane_vectors; ++v) {
      // Magnitudes compare as integers; an exponent of all ones is an infinity or a NaN.
      const LaneMask a = std::bit_cast<LaneMask>(load_lanes(x + k + v * lane_width)) & magnitude;
      const LaneMask larger = a > m[v];
      m[v] = (a & larger) | (m[v] & ~larger);
      bad[v] |= (a & exponent) == exponent;
    }
  double mx = 0;
  bool tail_bad = false;
  for (; k < n; ++k) {
    const double a = std::abs(static_cast<double>(x[k]));
    tail_bad = tail_bad || !(a <= std::numeric_limits<double>::max());
    mx = a > mx ? a : mx;
  }
  special = tail_bad;
  for (int v = 0; v < lane_vectors; ++v)
    for (int l = 0; l < lane_width; ++l) {
      special = special || bad[v][l] != 0;
      mx = std::max(mx, std::bit_cast<double>(m[v][l]));
    }
  return mx;
}

/// Adds the finite values x[0 .. n), all below 2^lanes.anchor, to the lanes; the parts too small
/// for the window go to the entry's digits.
template <class T>
void exact_tile_parts(const T* __restrict x, index_t n, ExactLanes& lanes, std::int64_t* w) {
  const scalar::exact::Splitters c = scalar::exact::splitters(lanes.anchor);
  const double s0 = c.s[0], s1 = c.s[1], s2 = c.s[2];
  const Lanes s0v = Lanes{} + s0, s1v = Lanes{} + s1, s2v = Lanes{} + s2;
  Lanes b0[lane_vectors], b1[lane_vectors], b2[lane_vectors];
  LaneMask rest[lane_vectors] = {};
  for (int v = 0; v < lane_vectors; ++v) {
    b0[v] = lanes.bin[0][v];
    b1[v] = lanes.bin[1][v];
    b2[v] = lanes.bin[2][v];
  }
  index_t k = 0;
  for (; k + exact_lanes <= n; k += exact_lanes) {
    // The values after the tile (which the next tile's max reads), fetched while this one folds.
    // (A prefetch never faults, so the address may lie past the block.)
    __builtin_prefetch(reinterpret_cast<const char*>(x + k) +
                       static_cast<std::size_t>(n) * sizeof(T));
    for (int v = 0; v < lane_vectors; ++v) {
      const scalar::exact::Parts<Lanes> p =
          scalar::exact::split(load_lanes(x + k + v * lane_width), s0v, s1v, s2v);
      b0[v] += p.q0;
      b1[v] += p.q1;
      b2[v] += p.q2;
      rest[v] |= p.rest != 0.0;
    }
  }
  bool any = false;
  for (int v = 0; v < lane_vectors; ++v) {
    lanes.bin[0][v] = b0[v];
    lanes.bin[1][v] = b1[v];
    lanes.bin[2][v] = b2[v];
    for (int l = 0; l < lane_width; ++l)
      any = any || rest[v][l] != 0;
  }
  for (; k < n; ++k) { // the tail, lane by lane
    const scalar::exact::Parts<double> p =
        scalar::exact::split(static_cast<double>(x[k]), s0, s1, s2);
    const auto l = static_cast<int>(k % exact_lanes);
    lanes.bin[0][l / lane_width][l % lane_width] += p.q0;
    lanes.bin[1][l / lane_width][l % lane_width] += p.q1;
    lanes.bin[2][l / lane_width][l % lane_width] += p.q2;
    any = any || p.rest != 0.0;
  }
  if (!any)
    return;
  // Some value is more than 44 binades below the anchor: the same splits again, depositing what
  // they leave (rare for data of one scale; exact either way).
  for (k = 0; k < n; ++k) {
    const double r = scalar::exact::split(static_cast<double>(x[k]), s0, s1, s2).rest;
    if (r != 0.0)
      scalar::exact::deposit_finite(w, r);
  }
}

/// The bits of splitter j of the window whose limit 2^A has the bits `limit` (I: int64 or a
/// vector of them): 1.5 * 2^(A + 20 - 32 j), as scalar::exact::splitters gives, by adding to the
/// exponent field. A limit of 0 (no window) gives finite splitters, which leave a zero a zero.
template <class I> I splitter_bits(I limit, int j) {
  return (limit + static_cast<long long>(20 - 32 * j) * (1ll << 52)) | (1ll << 51);
}

/// The window parts of lane_width values u below their columns' limits (zeros elsewhere).
inline scalar::exact::Parts<Lanes> column_parts(Lanes u, Lanes limit) {
  const auto bits = std::bit_cast<LaneMask>(limit);
  return scalar::exact::split(u, std::bit_cast<Lanes>(splitter_bits(bits, 0)),
                              std::bit_cast<Lanes>(splitter_bits(bits, 1)),
                              std::bit_cast<Lanes>(splitter_bits(bits, 2)));
}

/// Which of lane_width values v their columns' windows take (finite, below the limit; false
/// for a NaN), and v with the others zeroed.
inline LaneMask column_takes(Lanes v, Lanes limit, Lanes& u) {
  constexpr long long magnitude = 0x7fffffffffffffffll;
  const LaneMask ok = std::bit_cast<Lanes>(std::bit_cast<LaneMask>(v) & magnitude) < limit;
  u = std::bit_cast<Lanes>(std::bit_cast<LaneMask>(v) & ok);
  return ok;
}

/// The part of value v below the window whose limit is `limit`, for v below it.
inline scalar::exact::Parts<double> column_parts(double v, double limit) {
  const auto bits = std::bit_cast<long long>(limit);
  return scalar::exact::split(v, std::bit_cast<double>(splitter_bits(bits, 0)),
                              std::bit_cast<double>(splitter_bits(bits, 1)),
                              std::bit_cast<double>(splitter_bits(bits, 2)));
}

/// Folds x[k] into column k for k < len, for the values its window takes (finite, below its
/// limit); returns whether some value was left out, or left a part below the window
/// (exact_columns_missed then says which). Vector code at the build's register width, no
/// branch. A column with a limit took a finite nonzero value, whose flags (any element, one
/// other than -0.0) are all that a value below the limit would set: the flags are the caller's,
/// for the values left out.
template <class T>
bool exact_columns_fold(const T* __restrict x, index_t len, detail::ExactColumns c) {
  auto store = [](auto* p, const auto& v) { std::memcpy(p, &v, sizeof v); };
  LaneMask missed = {};
  index_t k = 0;
  for (; k + lane_width <= len; k += lane_width) {
    // The columns' state comes from the caches and the fold is compute-bound: memory would idle
    // through it unless the next values are asked for now (benchmarks/RESULTS.md, exact column
    // sums).
    for (int s = 0; s < c.ahead_count; ++s)
      __builtin_prefetch(c.ahead[s] + k * c.ahead_size[s]);
    Lanes u;
    const Lanes limit = load_lanes(c.limit + k);
    const LaneMask ok = column_takes(load_lanes(x + k), limit, u);
    const scalar::exact::Parts<Lanes> p = column_parts(u, limit);
    store(c.b0 + k, load_lanes(c.b0 + k) + p.q0);
    store(c.b1 + k, load_lanes(c.b1 + k) + p.q1);
    store(c.b2 + k, load_lanes(c.b2 + k) + p.q2);
    missed |= ~ok | (p.rest != 0.0);
  }
  bool any = false;
  for (int l = 0; l < lane_width; ++l)
    any = any || missed[l] != 0;
  for (; k < len; ++k) { // the tail, one column at a time
    const double v = static_cast<double>(x[k]);
    const bool ok = std::abs(v) < c.limit[k];
    const scalar::exact::Parts<double> p = column_parts(ok ? v : 0.0, c.limit[k]);
    c.b0[k] += p.q0;
    c.b1[k] += p.q1;
    c.b2[k] += p.q2;
    any = any || !ok || p.rest != 0.0;
  }
  return any;
}

/// After exact_columns_fold reported a miss, with the limits it used: writes to missed[] the
/// index of each value it left out or that left a part below its window, in order, and returns
/// how many. The same tests, a vector at a time, without folding anything.
template <class T>
index_t exact_columns_missed(const T* __restrict x, index_t len, const double* __restrict limit,
                             index_t* __restrict missed) {
  index_t count = 0, k = 0;
  for (; k + lane_width <= len; k += lane_width) {
    Lanes u;
    const Lanes lim = load_lanes(limit + k);
    const LaneMask ok = column_takes(load_lanes(x + k), lim, u);
    const LaneMask m = ~ok | (column_parts(u, lim).rest != 0.0);
    for (int l = 0; l < lane_width; ++l)
      if (m[l] != 0)
        missed[count++] = k + l;
  }
  for (; k < len; ++k) {
    const double v = static_cast<double>(x[k]);
    if (!(std::abs(v) < limit[k]) || column_parts(v, limit[k]).rest != 0.0)
      missed[count++] = k;
  }
  return count;
}

/// Adds x[0 .. n) to the exact entry w.
template <class T> void exact_segment_lanes(const T* x, index_t n, std::int64_t* w) {
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

} // namespace

} // namespace chunked::cpu

// NOLINTEND(misc-definitions-in-headers)
