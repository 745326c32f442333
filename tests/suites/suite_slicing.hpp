// SPDX-License-Identifier: Apache-2.0
// Slicing suite: NumPy basic indexing (negative indices and steps, clamping, dropped axes, views of
// views) against the reference, under every chunking.
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"

#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace chunked::test {
namespace {

using Slicing = BackendTest;
using A = ChunkedArray<double, Backend>;

/// One indexing expression, as the chunked call and as the reference's argument list.
struct IndexCase {
  std::string text;
  std::function<A(const A&)> apply;
  std::vector<Index> args;
};

// clang-format off
#define CHUNKED_INDEX_CASE(...) \
  IndexCase{#__VA_ARGS__, [](const A& x) { return x(__VA_ARGS__); }, std::vector<Index>{__VA_ARGS__}}
// clang-format on

/// Cases for a (7, 8) array.
std::vector<IndexCase> cases_2d() {
  return {
      CHUNKED_INDEX_CASE(all),
      CHUNKED_INDEX_CASE(slice(1, 5)),
      CHUNKED_INDEX_CASE(slice(none, none, 2), slice(none, none, 3)),
      CHUNKED_INDEX_CASE(slice(none, none, -1)),
      CHUNKED_INDEX_CASE(slice(none, none, -2), slice(6, 1, -3)),
      CHUNKED_INDEX_CASE(slice(-3, none), slice(none, -2)),
      CHUNKED_INDEX_CASE(slice(-100, 100), slice(2, 100, 4)),
      CHUNKED_INDEX_CASE(slice(100, -100, -1), slice(-1, -9, -2)),
      CHUNKED_INDEX_CASE(slice(5, 2)),      // empty
      CHUNKED_INDEX_CASE(all, slice(3, 3)), // empty on the second axis
      CHUNKED_INDEX_CASE(slice(2, 5, -1)),  // empty with a negative step
      CHUNKED_INDEX_CASE(3),                // drops the first axis
      CHUNKED_INDEX_CASE(-1),
      CHUNKED_INDEX_CASE(all, 0),
      CHUNKED_INDEX_CASE(slice(none, none, 3), -3),
      CHUNKED_INDEX_CASE(-7, 7), // rank 0
      CHUNKED_INDEX_CASE(2, slice(none, none, -1)),
      CHUNKED_INDEX_CASE(slice(1, none, 4), slice(7, none, -7)),
  };
}

/// Cases for a (5, 4, 3) array.
std::vector<IndexCase> cases_3d() {
  return {
      CHUNKED_INDEX_CASE(1),
      CHUNKED_INDEX_CASE(slice(none, none, -2), 2),
      CHUNKED_INDEX_CASE(all, all, -1),
      CHUNKED_INDEX_CASE(-2, slice(1, 3), slice(none, none, -1)),
      CHUNKED_INDEX_CASE(slice(1, 4), -4, 0),
      CHUNKED_INDEX_CASE(slice(4, 0, -3), slice(-1, none, -1), slice(0, 3, 2)),
      CHUNKED_INDEX_CASE(0, 0, 0),
      CHUNKED_INDEX_CASE(all, slice(2, 1)),
  };
}

#undef CHUNKED_INDEX_CASE

void check_cases(const Extents& shape, const std::vector<IndexCase>& cases) {
  std::mt19937_64 rng(41);
  const auto ref = random_dense<double>(shape, rng);
  for (const auto& chunks : chunkings_for(shape)) {
    const A x = make_array<Backend>(ref, chunks);
    for (const auto& c : cases) {
      SCOPED_TRACE(label(chunks) + ": x(" + c.text + ")");
      const auto want = index(ref, c.args);
      const A v = c.apply(x);
      EXPECT_EQ(v.shape().extents(), want.shape());
      EXPECT_EQ(v.chunks().shape(), v.shape());
      EXPECT_TRUE(matches(v.compute(), want));
      // The view feeds arithmetic and reductions like any array.
      EXPECT_TRUE(
          matches((v * 2.0 + 1.0).compute(), map(want, [](double d) { return d * 2.0 + 1.0; })));
      EXPECT_TRUE(matches(v.sum().compute(), ref_sum(want), tight<double>()));
    }
  }
}

TEST_F(Slicing, TwoDimensionalCasesMatchNumPy) { check_cases({7, 8}, cases_2d()); }

TEST_F(Slicing, ThreeDimensionalCasesMatchNumPy) { check_cases({5, 4, 3}, cases_3d()); }

TEST_F(Slicing, FewerIndicesThanAxesKeepTheRestWhole) {
  std::mt19937_64 rng(42);
  const auto ref = random_dense<std::int64_t>({4, 3, 5}, rng);
  for (const auto& chunks : chunkings_for(ref.shape())) {
    SCOPED_TRACE(label(chunks));
    const auto x = make_array<Backend>(ref, chunks);
    EXPECT_TRUE(matches(x(2).compute(), index(ref, {index_t{2}})));
    EXPECT_TRUE(matches(x(slice(none, none, -1)).compute(), index(ref, {Slice(none, none, -1)})));
    EXPECT_TRUE(matches(x(1, -1).compute(), index(ref, {index_t{1}, index_t{-1}})));
    EXPECT_TRUE(matches(x().compute(), ref));
  }
}

TEST_F(Slicing, ChainedViewsAndViewsOfRechunkedViews) {
  std::mt19937_64 rng(43);
  const auto ref = random_dense<double>({9, 10}, rng);
  const auto step1 = index(ref, {Slice(1, none), Slice(none, none, -1)});
  const auto step2 = index(step1, {Slice(none, none, 2), Slice(2, -1)});
  const auto step3 = index(step2, {Slice(none, none, -1), index_t{3}});
  for (const auto& chunks : chunkings_for(ref.shape())) {
    SCOPED_TRACE(label(chunks));
    const A x = make_array<Backend>(ref, chunks);
    const A v1 = x(slice(1, none), slice(none, none, -1));
    const A v2 = v1(slice(none, none, 2), slice(2, -1));
    const A v3 = v2(slice(none, none, -1), 3);
    EXPECT_TRUE(matches(v1.compute(), step1));
    EXPECT_TRUE(matches(v2.compute(), step2));
    EXPECT_TRUE(matches(v3.compute(), step3));
    // Rechunking between the views changes the grids the later views cut, not their values.
    const A r2 = v1.rechunk(Chunks{3, 4})(slice(none, none, 2), slice(2, -1));
    const A r3 = r2.rechunk(Chunks{1, 2})(slice(none, none, -1), 3);
    EXPECT_TRUE(matches(r2.compute(), step2));
    EXPECT_TRUE(matches(r3.compute(), step3));
    // Views of different grids combine elementwise.
    const auto other =
        make_array<Backend>(ref, Chunks{4, 3})(slice(1, none), slice(none, none, -1));
    EXPECT_TRUE(matches((v1 - other).compute(), Dense<double>(step1.shape(), 0.0)));
  }
}

TEST_F(Slicing, ViewsOfElementwiseResultsAndOfReductions) {
  std::mt19937_64 rng(44);
  const auto ref = random_dense<double>({6, 5}, rng);
  const auto plus = map(ref, [](double d) { return d + 1.0; });
  for (const auto& chunks : chunkings_for(ref.shape())) {
    SCOPED_TRACE(label(chunks));
    const A x = make_array<Backend>(ref, chunks);
    EXPECT_TRUE(matches((x + 1.0)(slice(none, none, 2), slice(none, none, 2)).compute(),
                        index(plus, {Slice(none, none, 2), Slice(none, none, 2)})));
    EXPECT_TRUE(matches(x.sum(Axes{0})(slice(none, none, -2)).compute(),
                        index(ref_sum(ref, {0}), {Slice(none, none, -2)}), tight<double>()));
    EXPECT_TRUE(matches(x.max(Axes{1}, true)(slice(1, 4), 0).compute(),
                        index(ref_max(ref, {1}, true), {Slice(1, 4), index_t{0}})));
  }
}

TEST_F(Slicing, StepsNearPlusMinus2To63KeepWhatPythonKeeps) {
  // list(range(10))[s] in Python; the lengths used to overflow to empty views or errors.
  constexpr index_t max = std::numeric_limits<index_t>::max();
  constexpr index_t min = std::numeric_limits<index_t>::min();
  const auto x = arange<std::int64_t, Backend>(0, 10, 1, 3);
  auto values = [&](Slice s) {
    const auto v = x(s).compute();
    return std::vector<std::int64_t>(v.begin(), v.end());
  };
  EXPECT_EQ(values(slice(0, 10, max)), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(values(slice(none, none, min)), (std::vector<std::int64_t>{9}));
  EXPECT_EQ(values(slice(2, none, -max)), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(values(slice(none, -1, max)), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(values(slice(min, max, max - 1)), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(values(slice(max, min, -3)), (std::vector<std::int64_t>{9, 6, 3, 0}));
}

TEST_F(Slicing, HugeLazyArraysWhoseCountsFitStayValid) {
  // 2^62 bools: one byte each, within int64's bytes.
  const index_t n = index_t{1} << 31;
  const auto col = zeros<bool, Backend>(Shape{n, 1}, Chunks{index_t{1} << 20, 1});
  const auto y = col | (arange<std::int64_t, Backend>(0, n, 1, index_t{1} << 24) > 5);
  EXPECT_EQ(y.size(), index_t{1} << 62);
  EXPECT_EQ(y.nbytes(), std::size_t{1} << 62);
  const auto row = y(7, slice(3, 9)).compute();
  EXPECT_EQ(std::vector<bool>(row.begin(), row.end()),
            (std::vector<bool>{false, false, false, true, true, true}));
  const auto corner = y(slice(none, none, -(n - 1)), slice(none, none, n - 5)).compute();
  EXPECT_EQ(corner.shape(), (Shape{2, 2}));
  EXPECT_EQ(std::vector<bool>(corner.begin(), corner.end()),
            (std::vector<bool>{false, true, false, true}));
  // 2^59 int64 values, read and reduced at their far end.
  const auto a = arange<std::int64_t, Backend>(0, index_t{1} << 59, 1, index_t{1} << 40);
  const auto strided = a(slice(none, none, index_t{1} << 56));
  EXPECT_EQ(strided.size(), 8);
  EXPECT_EQ(strided.sum().item(), 28 * (index_t{1} << 56));
  EXPECT_EQ(a(slice(-2, none)).compute()(1), (index_t{1} << 59) - 1);
  EXPECT_EQ(a(slice(none, none, -(index_t{1} << 58)))(1).item(), (index_t{1} << 58) - 1);
}

TEST_F(Slicing, ViewChunksFollowTheSourceBlocks) {
  // Positions that read one source block form one chunk of the view (as in Dask).
  const auto x = zeros<double, Backend>(Shape{10}, Chunks{4});
  EXPECT_EQ(x(slice(none, none, 2)).chunks().lengths(0), (std::vector<index_t>{2, 2, 1}));
  EXPECT_EQ(x(slice(none, none, -1)).chunks().lengths(0), (std::vector<index_t>{2, 4, 4}));
  EXPECT_EQ(x(slice(3, 3)).size(), 0);
  EXPECT_EQ(x(5).ndim(), 0);
}

TEST_F(Slicing, StepsLongerThanTheAxisKeepOneElement) {
  // A step near INT64_MAX keeps only the start; working out the view's chunks must not overflow
  // (it once looped, growing memory, for a step longer than the rest of a block).
  constexpr index_t huge = std::numeric_limits<index_t>::max();
  for (index_t chunk : {1, 2, 3, 5}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    const auto x = arange<double, Backend>(0.0, 5.0, 1.0, chunk);
    const auto one = [&](const A& v, double want) {
      ASSERT_EQ(v.shape(), Shape{1});
      EXPECT_EQ(v.chunks().lengths(0), std::vector<index_t>{1});
      EXPECT_EQ(v.compute()(0), want);
    };
    one(x(slice(0, 1, huge)), 0.0);
    one(x(slice(2, 3, huge)), 2.0);
    one(x(slice(0, -4, huge)), 0.0);
    one(x(slice(3, 5, huge - 1)), 3.0);
    one(x(slice(none, none, huge / 2)), 0.0);
    one(x(slice(1, 0, -huge)), 1.0);
    one(x(slice(4, 3, -huge)), 4.0);
    one(x(slice(4, 0, -(huge / 2))), 4.0);
    const auto m = zeros<double, Backend>(Shape{3, 5}, Chunks{2, chunk}) + x;
    const auto v = m(slice(1, 2, huge), slice(1, 3, huge - 1));
    ASSERT_EQ(v.shape(), (Shape{1, 1}));
    EXPECT_EQ(v.compute()(0, 0), 1.0);
  }
}

} // namespace
} // namespace chunked::test
