// SPDX-License-Identifier: Apache-2.0
// The planner's index arithmetic on AffineMap (src/plan/index_maps.hpp) against naive references:
// composition through a slice, flattening, shifting, the range over a box, C-order layouts,
// where a grid's blocks lie and box iteration; and its overflow checks.
#include "plan/index_maps.hpp"

#include <chunked/core/error.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace chunked;
using plan::AffineMap;

constexpr index_t max64 = std::numeric_limits<index_t>::max();

/// m at position i, the plain way.
index_t naive_at(const AffineMap& m, const std::vector<index_t>& i) {
  index_t r = m.base;
  for (std::size_t k = 0; k < i.size(); ++k)
    r += m.coef[k] * i[k];
  return r;
}

AffineMap random_map(std::mt19937_64& rng, int ndim) {
  std::uniform_int_distribution<index_t> v(-50, 50);
  AffineMap m;
  m.base = v(rng);
  for (int k = 0; k < ndim; ++k)
    m.coef[k] = v(rng);
  return m;
}

std::vector<index_t> random_point(std::mt19937_64& rng, int ndim) {
  std::uniform_int_distribution<index_t> v(0, 20);
  std::vector<index_t> i(static_cast<std::size_t>(ndim));
  for (auto& x : i)
    x = v(rng);
  return i;
}

TEST(IndexMaps, ComposeIsTheSliceOfTheMap) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<index_t> v(-9, 9);
  for (int trial = 0; trial < 500; ++trial) {
    const int ndim = 1 + trial % 4;
    const AffineMap m = random_map(rng, ndim);
    const index_t start = v(rng), step = v(rng);
    const AffineMap c = plan::compose(start, step, m, ndim);
    for (int j = 0; j < 5; ++j) {
      const auto i = random_point(rng, ndim);
      EXPECT_EQ(naive_at(c, i), start + step * naive_at(m, i));
    }
    for (int k = ndim; k < max_ndim; ++k)
      EXPECT_EQ(c.coef[k], 0);
  }
}

TEST(IndexMaps, FlattenIsTheStridedSumOfTheCoordinates) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    const int ndim = 1 + trial % 3;
    const std::size_t nd = 1 + static_cast<std::size_t>(trial) % 4;
    plan::Coords coords(nd);
    std::vector<index_t> strides(nd);
    for (std::size_t d = 0; d < nd; ++d) {
      coords[d] = random_map(rng, ndim);
      strides[d] = static_cast<index_t>(rng() % 100);
    }
    const AffineMap f = plan::flatten(coords, strides, ndim);
    for (int j = 0; j < 5; ++j) {
      const auto i = random_point(rng, ndim);
      index_t expected = 0;
      for (std::size_t d = 0; d < nd; ++d)
        expected += strides[d] * naive_at(coords[d], i);
      EXPECT_EQ(naive_at(f, i), expected);
    }
  }
}

TEST(IndexMaps, IdentityCoordinatesReadThroughStridesAreTheStrides) {
  const std::vector<index_t> strides{35, 7, 1};
  const AffineMap f = plan::flatten(plan::identity_coords(3), strides, 3);
  EXPECT_EQ(f.base, 0);
  EXPECT_EQ(f.coef[0], 35);
  EXPECT_EQ(f.coef[1], 7);
  EXPECT_EQ(f.coef[2], 1);
}

TEST(IndexMaps, ShiftedStartsTheMapAtAPosition) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    const int ndim = 1 + trial % 4;
    const AffineMap m = random_map(rng, ndim);
    const auto o = random_point(rng, ndim);
    const AffineMap s = plan::shifted(m, o, ndim);
    EXPECT_EQ(plan::value_at(m, o, ndim), naive_at(m, o));
    const auto i = random_point(rng, ndim);
    std::vector<index_t> oi(i.size());
    for (std::size_t k = 0; k < i.size(); ++k)
      oi[k] = o[k] + i[k];
    EXPECT_EQ(naive_at(s, i), naive_at(m, oi));
  }
}

TEST(IndexMaps, RangeOverABoxIsItsLeastAndGreatestValue) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 300; ++trial) {
    const int ndim = 1 + trial % 3;
    const AffineMap m = random_map(rng, ndim);
    const auto o = random_point(rng, ndim);
    std::vector<index_t> ext(static_cast<std::size_t>(ndim));
    for (auto& e : ext)
      e = static_cast<index_t>(rng() % 5); // 0 counts as 1
    index_t lo = max64, hi = -max64;
    std::vector<index_t> i(ext.size(), 0), last(ext.size());
    for (std::size_t k = 0; k < ext.size(); ++k)
      last[k] = std::max<index_t>(ext[k], 1) - 1;
    const std::vector<index_t> first(ext.size(), 0);
    do {
      std::vector<index_t> p(i.size());
      for (std::size_t k = 0; k < i.size(); ++k)
        p[k] = o[k] + i[k];
      lo = std::min(lo, naive_at(m, p));
      hi = std::max(hi, naive_at(m, p));
    } while (plan::next_in_box(i, first, last));
    const plan::IndexRange r = plan::range_over(m, o, ext, ndim);
    EXPECT_EQ(r.start, naive_at(m, o));
    EXPECT_EQ(r.lo, lo);
    EXPECT_EQ(r.hi, hi);
  }
}

TEST(IndexMaps, COrderLayoutIsTheShapesStrides) {
  const std::vector<std::vector<index_t>> shapes{{},        {7},       {3, 4},
                                                 {2, 0, 5}, {1, 1, 1}, {6, 5, 4, 3}};
  for (const auto& ext : shapes) {
    const plan::Layout l = plan::c_order(ext);
    const Shape shape(ext);
    const auto strides = shape.strides();
    for (std::size_t k = 0; k < ext.size(); ++k)
      EXPECT_EQ(l.map.coef[k], strides[k]);
    EXPECT_EQ(l.map.base, 0);
    EXPECT_EQ(l.elements, shape.size());
  }
}

TEST(IndexMaps, COrderLayoutSkipsAxesThatTakeNoRoom) {
  const std::vector<index_t> ext{3, 4, 5, 6};
  for (std::uint32_t skip = 0; skip < 16; ++skip) {
    const plan::Layout l = plan::c_order(ext, skip);
    index_t acc = 1;
    for (int k = 3; k >= 0; --k) {
      if ((skip >> k) & 1u) {
        EXPECT_EQ(l.map.coef[k], 0);
      } else {
        EXPECT_EQ(l.map.coef[k], acc);
        acc *= ext[k];
      }
    }
    EXPECT_EQ(l.elements, acc);
  }
}

TEST(IndexMaps, BlockBoxIsWhereTheGridPutsTheBlock) {
  using Lengths = std::vector<std::vector<index_t>>;
  const ChunkGrid grids[] = {ChunkGrid(Lengths{{3, 3, 1}, {4, 4, 4, 2}}),
                             ChunkGrid(Lengths{{5}, {1, 1}, {2, 0, 3}}), ChunkGrid(Lengths{{7}})};
  for (const ChunkGrid& g : grids) {
    const int nd = static_cast<int>(g.ndim());
    for (index_t b = 0; b < g.numblocks(); ++b) {
      std::array<index_t, max_ndim> origin{}, extent{};
      plan::block_box(g, b, nd, origin, extent);
      const auto idx = g.block_index(b);
      const auto off = g.block_offset(idx);
      const auto ext = g.block_shape(idx).extents();
      for (int k = 0; k < nd; ++k) {
        EXPECT_EQ(origin[k], off[k]) << "block " << b << " axis " << k;
        EXPECT_EQ(extent[k], ext[k]) << "block " << b << " axis " << k;
      }
    }
  }
}

TEST(IndexMaps, BoxIterationAndUnflattenFollowCOrder) {
  const std::vector<index_t> first{2, -1, 5}, last{4, 0, 7};
  std::vector<index_t> at(first);
  std::vector<std::vector<index_t>> seen;
  do
    seen.push_back(at);
  while (plan::next_in_box(at, first, last));
  EXPECT_EQ(at, first);
  std::vector<std::vector<index_t>> expected;
  for (index_t i = 2; i <= 4; ++i)
    for (index_t j = -1; j <= 0; ++j)
      for (index_t k = 5; k <= 7; ++k)
        expected.push_back({i, j, k});
  EXPECT_EQ(seen, expected);
  const std::vector<index_t> ext{3, 2, 3};
  for (std::size_t n = 0; n < expected.size(); ++n) {
    std::vector<index_t> u(3);
    plan::unflatten(static_cast<index_t>(n), ext, u);
    EXPECT_EQ(u,
              (std::vector<index_t>{expected[n][0] - 2, expected[n][1] + 1, expected[n][2] - 5}));
  }
}

TEST(IndexMaps, OverflowIsAValueErrorNeverAWrappedMap) {
  AffineMap m;
  m.coef[0] = index_t{1} << 40;
  EXPECT_THROW(plan::compose(0, index_t{1} << 30, m, 1), ValueError);
  EXPECT_THROW(plan::compose(max64, 1, AffineMap{1, {}}, 1), ValueError);
  const std::array<index_t, 1> far{index_t{1} << 30};
  EXPECT_THROW(plan::value_at(m, far, 1), ValueError);
  EXPECT_THROW(plan::shifted(m, far, 1), ValueError);
  const std::array<index_t, 1> ext{index_t{1} << 30};
  const std::array<index_t, 1> zero{0};
  EXPECT_THROW(plan::range_over(m, zero, ext, 1), ValueError);
  const std::vector<index_t> huge{index_t{1} << 32, index_t{1} << 32};
  EXPECT_THROW(plan::c_order(huge), ValueError);
  const std::vector<index_t> strides{index_t{1} << 30};
  EXPECT_THROW(plan::flatten(plan::Coords{m}, strides, 1), ValueError);
}

} // namespace
