// SPDX-License-Identifier: Apache-2.0
// Moments suite: mean, var and std of data holding NaN and infinities, alone and computed in one
// shared moments pass, on every chunking, against NumPy's two-pass definitions.
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace chunked::test {
namespace {

using Moments = BackendTest;

template <class T> class MomentsTyped : public TypedBackendTest<T> {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MomentsTyped, FloatTypes);

// ref_mean and ref_var are NumPy's definitions in long double: the mean is the sum over the
// count (+inf, -inf or NaN with infinities), the variance sums (x - mean)^2, which is NaN as soon
// as one element is not finite.

template <class T> T nan_v() { return std::numeric_limits<T>::quiet_NaN(); }
template <class T> T inf_v() { return std::numeric_limits<T>::infinity(); }

/// One non-finite value planted at (flat) position `at`.
template <class T> struct Plant {
  index_t at;
  T value;
};

/// Random finite values with the plants on top.
template <class T>
Dense<T> planted(const Extents& shape, std::uint64_t seed, const std::vector<Plant<T>>& plants) {
  std::mt19937_64 rng(seed);
  auto d = random_dense<T>(shape, rng);
  for (const auto& p : plants)
    d[p.at] = p.value;
  return d;
}

/// A rank-3 block where lines along every axis hold each case: NaN, +inf, -inf, +inf twice,
/// both infinities, an infinity with a NaN, and no plant at all.
template <class T> Dense<T> planted_3d() {
  const T nan = nan_v<T>(), inf = inf_v<T>();
  // Shape {4, 3, 5}: flat = 15 i + 5 j + k.
  return planted<T>({4, 3, 5}, 61,
                    {{0, inf},    // (0,0,0): first element of several lines
                     {7, nan},    // (0,1,2)
                     {23, -inf},  // (1,1,3)
                     {38, inf},   // (2,1,3): with (1,1,3), both signs along axis 0
                     {44, inf},   // (2,2,4)
                     {59, inf},   // (3,2,4): +inf twice along axis 0
                     {46, -inf},  // (3,0,1)
                     {49, nan},   // (3,0,4)
                     {50, inf}}); // (3,1,0)
}

/// A matrix wide and tall enough for the CPU's row-at-a-time and vector loops (blocks of rows,
/// blocks of 64 entries and a tail), with every case in some column and in some row.
template <class T> Dense<T> planted_wide() {
  const T nan = nan_v<T>(), inf = inf_v<T>();
  const index_t cols = 77;
  auto at = [&](index_t r, index_t c) { return r * cols + c; };
  return planted<T>({40, cols}, 62,
                    {{at(5, 3), nan},
                     {at(0, 10), inf},
                     {at(39, 11), -inf},
                     {at(9, 12), inf},
                     {at(30, 12), inf},
                     {at(2, 13), inf},
                     {at(20, 13), -inf},
                     {at(8, 40), inf},
                     {at(15, 41), -inf},
                     {at(16, 41), nan},
                     {at(17, 70), inf},
                     {at(0, 76), nan},
                     {at(33, 64), -inf}});
}

const std::vector<std::vector<index_t>> moment_axis_sets = {{},     {0},    {1},    {2},      {-1},
                                                            {0, 1}, {0, 2}, {2, 1}, {0, 1, 2}};

TYPED_TEST(MomentsTyped, NonFiniteDataGiveNumPyResultsOnEveryChunking) {
  using T = TypeParam;
  const auto ref = planted_3d<T>();
  std::vector<Chunks> chunkings = chunkings_for(ref.shape());
  chunkings.push_back(Chunks{3, 2, 4});
  for (const auto& chunks : chunkings) {
    const auto x = make_array<Backend>(ref, chunks);
    for (const auto& axes_list : moment_axis_sets) {
      for (bool keep : {false, true}) {
        SCOPED_TRACE(label(chunks) + " axes " + detail::format_tuple(axes_list) +
                     (keep ? " keepdims" : ""));
        const Axes axes(axes_list);
        EXPECT_TRUE(
            matches(x.mean(axes, keep).compute(), ref_mean(ref, axes_list, keep), tight<T>()));
        for (index_t ddof : {0, 1}) {
          EXPECT_TRUE(matches(x.var(axes, ddof, keep).compute(),
                              ref_var(ref, axes_list, ddof, keep), tight<T>()));
          EXPECT_TRUE(matches(x.std(axes, ddof, keep).compute(),
                              ref_var(ref, axes_list, ddof, keep, true), tight<T>()));
        }
      }
    }
  }
}

// mean, var and std of one input over the same axes share one moments pass: its mean must be
// +inf or -inf where the data hold infinities of one sign, as the plain mean is.
TYPED_TEST(MomentsTyped, NonFiniteDataInTheSharedMomentsPass) {
  using T = TypeParam;
  const auto ref = planted_3d<T>();
  for (const auto& chunks : chunkings_for(ref.shape())) {
    const auto x = make_array<Backend>(ref, chunks);
    for (const auto& axes_list : moment_axis_sets) {
      SCOPED_TRACE(label(chunks) + " axes " + detail::format_tuple(axes_list));
      const Axes axes(axes_list);
      auto [mean, var, sd] =
          compute(ComputeOptions{}, x.mean(axes), x.var(axes, 1), x.std(axes, 0, true));
      EXPECT_TRUE(matches(mean, ref_mean(ref, axes_list), tight<T>()));
      EXPECT_TRUE(matches(var, ref_var(ref, axes_list, 1, false), tight<T>()));
      EXPECT_TRUE(matches(sd, ref_var(ref, axes_list, 0, true, true), tight<T>()));
    }
  }
}

TYPED_TEST(MomentsTyped, NonFiniteDataAlongTheAxesOfAWideMatrix) {
  using T = TypeParam;
  const auto ref = planted_wide<T>();
  const auto mean0 = ref_mean(ref, {0});
  const auto std0 = ref_var(ref, {0}, 0, false, true);
  const auto standardized =
      zip(zip(ref, mean0, [](T a, T m) { return a - m; }), std0, [](T d, T s) { return d / s; });
  for (const auto& chunks : {Chunks{40, 77}, Chunks{16, 77}, Chunks{7, 77}, Chunks{40, 30},
                             Chunks{1, 77}, Chunks{40, 1}, Chunks{9, 65}, Chunks{3, 5}}) {
    SCOPED_TRACE(label(chunks));
    const auto x = make_array<Backend>(ref, chunks);
    for (const std::vector<index_t>& axes_list : {std::vector<index_t>{0}, {1}, {}}) {
      SCOPED_TRACE("axes " + detail::format_tuple(axes_list));
      const Axes axes(axes_list);
      EXPECT_TRUE(matches(x.var(axes).compute(), ref_var(ref, axes_list, 0, false), tight<T>()));
      EXPECT_TRUE(
          matches(x.std(axes, 1).compute(), ref_var(ref, axes_list, 1, false, true), tight<T>()));
      auto [mean, sd] = compute(ComputeOptions{}, x.mean(axes), x.std(axes));
      EXPECT_TRUE(matches(mean, ref_mean(ref, axes_list), tight<T>()));
      EXPECT_TRUE(matches(sd, ref_var(ref, axes_list, 0, false, true), tight<T>()));
    }
    // A standardize: the mean and std of each column in one moments pass, then the result pass.
    EXPECT_TRUE(
        matches(((x - x.mean(Axes{0})) / x.std(Axes{0})).compute(), standardized, tight<T>()));
  }
}

// One element per line: NumPy's variance is 0 for a finite element, NaN for NaN or an infinity
// (inf - inf); the mean is the element.
TYPED_TEST(MomentsTyped, LengthOneAxes) {
  using T = TypeParam;
  const T nan = nan_v<T>(), inf = inf_v<T>();
  const Dense<T> row({1, 6}, {nan, inf, -inf, T(1.5), T(-2), T(0)});
  const Dense<T> cube({3, 1, 2}, {nan, T(2), inf, T(-1), -inf, T(4)});
  for (const auto& chunks : chunkings_for(row.shape())) {
    SCOPED_TRACE(label(chunks));
    const auto x = make_array<Backend>(row, chunks);
    for (bool keep : {false, true}) {
      EXPECT_TRUE(matches(x.var(Axes{0}, 0, keep).compute(), ref_var(row, {0}, 0, keep)));
      EXPECT_TRUE(matches(x.std(Axes{0}, 0, keep).compute(), ref_var(row, {0}, 0, keep, true)));
      EXPECT_TRUE(matches(x.mean(Axes{0}, keep).compute(), ref_mean(row, {0}, keep)));
    }
    auto [mean, sd] = compute(ComputeOptions{}, x.mean(Axes{0}), x.std(Axes{0}));
    EXPECT_TRUE(matches(mean, ref_mean(row, {0})));
    EXPECT_TRUE(matches(sd, ref_var(row, {0}, 0, false, true)));
    EXPECT_TRUE(matches(((x - x.mean(Axes{0})) / x.std(Axes{0})).compute(),
                        Dense<T>({1, 6}, {nan, nan, nan, nan, nan, nan})));
  }
  for (const auto& chunks : chunkings_for(cube.shape())) {
    SCOPED_TRACE(label(chunks));
    const auto x = make_array<Backend>(cube, chunks);
    EXPECT_TRUE(matches(x.var(Axes{1}).compute(), ref_var(cube, {1}, 0, false)));
    auto [mean, sd] = compute(ComputeOptions{}, x.mean(Axes{1}, true), x.std(Axes{1}, 0, true));
    EXPECT_TRUE(matches(mean, ref_mean(cube, {1}, true)));
    EXPECT_TRUE(matches(sd, ref_var(cube, {1}, 0, true, true)));
  }
}

// Every element of a line non-finite, in each combination, whatever the blocks.
TEST_F(Moments, LinesWithoutAFiniteElement) {
  const double nan = nan_v<double>(), inf = inf_v<double>();
  const Dense<double> ref({6, 3}, {inf, -inf, nan,  //
                                   inf, -inf, inf,  //
                                   inf, -inf, inf,  //
                                   inf, -inf, -inf, //
                                   inf, -inf, inf,  //
                                   inf, -inf, inf});
  for (const auto& chunks : chunkings_for(ref.shape())) {
    SCOPED_TRACE(label(chunks));
    const auto x = make_array<Backend>(ref, chunks);
    auto [mean, var] = compute(ComputeOptions{}, x.mean(Axes{0}), x.var(Axes{0}));
    EXPECT_TRUE(matches(mean, Dense<double>({3}, {inf, -inf, nan})));
    EXPECT_TRUE(matches(var, Dense<double>({3}, {nan, nan, nan})));
    EXPECT_TRUE(matches(x.mean(Axes{1}).compute(), ref_mean(ref, {1})));
    EXPECT_TRUE(std::isnan(x.std().item()));
  }
}

} // namespace
} // namespace chunked::test
