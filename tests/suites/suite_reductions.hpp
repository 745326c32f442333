// SPDX-License-Identifier: Apache-2.0
// Reductions suite: every reduction over every axis set, keepdims, arg-reductions, result types,
// empty arrays, NaN, and reductions feeding elementwise operations.
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace chunked::test {
namespace {

using Reductions = BackendTest;

template <class T> class ReductionsTyped : public TypedBackendTest<T> {};
using ElementTypes = ::testing::Types<bool, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(ReductionsTyped, ElementTypes);

template <class X> using value_t = typename std::remove_cvref_t<X>::value_type;

/// Axis sets of a rank-3 array: all, each axis (positive and negative), pairs, and all three.
const std::vector<std::vector<index_t>> axis_sets_3d = {
    {}, {0}, {1}, {2}, {-1}, {-3}, {0, 1}, {0, 2}, {2, 1}, {-1, 0}, {0, 1, 2}};

template <class T> Tolerance sum_tolerance() {
  if constexpr (std::is_same_v<T, float>)
    return {1e-5, 1e-4};
  else
    return tight<T>();
}

TYPED_TEST(ReductionsTyped, EveryReductionOverEveryAxisSet) {
  using T = TypeParam;
  using S = detail::sum_t<T>;
  using M = detail::mean_t<T>;
  std::mt19937_64 rng(51);
  const Extents shape{4, 3, 5};
  // Products of many values overflow floats' precision quickly: keep their magnitudes near 1.
  const auto ref = random_dense<T>(shape, rng, true);
  const auto near_one = map(ref, [](T v) {
    if constexpr (std::is_same_v<T, bool>)
      return v;
    else
      return static_cast<T>(static_cast<std::int64_t>(v) % 3);
  });
  for (const auto& chunks : chunkings_for(shape)) {
    const auto x = make_array<Backend>(ref, chunks);
    const auto p = make_array<Backend>(near_one, chunks);
    for (const auto& axes_list : axis_sets_3d) {
      for (bool keep : {false, true}) {
        SCOPED_TRACE(label(chunks) + " axes " + detail::format_tuple(axes_list) +
                     (keep ? " keepdims" : ""));
        const Axes axes(axes_list);
        const auto sum = x.sum(axes, keep);
        static_assert(std::is_same_v<value_t<decltype(sum)>, S>);
        EXPECT_TRUE(matches(sum.compute(), ref_sum(ref, axes_list, keep), sum_tolerance<S>()));
        const auto prod = p.prod(axes, keep);
        static_assert(std::is_same_v<value_t<decltype(prod)>, S>);
        EXPECT_TRUE(
            matches(prod.compute(), ref_prod(near_one, axes_list, keep), sum_tolerance<S>()));
        const auto mn = x.min(axes, keep);
        static_assert(std::is_same_v<value_t<decltype(mn)>, T>);
        EXPECT_TRUE(matches(mn.compute(), ref_min(ref, axes_list, keep)));
        EXPECT_TRUE(matches(x.max(axes, keep).compute(), ref_max(ref, axes_list, keep)));
        const auto mean = x.mean(axes, keep);
        static_assert(std::is_same_v<value_t<decltype(mean)>, M>);
        EXPECT_TRUE(matches(mean.compute(), ref_mean(ref, axes_list, keep), sum_tolerance<M>()));
        EXPECT_TRUE(matches(x.any(axes, keep).compute(), ref_any(ref, axes_list, keep)));
        EXPECT_TRUE(matches(x.all(axes, keep).compute(), ref_all(ref, axes_list, keep)));
        for (index_t ddof : {0, 1}) {
          const auto var = x.var(axes, ddof, keep);
          static_assert(std::is_same_v<value_t<decltype(var)>, M>);
          EXPECT_TRUE(
              matches(var.compute(), ref_var(ref, axes_list, ddof, keep), sum_tolerance<M>()));
          EXPECT_TRUE(matches(x.std(axes, ddof, keep).compute(),
                              ref_var(ref, axes_list, ddof, keep, true), sum_tolerance<M>()));
        }
      }
    }
  }
}

// mean, var and std of one input over the same axes, computed together, share one moments pass:
// each must still match its reference, whatever the chunking.
TYPED_TEST(ReductionsTyped, MeanVarAndStdComputedTogether) {
  using T = TypeParam;
  using M = detail::mean_t<T>;
  std::mt19937_64 rng(55);
  const Extents shape{4, 3, 5};
  const auto ref = random_dense<T>(shape, rng, true);
  for (const auto& chunks : chunkings_for(shape)) {
    const auto x = make_array<Backend>(ref, chunks);
    for (const auto& axes_list : axis_sets_3d) {
      SCOPED_TRACE(label(chunks) + " axes " + detail::format_tuple(axes_list));
      const Axes axes(axes_list);
      auto [mean, var, sd, centered] = compute(ComputeOptions{}, x.mean(axes), x.var(axes, 1),
                                               x.std(axes, 0, true), x - x.mean(axes, true));
      EXPECT_TRUE(matches(mean, ref_mean(ref, axes_list), sum_tolerance<M>()));
      EXPECT_TRUE(matches(var, ref_var(ref, axes_list, 1, false), sum_tolerance<M>()));
      EXPECT_TRUE(matches(sd, ref_var(ref, axes_list, 0, true, true), sum_tolerance<M>()));
      const auto ref_centered =
          zip(cast<M>(ref), ref_mean(ref, axes_list, true), [](M a, M m) { return a - m; });
      EXPECT_TRUE(matches(centered, ref_centered, sum_tolerance<M>()));
    }
  }
}

TYPED_TEST(ReductionsTyped, FreeFunctionsMirrorMembers) {
  using T = TypeParam;
  std::mt19937_64 rng(52);
  const auto ref = random_dense<T>({5, 6}, rng, true);
  const auto x = make_array<Backend>(ref, Chunks{2, 4});
  EXPECT_TRUE(
      matches(sum(x, Axes{1}).compute(), ref_sum(ref, {1}), sum_tolerance<detail::sum_t<T>>()));
  EXPECT_TRUE(matches(prod(x, Axes{0}, true).compute(), ref_prod(ref, {0}, true),
                      sum_tolerance<detail::sum_t<T>>()));
  EXPECT_TRUE(matches(min(x).compute(), ref_min(ref)));
  EXPECT_TRUE(matches(max(x, Axes{-1}).compute(), ref_max(ref, {-1})));
  EXPECT_TRUE(
      matches(mean(x, Axes{0}).compute(), ref_mean(ref, {0}), sum_tolerance<detail::mean_t<T>>()));
  EXPECT_TRUE(matches(any(x, Axes{1}).compute(), ref_any(ref, {1})));
  EXPECT_TRUE(matches(var(x, Axes{}, 1).compute(), ref_var(ref, {}, 1, false),
                      sum_tolerance<detail::mean_t<T>>()));
  EXPECT_TRUE(matches(std(x, Axes{1}, 0, true).compute(), ref_var(ref, {1}, 0, true, true),
                      sum_tolerance<detail::mean_t<T>>()));
  EXPECT_TRUE(matches(argmin(x).compute(), ref_arg(ref, std::nullopt, false)));
  EXPECT_TRUE(matches(argmax(x, 1).compute(), ref_arg(ref, 1, true)));
}

TYPED_TEST(ReductionsTyped, ArgMinArgMaxFlatAndAlongAxes) {
  using T = TypeParam;
  std::mt19937_64 rng(53);
  const Extents shape{4, 3, 5};
  // Few distinct values: ties everywhere, so "first occurrence" is tested.
  const auto ref = map(random_dense<std::int32_t>(shape, rng), [](std::int32_t v) {
    if constexpr (std::is_same_v<T, bool>)
      return v > 0;
    else
      return static_cast<T>(v % 3);
  });
  for (const auto& chunks : chunkings_for(shape)) {
    SCOPED_TRACE(label(chunks));
    const auto x = make_array<Backend>(ref, chunks);
    const auto flat = x.argmin();
    static_assert(std::is_same_v<value_t<decltype(flat)>, std::int64_t>);
    EXPECT_EQ(flat.ndim(), 0);
    EXPECT_TRUE(matches(flat.compute(), ref_arg(ref, std::nullopt, false)));
    EXPECT_TRUE(matches(x.argmax().compute(), ref_arg(ref, std::nullopt, true)));
    for (int axis : {0, 1, 2, -1, -2}) {
      SCOPED_TRACE("axis " + std::to_string(axis));
      EXPECT_TRUE(matches(x.argmin(axis).compute(), ref_arg(ref, axis, false)));
      EXPECT_TRUE(matches(x.argmax(axis).compute(), ref_arg(ref, axis, true)));
    }
  }
}

TEST_F(Reductions, ArgMinArgMaxTiesAcrossBlocksAndNaN) {
  // The extreme appears in several blocks; the first one wins.
  const Dense<double> ties({8}, {3, 1, 5, 1, 5, 0, 5, 0});
  const Dense<double> nans({2, 4}, {1, std::nan(""), 7, std::nan(""), -1, 2, 3, 4});
  for (const auto& c : chunkings_for({8})) {
    SCOPED_TRACE(label(c));
    EXPECT_EQ(make_array<Backend>(ties, c).argmin().item(), 5);
    EXPECT_EQ(make_array<Backend>(ties, c).argmax().item(), 2);
  }
  for (const auto& c : chunkings_for(nans.shape())) {
    SCOPED_TRACE(label(c));
    const auto x = make_array<Backend>(nans, c);
    EXPECT_EQ(x.argmin().item(), 1) << "NaN counts as the extreme, first one wins";
    EXPECT_EQ(x.argmax().item(), 1);
    EXPECT_TRUE(matches(x.argmin(1).compute(), Dense<std::int64_t>({2}, {1, 0})));
    EXPECT_TRUE(matches(x.argmax(0).compute(), Dense<std::int64_t>({4}, {0, 0, 0, 0})));
    EXPECT_TRUE(std::isnan(x.min().item()));
    EXPECT_TRUE(std::isnan(x.max(Axes{0}).compute()(1)));
    EXPECT_EQ(x.max(Axes{0}).compute()(2), 7.0);
    EXPECT_TRUE(std::isnan(x.sum().item()));
    EXPECT_TRUE(std::isnan(x.mean(Axes{1}).compute()(0)));
    EXPECT_FALSE(std::isnan(x.mean(Axes{1}).compute()(1)));
  }
}

TEST_F(Reductions, IntegerAndBoolSumsAccumulateInInt64) {
  using L32 = std::numeric_limits<std::int32_t>;
  const Dense<std::int32_t> big({6},
                                {L32::max(), L32::max(), L32::max(), L32::min(), 7, L32::max()});
  for (const auto& c : chunkings_for({6})) {
    SCOPED_TRACE(label(c));
    const auto x = make_array<Backend>(big, c);
    EXPECT_EQ(x.sum().item(), 3LL * L32::max() + L32::min() + 7 + L32::max());
    EXPECT_DOUBLE_EQ(x.mean().item(), (3.0 * L32::max() + L32::min() + 7 + L32::max()) / 6.0);
    EXPECT_EQ(x.max().item(), L32::max());
    EXPECT_EQ(x.min().item(), L32::min());
  }
  const Dense<bool> flags({2, 5}, {true, false, true, true, false, true, true, true, true, true});
  const auto f = make_array<Backend>(flags, Chunks{1, 2});
  static_assert(std::is_same_v<value_t<decltype(f.sum())>, std::int64_t>);
  EXPECT_EQ(f.sum().item(), 8);
  EXPECT_TRUE(matches(f.sum(Axes{1}).compute(), Dense<std::int64_t>({2}, {3, 5})));
  EXPECT_DOUBLE_EQ(f.mean().item(), 0.8);
  EXPECT_FALSE(f.all().item());
  EXPECT_TRUE(matches(f.all(Axes{1}).compute(), Dense<bool>({2}, {false, true})));
  EXPECT_TRUE(f.any().item());
}

// NumPy accepts any ddof and divides by max(N - ddof, 0): np.var([1, 2, 3], ddof=-1) is 2 / 4,
// ddof=3 gives 2 / 0 = inf, and 0 / 0 = NaN where the values do not vary.
TEST_F(Reductions, AnyDdofDividesByNMinusDdofAsNumPy) {
  std::mt19937_64 rng(17);
  const auto ref = random_dense<double>({6, 5}, rng);
  for (const auto& chunks : chunkings_for(ref.shape())) {
    SCOPED_TRACE(label(chunks));
    const auto x = make_array<Backend>(ref, chunks);
    for (index_t ddof : {-1, -7, 6}) {
      EXPECT_TRUE(
          matches(x.var(Axes{0}, ddof).compute(), ref_var(ref, {0}, ddof, false), tight<double>()));
      EXPECT_TRUE(matches(x.std(Axes{1}, ddof, true).compute(), ref_var(ref, {1}, ddof, true, true),
                          tight<double>()));
    }
  }
  const auto v = from_host<Backend>(std::vector<std::int32_t>{1, 2, 3}, Shape{3}, Chunks{2});
  EXPECT_EQ(v.var(Axes{}, -1).item(), 0.5);
  EXPECT_EQ(v.std(Axes{}, -5).item(), 0.5);
  EXPECT_EQ(v.var(Axes{}, 3).item(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(v.var(Axes{}, std::numeric_limits<index_t>::max()).item(),
            std::numeric_limits<double>::infinity());
  EXPECT_EQ(v.var(Axes{}, std::numeric_limits<index_t>::min()).item(), 2.0 / 0x1p63);
  EXPECT_TRUE(std::isnan(full<double, Backend>(Shape{2}, Chunks{1}, 4.0).var(Axes{}, 2).item()));
}

TEST_F(Reductions, EmptyArraysHaveIdentities) {
  for (const auto& shape : std::vector<Extents>{{0}, {3, 0}, {0, 4, 2}}) {
    for (const auto& c : chunkings_for(shape)) {
      SCOPED_TRACE(extents_string(shape) + " " + label(c));
      const auto x = zeros<double, Backend>(Shape(shape), c);
      const auto k = zeros<std::int32_t, Backend>(Shape(shape), c);
      EXPECT_EQ(x.sum().item(), 0.0);
      EXPECT_EQ(x.prod().item(), 1.0);
      EXPECT_EQ(k.sum().item(), 0);
      EXPECT_EQ(k.prod().item(), 1);
      EXPECT_FALSE(x.any().item());
      EXPECT_TRUE(x.all().item());
      // Reducing one axis: empty where another axis is empty, else identities.
      EXPECT_TRUE(matches(x.sum(Axes{-1}).compute(), ref_sum(Dense<double>(shape), {-1})));
      EXPECT_TRUE(matches(k.prod(Axes{0}, true).compute(),
                          ref_prod(Dense<std::int32_t>(shape), {0}, true)));
    }
  }
  // Reducing an empty axis leaves the other axes: sum over axis 1 of (3, 0) is three zeros.
  EXPECT_TRUE(matches(zeros<double, Backend>(Shape{3, 0}, Chunks{2, 1}).sum(Axes{1}).compute(),
                      Dense<double>({3}, 0.0)));
  EXPECT_TRUE(
      matches(ones<std::int64_t, Backend>(Shape{3, 0}, Chunks{2, 1}).prod(Axes{1}, true).compute(),
              Dense<std::int64_t>({3, 1}, 1)));
}

TEST_F(Reductions, RankZeroReductionsAreTheElement) {
  const auto s = full<double, Backend>(Shape{}, Chunks{}, 2.5);
  EXPECT_EQ(s.sum().item(), 2.5);
  EXPECT_EQ(s.max().item(), 2.5);
  EXPECT_EQ(s.mean().item(), 2.5);
  EXPECT_EQ(s.var().item(), 0.0);
  EXPECT_EQ(s.argmax().item(), 0);
  EXPECT_EQ(s.sum(Axes{}, true).ndim(), 0);
}

TEST_F(Reductions, ReductionsFeedElementwiseOperations) {
  std::mt19937_64 rng(54);
  const auto ref = random_dense<double>({7, 5}, rng);
  const auto mean0 = ref_mean(ref, {0});
  const auto std0 = ref_var(ref, {0}, 0, false, true);
  const auto normalized = zip(zip(ref, mean0, [](double a, double m) { return a - m; }), std0,
                              [](double d, double s) { return d / s; });
  const double total = ref_sum(ref)[0];
  const auto share = map(ref, [&](double a) { return a / total; });
  const auto centered_rows =
      zip(ref, ref_mean(ref, {1}, true), [](double a, double m) { return a - m; });
  for (const auto& c : chunkings_for(ref.shape())) {
    SCOPED_TRACE(label(c));
    const auto x = make_array<Backend>(ref, c);
    EXPECT_TRUE(
        matches(((x - x.mean(Axes{0})) / x.std(Axes{0})).compute(), normalized, {1e-12, 1e-12}));
    EXPECT_TRUE(matches((x / x.sum()).compute(), share, {1e-12, 1e-14}));
    EXPECT_TRUE(matches((x - x.mean(Axes{1}, true)).compute(), centered_rows, tight<double>()));
    // A reduction of a reduction.
    EXPECT_NEAR(x.sum(Axes{1}).max().item(), ref_max(ref_sum(ref, {1}))[0], 1e-12);
    EXPECT_EQ(x.argmax(1).max().item(), ref_max(ref_arg(ref, 1, true))[0]);
  }
}

// Long runs of values far from zero (each thread folds many of them), with an outlier first and
// a slow drift: the variance must not lose digits to the offset.
TEST_F(Reductions, VarianceOfLongOffsetRunsKeepsItsDigits) {
  const index_t n = 60000;
  Dense<double> ref({n, 2});
  for (index_t i = 0; i < n; ++i) {
    ref[2 * i] = 1e8 + 0.25 * static_cast<double>(i % 7) + 1e-4 * static_cast<double>(i);
    ref[2 * i + 1] = i == 0 ? 1e12 : 3.0 + 0.5 * static_cast<double>(i % 5);
  }
  const auto want_var = ref_var(ref, {0}, 1, false);
  const auto want_mean = ref_mean(ref, {0});
  for (const auto& c : std::vector<Chunks>{Chunks{n, 2}, Chunks{4096, 1}, Chunks{777, 2}}) {
    SCOPED_TRACE(label(c));
    const auto x = make_array<Backend>(ref, c);
    auto [mean, var] = compute(ComputeOptions{}, x.mean(Axes{0}), x.var(Axes{0}, 1));
    EXPECT_TRUE(matches(var, want_var, {1e-6, 0.0})); // a naive sum of squares: 1e-1
    EXPECT_TRUE(matches(mean, want_mean, {1e-12, 0.0}));
  }
}

TEST_F(Reductions, VarianceOfConstantsIsZeroAndDdofCanExceedN) {
  const auto x = full<double, Backend>(Shape{5, 4}, Chunks{2, 3}, 1e8 + 0.5);
  EXPECT_EQ(x.var().item(), 0.0) << "variance must not suffer cancellation";
  // Standardizing constant columns: the shared moments pass gives the exact mean, so every
  // centered value is 0 and each quotient 0 / 0.
  const auto z = ((x - x.mean(Axes{0})) / x.std(Axes{0})).compute();
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 4; ++j)
      EXPECT_TRUE(std::isnan(z(i, j))) << i << ", " << j;
  // An empty reduced axis: the mean and std of each column are NaN, as NumPy's.
  const auto e = zeros<double, Backend>(Shape{0, 3}, Chunks{2, 2});
  auto [em, es] = compute(ComputeOptions{}, e.mean(Axes{0}), e.std(Axes{0}));
  for (index_t j = 0; j < 3; ++j) {
    EXPECT_TRUE(std::isnan(em(j)));
    EXPECT_TRUE(std::isnan(es(j)));
  }
  EXPECT_TRUE(matches(x.std(Axes{0}).compute(), Dense<double>({4}, 0.0)));
  // N - ddof <= 0 is NaN, as in NumPy.
  EXPECT_TRUE(std::isnan(x.var(Axes{0}, 5).compute()(0)));
  EXPECT_TRUE(std::isnan(x.var(Axes{0}, 7).compute()(0)));
}

} // namespace
} // namespace chunked::test
