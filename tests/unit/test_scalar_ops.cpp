// SPDX-License-Identifier: Apache-2.0
// The shared per-element semantics (backend/common) that the CPU interpreter and the generated
// CUDA kernels both compile: edge cases checked directly, independent of any program.
#include "backend/common/partial_ops.hpp"
#include <chunked/ops/op_code.hpp>
#include <chunked/ops/scalar.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>

namespace {

namespace s = chunked::scalar;
using i64 = std::int64_t;
constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr i64 i64_min = std::numeric_limits<i64>::min();

TEST(ScalarOps, ModTakesTheSignOfTheDivisor) {
  EXPECT_EQ(s::op_mod<i64>(7, 3), 1);
  EXPECT_EQ(s::op_mod<i64>(-7, 3), 2);
  EXPECT_EQ(s::op_mod<i64>(7, -3), -2);
  EXPECT_EQ(s::op_mod<i64>(-7, -3), -1);
  EXPECT_EQ(s::op_mod<i64>(5, 0), 0);
  EXPECT_EQ(s::op_mod<i64>(i64_min, -1), 0);
  EXPECT_EQ(s::op_mod(-7.5, 2.0), 0.5);
  EXPECT_EQ(s::op_mod(7.5, -2.0), -0.5);
  EXPECT_TRUE(std::isnan(s::op_mod(1.0, 0.0)));
}

TEST(ScalarOps, IntegerPowWrapsAndTruncatesNegativeExponents) {
  EXPECT_EQ(s::op_pow<i64>(3, 4), 81);
  EXPECT_EQ(s::op_pow<i64>(2, 64), 0); // wraps modulo 2^64
  EXPECT_EQ(s::op_pow<i64>(2, -1), 0);
  EXPECT_EQ(s::op_pow<i64>(1, -5), 1);
  EXPECT_EQ(s::op_pow<i64>(-1, -3), -1);
  EXPECT_EQ(s::op_pow<i64>(-1, -4), 1);
  EXPECT_EQ(s::op_pow<int>(0, 0), 1);
}

TEST(ScalarOps, WrappingArithmeticHasNoOverflow) {
  EXPECT_EQ(s::op_add<i64>(std::numeric_limits<i64>::max(), 1), i64_min);
  EXPECT_EQ(s::op_neg<i64>(i64_min), i64_min);
  EXPECT_EQ(s::op_abs<i64>(i64_min), i64_min);
  EXPECT_EQ(s::op_mul<int>(65536, 65536), 0);
}

TEST(ScalarOps, MinimumAndMaximumPropagateNan) {
  EXPECT_TRUE(std::isnan(s::op_minimum(nan_v, 1.0)));
  EXPECT_TRUE(std::isnan(s::op_minimum(1.0, nan_v)));
  EXPECT_TRUE(std::isnan(s::op_maximum(nan_v, 1.0)));
  EXPECT_EQ(s::op_maximum(-1.0, 2.0), 2.0);
}

TEST(ScalarOps, CastsToIntegersAndBools) {
  EXPECT_EQ((s::cast_value<i64, double>(-2.9)), -2);
  EXPECT_EQ((s::cast_value<int, double>(nan_v)), std::numeric_limits<int>::min());
  EXPECT_EQ((s::cast_value<int, double>(1e300)), std::numeric_limits<int>::min());
  EXPECT_TRUE((s::cast_value<bool, double>(0.5)));
  EXPECT_FALSE((s::cast_value<bool, i64>(0)));
}

// The new functions' edge values, as NumPy 1.24 gives them.
TEST(ScalarOps, RoundingAndSignFollowNumPy) {
  EXPECT_EQ(s::op_round(0.5), 0.0);
  EXPECT_EQ(s::op_round(1.5), 2.0);
  EXPECT_EQ(s::op_round(2.5), 2.0);
  EXPECT_EQ(s::op_round(-2.5), -2.0);
  EXPECT_TRUE(std::signbit(s::op_round(-0.4)));
  EXPECT_EQ(s::op_round(4503599627370497.0), 4503599627370497.0);
  EXPECT_EQ(s::op_round<i64>(i64_min), i64_min);
  EXPECT_EQ(s::op_floor(-0.5f), -1.0f);
  EXPECT_TRUE(std::signbit(s::op_ceil(-0.5)));
  EXPECT_EQ(s::op_trunc(-2.7), -2.0);
  EXPECT_EQ(s::op_sign(-3.5), -1.0);
  EXPECT_EQ(s::op_sign(1e-300), 1.0);
  EXPECT_FALSE(std::signbit(s::op_sign(-0.0))); // NumPy: sign(-0.0) is 0.0
  EXPECT_TRUE(std::isnan(s::op_sign(nan_v)));
  EXPECT_EQ(s::op_sign<i64>(i64_min), -1);
  EXPECT_EQ(s::op_sign<int>(0), 0);
}

TEST(ScalarOps, SquareReciprocalAndFmodOfIntegers) {
  EXPECT_EQ(s::op_square<int>(2147483647), 1); // wraps, as NumPy
  EXPECT_EQ(s::op_square<i64>(-3), 9);
  EXPECT_EQ(s::op_reciprocal<i64>(0), i64_min);
  EXPECT_EQ(s::op_reciprocal<int>(0), std::numeric_limits<int>::min());
  EXPECT_EQ(s::op_reciprocal<i64>(1), 1);
  EXPECT_EQ(s::op_reciprocal<i64>(-1), -1);
  EXPECT_EQ(s::op_reciprocal<i64>(2), 0);
  EXPECT_EQ(s::op_reciprocal<int>(-2), 0);
  EXPECT_EQ(s::op_reciprocal(-0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(s::op_fmod<i64>(7, 3), 1);
  EXPECT_EQ(s::op_fmod<i64>(-7, 3), -1); // the sign of the dividend, unlike op_mod
  EXPECT_EQ(s::op_fmod<i64>(7, -3), 1);
  EXPECT_EQ(s::op_fmod<i64>(5, 0), 0);
  EXPECT_EQ(s::op_fmod<i64>(i64_min, -1), 0);
  EXPECT_EQ(s::op_fmod(-7.5, 2.0), -1.5);
  EXPECT_TRUE(std::signbit(s::op_fmod(-0.0, 3.0)));
  EXPECT_TRUE(std::isnan(s::op_fmod(5.0, 0.0)));
  EXPECT_TRUE(std::isnan(s::op_fmod(std::numeric_limits<double>::infinity(), 2.0)));
}

TEST(ScalarOps, LogicalFunctionsAndPredicates) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(s::op_logical_and(nan_v, 1.0)); // NaN is nonzero, so true
  EXPECT_FALSE(s::op_logical_and<i64>(2, 0));
  EXPECT_TRUE(s::op_logical_or(0.0, -0.5));
  EXPECT_FALSE(s::op_logical_xor<i64>(2, 3));
  EXPECT_TRUE(s::op_logical_xor(true, false));
  EXPECT_FALSE(s::op_logical_not(nan_v));
  EXPECT_TRUE(s::op_logical_not(-0.0));
  EXPECT_TRUE(s::op_isinf(-inf));
  EXPECT_FALSE(s::op_isinf(nan_v));
  EXPECT_FALSE(s::op_isinf(std::numeric_limits<double>::max()));
  EXPECT_FALSE(s::op_isinf<i64>(i64_min));
  EXPECT_TRUE(s::op_signbit(-0.0));
  EXPECT_TRUE(s::op_signbit(-nan_v));
  EXPECT_FALSE(s::op_signbit(nan_v));
  EXPECT_TRUE(s::op_signbit<int>(-1));
  EXPECT_FALSE(s::op_signbit(true));
  EXPECT_TRUE(std::signbit(s::op_copysign(1.0, -0.0)));
  EXPECT_TRUE(std::signbit(s::op_copysign(nan_v, -1.0)));
  EXPECT_EQ(s::op_hypot(inf, nan_v), inf);
  EXPECT_EQ(s::op_arctan2(-0.0, -0.0), -std::acos(-1.0));
}

TEST(ScalarOps, ApplyCallsTheRowsFunction) {
  using chunked::ops::OpCode;
  EXPECT_EQ(s::apply<OpCode::mod>(i64{-7}, i64{3}), 2);
  EXPECT_EQ(s::apply<OpCode::fmod>(i64{-7}, i64{3}), -1);
  EXPECT_EQ(s::apply<OpCode::where>(false, 1.0, 2.0), 2.0);
  EXPECT_TRUE(s::apply<OpCode::le>(1, 1));
  EXPECT_EQ(s::apply<OpCode::square>(-4), 16);
}

TEST(PartialOps, ArgTiesKeepTheFirstAndNanWins) {
  // argmin: a smaller value wins; an equal value wins only with a smaller index.
  EXPECT_TRUE((s::arg_better<false, double>(2.0, 5, 1.0, 9)));
  EXPECT_FALSE((s::arg_better<false, double>(1.0, 5, 1.0, 9)));
  EXPECT_TRUE((s::arg_better<false, double>(1.0, 9, 1.0, 5)));
  // NaN beats numbers; between NaNs the first occurrence stays.
  EXPECT_TRUE((s::arg_better<true, double>(7.0, 0, nan_v, 3)));
  EXPECT_FALSE((s::arg_better<true, double>(nan_v, 3, 7.0, 0)));
  EXPECT_FALSE((s::arg_better<true, double>(nan_v, 3, nan_v, 4)));
  EXPECT_TRUE((s::arg_better<true, double>(nan_v, 4, nan_v, 3)));
}

TEST(PartialOps, MomentMergeEqualsTheTwoPassVariance) {
  const double xs[] = {1.5, -2.0, 4.25, 8.0, 0.5, 3.0, -1.0};
  // Merge one-element states left to right.
  double n = 0, mean = 0, m2 = 0;
  for (double x : xs)
    s::merge_moments(n, mean, m2, 1, x, 0);
  double sum = 0;
  for (double x : xs)
    sum += x;
  const double mu = sum / 7;
  double ss = 0;
  for (double x : xs)
    ss += (x - mu) * (x - mu);
  EXPECT_EQ(n, 7);
  EXPECT_NEAR(mean, mu, 1e-15);
  EXPECT_NEAR(m2, ss, 1e-13);
  EXPECT_NEAR(s::variance_of(n, m2, 1), ss / 6, 1e-14);
  // An empty state changes nothing, on either side.
  double n2 = 0, mean2 = 0, m22 = 0;
  s::merge_moments(n2, mean2, m22, n, mean, m2);
  EXPECT_EQ(n2, n);
  EXPECT_EQ(mean2, mean);
  s::merge_moments(n2, mean2, m22, 0, 123, 456);
  EXPECT_EQ(m22, m2);
  // ddof past the count: 0 / 0 is NaN, x / 0 is inf.
  EXPECT_TRUE(std::isnan(s::variance_of(1, 0, 1)));
  EXPECT_TRUE(std::isinf(s::variance_of(2, 1.0, 3)));
}

// NumPy's two-pass results: the mean is the sum over the count, the variance NaN.
TEST(PartialOps, MomentMergeOfNonFiniteStates) {
  const double inf = std::numeric_limits<double>::infinity();
  struct State {
    double n = 0, mean = 0, m2 = 0;
  };
  const auto fold = [](std::initializer_list<double> xs) {
    State st;
    for (double x : xs)
      s::merge_moments(st.n, st.mean, st.m2, 1, x, 0);
    return st;
  };
  const State one_nan = fold({nan_v}), one_inf = fold({-inf});
  EXPECT_TRUE(std::isnan(one_nan.m2));
  EXPECT_TRUE(std::isnan(one_inf.m2));
  EXPECT_EQ(one_inf.mean, -inf);
  const State first = fold({inf, 2.0, 3.0}), later = fold({2.0, 3.0, inf, inf});
  EXPECT_EQ(first.mean, inf);
  EXPECT_EQ(later.mean, inf);
  EXPECT_EQ(later.n, 4);
  EXPECT_TRUE(std::isnan(first.m2) && std::isnan(later.m2));
  EXPECT_TRUE(std::isnan(fold({inf, 1.0, -inf}).mean));
  EXPECT_TRUE(std::isnan(fold({1.0, nan_v, inf}).mean));
  // States merged as partials: a finite one does not move an infinite mean.
  State a = fold({1.0, 5.0});
  s::merge_moments(a.n, a.mean, a.m2, later.n, later.mean, later.m2);
  EXPECT_EQ(a.n, 6);
  EXPECT_EQ(a.mean, inf);
  EXPECT_TRUE(std::isnan(s::variance_of(a.n, a.m2, 0)));
  EXPECT_TRUE(std::isnan(s::variance_of(a.n, a.m2, 9)));
  State b = later;
  s::merge_moments(b.n, b.mean, b.m2, one_inf.n, one_inf.mean, one_inf.m2);
  EXPECT_TRUE(std::isnan(b.mean));
}

} // namespace
