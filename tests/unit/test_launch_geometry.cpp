// SPDX-License-Identifier: Apache-2.0
// The CUDA backend's launch geometry (plain host code): grid sizes, the split of reductions into
// CUDA blocks and segments, and where a dense block's rows go in a destination. No GPU needed.
#include "backend/cuda/launch_geometry.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace {

using namespace chunked;
using cuda::Scatter;

constexpr index_t threads = cuda::kernel::block_threads_host;

plan::BlockProgram box(std::vector<index_t> extents) {
  plan::BlockProgram p;
  p.ndim = static_cast<int>(extents.size());
  for (std::size_t k = 0; k < extents.size(); ++k)
    p.extent[k] = extents[k];
  return p;
}

TEST(LaunchGeometry, GridCoversEveryElementWithinTheCap) {
  EXPECT_EQ(cuda::grid_for(0), 1u);
  EXPECT_EQ(cuda::grid_for(1), 1u);
  EXPECT_EQ(cuda::grid_for(threads), 1u);
  EXPECT_EQ(cuda::grid_for(threads + 1), 2u);
  EXPECT_EQ(cuda::grid_for(threads * 4 + 1, 4), 2u);
  EXPECT_EQ(cuda::grid_for(index_t{1} << 40), static_cast<unsigned>(cuda::max_grid));
}

TEST(LaunchGeometry, ReduceAllFoldsWholeRowsOnlyForManyLongRows) {
  // Short boxes: one part per 2048 elements, a grid-wide stride.
  auto l = cuda::reduce_all_launch(box({1}));
  EXPECT_EQ(l.parts, 1);
  EXPECT_EQ(l.rows_per_part, 0);
  l = cuda::reduce_all_launch(box({2048 * 5 + 1}));
  EXPECT_EQ(l.parts, 6);
  EXPECT_EQ(l.rows_per_part, 0);
  l = cuda::reduce_all_launch(box({255, 4096})); // too few rows
  EXPECT_EQ(l.rows_per_part, 0);
  l = cuda::reduce_all_launch(box({4096, 2047})); // rows too short
  EXPECT_EQ(l.rows_per_part, 0);
  EXPECT_EQ(l.parts, cuda::max_reduce_parts);
  // Many long rows: whole rows per part, every row in exactly one part.
  for (const index_t rows : {256, 1000, 1024, 1025, 5000, 1 << 20}) {
    l = cuda::reduce_all_launch(box({rows, 2048}));
    ASSERT_GT(l.rows_per_part, 0) << rows;
    EXPECT_LE(l.parts, cuda::max_reduce_parts) << rows;
    EXPECT_GE(l.parts * l.rows_per_part, rows) << rows;
    EXPECT_LT((l.parts - 1) * l.rows_per_part, rows) << rows;
  }
  // The geometry depends on the box alone: equal boxes, equal launches.
  const auto a = cuda::reduce_all_launch(box({3, 5000, 2048}));
  const auto b = cuda::reduce_all_launch(box({3, 5000, 2048}));
  EXPECT_EQ(a.parts, b.parts);
  EXPECT_EQ(a.rows_per_part, b.rows_per_part);
}

TEST(LaunchGeometry, AxesLaunchHoldsKeptPositionsAndSplitsLongReductions) {
  auto l = cuda::axes_launch(true, 100, 10);
  EXPECT_EQ(l.blocks, 4); // 32 kept positions per CUDA block
  EXPECT_EQ(l.segments, 1);
  l = cuda::axes_launch(false, 100, 10);
  EXPECT_EQ(l.blocks, 100); // one
  EXPECT_EQ(l.segments, 1);
  // One kept position, a long reduction: segments until about 2^18 threads, each lane folding
  // at least 16 positions.
  l = cuda::axes_launch(false, 1, index_t{1} << 30);
  EXPECT_EQ(l.blocks, 1);
  EXPECT_EQ(l.segments, (index_t{1} << 18) / threads);
  l = cuda::axes_launch(false, 1, threads * 16 * 3);
  EXPECT_EQ(l.segments, 3);
  // Enough kept positions fill the GPU without segments.
  l = cuda::axes_launch(true, index_t{1} << 20, index_t{1} << 20);
  EXPECT_EQ(l.segments, 1);
  // Never more segments than gridDim.y allows.
  l = cuda::axes_launch(false, 1, index_t{1} << 62);
  EXPECT_LE(l.segments, 65535);
}

// Exact sums give each lane longer runs where the program only loads its values.
TEST(LaunchGeometry, ExactSumsFoldLongerRunsPerThread) {
  auto l = cuda::axes_launch(true, 4096, 4096, true);
  EXPECT_EQ(l.segments, 4096 / (threads / 32 * cuda::exact_min_per_lane));
  EXPECT_EQ(cuda::axes_launch(true, 4096, 4096).segments, 8);
  plan::BlockProgram p = box({4096, 4096});
  p.sink.op = plan::ReduceOp::exact_sum;
  EXPECT_EQ(cuda::reduce_all_launch(p).parts, cuda::exact_reduce_parts);
  p.leaves.push_back(plan::Leaf{});
  p.leaves.back().kind = plan::LeafKind::normal; // random draws keep their many parts
  EXPECT_EQ(cuda::reduce_all_launch(p).parts, cuda::max_reduce_parts);
  p.sink.op = plan::ReduceOp::sum;
  p.leaves.clear();
  EXPECT_EQ(cuda::reduce_all_launch(p).parts, cuda::max_reduce_parts);
}

/// A 3-D box at `origin` of a C-order destination of `shape`, read in reverse along axis `flip`
/// (or none).
Scatter scatter_into(std::vector<index_t> ext, std::vector<index_t> shape,
                     std::vector<index_t> origin, int flip = -1) {
  plan::BlockProgram p = box(ext);
  const int nd = p.ndim;
  index_t stride = 1;
  for (int k = nd; k-- > 0;) {
    if (k == flip) {
      p.sink.map.coef[k] = -stride;
      p.sink.map.base += stride * (origin[k] + ext[k] - 1);
    } else {
      p.sink.map.coef[k] = stride;
      p.sink.map.base += stride * origin[k];
    }
    stride *= shape[k];
  }
  const plan::AffineMap before = p.sink.map;
  const Scatter s = cuda::make_dense(p);
  EXPECT_EQ(s.target, before);
  // The program now writes its box densely in C order.
  index_t dense = 1;
  for (int k = nd; k-- > 0;) {
    EXPECT_EQ(p.sink.map.coef[k], dense);
    dense *= ext[k];
  }
  EXPECT_EQ(p.sink.map.base, 0);
  return s;
}

/// Destination offset of each flat position of the block, by the map itself.
std::vector<index_t> naive_offsets(const Scatter& s) {
  index_t n = 1;
  for (int k = 0; k < s.ndim; ++k)
    n *= s.extent[k];
  std::vector<index_t> out;
  for (index_t t = 0; t < n; ++t) {
    index_t idx[plan::max_ndim] = {};
    for (index_t r = t, k = s.ndim; k-- > 0;) {
      idx[k] = r % s.extent[k];
      r /= s.extent[k];
    }
    out.push_back(s.target.at(idx, s.ndim));
  }
  return out;
}

TEST(LaunchGeometry, RowsOfAnyRangeLandWhereTheMapSays) {
  const std::vector<Scatter> cases = {
      scatter_into({3, 4, 5}, {7, 9, 11}, {1, 2, 3}),
      scatter_into({3, 4, 5}, {7, 9, 11}, {4, 5, 6}, 2),
      scatter_into({3, 4, 5}, {7, 9, 11}, {0, 0, 0}, 0),
      scatter_into({1, 1, 1}, {1, 1, 1}, {0, 0, 0}),
      scatter_into({2, 1, 7}, {2, 3, 7}, {0, 2, 0}),
  };
  for (const Scatter& s : cases) {
    const std::vector<index_t> expected = naive_offsets(s);
    const auto n = static_cast<index_t>(expected.size());
    // Pieces of every length, as the staging ring cuts them.
    for (const index_t piece : {index_t{1}, index_t{2}, index_t{7}, n}) {
      std::vector<index_t> got(expected.size(), -1);
      for (index_t t0 = 0; t0 < n; t0 += piece) {
        const index_t t1 = std::min(n, t0 + piece);
        cuda::for_each_row(s, t0, t1, [&](index_t offset, index_t step, index_t len, index_t j) {
          for (index_t k = 0; k < len; ++k) {
            ASSERT_LT(t0 + j + k, t1);
            ASSERT_EQ(got[static_cast<std::size_t>(t0 + j + k)], -1) << "written twice";
            got[static_cast<std::size_t>(t0 + j + k)] = offset + k * step;
          }
        });
      }
      EXPECT_EQ(got, expected) << "piece " << piece;
    }
  }
}

TEST(LaunchGeometry, ScalarBlocksLandAtTheMapBase) {
  plan::BlockProgram p;
  p.sink.map.base = 5;
  const Scatter s = cuda::make_dense(p);
  std::vector<index_t> offsets;
  cuda::for_each_row(s, 0, 1, [&](index_t offset, index_t, index_t len, index_t j) {
    EXPECT_EQ(len, 1);
    EXPECT_EQ(j, 0);
    offsets.push_back(offset);
  });
  EXPECT_EQ(offsets, std::vector<index_t>{5});
  const auto copies = cuda::pitched_copies(s);
  ASSERT_TRUE(copies.has_value());
  EXPECT_EQ(copies->width, 1);
  EXPECT_EQ(copies->height, 1);
  EXPECT_EQ(copies->outer, 1);
  EXPECT_EQ(cuda::pitched_copy_offset(s, 0), 5);
}

TEST(LaunchGeometry, PitchedCopiesCoverTheBlockWhenRowsAreIncreasing) {
  for (const Scatter& s : {scatter_into({3, 4, 5}, {7, 9, 11}, {1, 2, 3}),
                           scatter_into({1, 4, 5}, {7, 9, 11}, {4, 5, 6}),
                           scatter_into({2, 1, 7}, {2, 3, 7}, {0, 2, 0})}) {
    const auto copies = cuda::pitched_copies(s);
    ASSERT_TRUE(copies.has_value());
    const std::vector<index_t> expected = naive_offsets(s);
    std::vector<index_t> got;
    // Copy o: `height` rows of `width` elements, `pitch` apart, from the dense block in order.
    for (index_t o = 0; o < copies->outer; ++o)
      for (index_t r = 0; r < copies->height; ++r)
        for (index_t c = 0; c < copies->width; ++c)
          got.push_back(cuda::pitched_copy_offset(s, o) + r * copies->pitch + c);
    EXPECT_EQ(got, expected);
  }
  // Rows reversed along the last axis, rows going backwards, blocks of rows going backwards or
  // overlapping rows: no 2-D copy.
  EXPECT_FALSE(cuda::pitched_copies(scatter_into({3, 4, 5}, {7, 9, 11}, {0, 0, 0}, 2)));
  EXPECT_FALSE(cuda::pitched_copies(scatter_into({3, 4, 5}, {7, 9, 11}, {0, 0, 0}, 1)));
  EXPECT_FALSE(cuda::pitched_copies(scatter_into({3, 4, 5}, {7, 9, 11}, {0, 0, 0}, 0)));
  Scatter overlapping = scatter_into({3, 4, 5}, {7, 9, 11}, {0, 0, 0});
  overlapping.target.coef[1] = 3; // pitch 3 < width 5
  EXPECT_FALSE(cuda::pitched_copies(overlapping));
}

} // namespace
