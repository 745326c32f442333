// SPDX-License-Identifier: Apache-2.0
// Exact sums suite (ComputeOptions::exact_sums): sum, mean, var, std and cumsum give one bit
// pattern on every chunking and thread count, equal to correctly rounded references (Shewchuk's
// summation), with NaN, infinities, overflow and signed zeros as NumPy.
#pragma once

#include "support/backend.hpp"
#include "support/fsum.hpp"
#include "support/reference.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

namespace chunked::test {
namespace {

using ExactSums = BackendTest;

template <class T> class ExactSumsTyped : public TypedBackendTest<T> {};
using ExactFloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ExactSumsTyped, ExactFloatTypes);

ComputeOptions exact_options(int threads = 0) {
  ComputeOptions o;
  o.exact_sums = true;
  o.num_threads = threads;
  return o;
}

/// Values of both signs over `binades` binades: sums of them cancel and round, so that plain
/// sums differ with the grouping. Float values stay within 16 binades, where a sum of them is
/// exact in double, so that one rounding of the double reference to float is correct.
template <class T> Dense<T> wide_values(const Extents& shape, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int binades = std::is_same_v<T, float> ? 16 : 80;
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::uniform_int_distribution<int> ex(-binades / 2, binades / 2);
  return generate<T>(shape, [&](index_t) {
    return static_cast<T>(std::ldexp(mant(rng), ex(rng)) * (rng() % 2 ? 1.0 : -1.0));
  });
}

std::vector<double> as_doubles(const auto& v) { return std::vector<double>(v.begin(), v.end()); }

// NumPy's definitions, from correctly rounded sums.
template <class T> Dense<T> want_sum(const Dense<T>& a, const std::vector<index_t>& axes, bool k) {
  return reduce_groups<T>(
      a, axes, k, [](const std::vector<T>& v) { return static_cast<T>(fsum(as_doubles(v))); });
}
template <class T> Dense<T> want_mean(const Dense<T>& a, const std::vector<index_t>& axes, bool k) {
  return reduce_groups<T>(a, axes, k, [](const std::vector<T>& v) {
    return static_cast<T>(fsum(as_doubles(v)) / static_cast<double>(v.size()));
  });
}
template <class T>
Dense<T> want_var(const Dense<T>& a, const std::vector<index_t>& axes, bool k, index_t ddof,
                  bool root) {
  return reduce_groups<T>(a, axes, k, [&](const std::vector<T>& v) {
    const std::vector<double> x = as_doubles(v);
    const double m = fsum(x) / static_cast<double>(x.size());
    std::vector<double> squares;
    for (double e : x)
      squares.push_back((e - m) * (e - m));
    const double dof = std::max(static_cast<double>(x.size()) - static_cast<double>(ddof), 0.0);
    const double var = fsum(squares) / dof;
    return static_cast<T>(root ? std::sqrt(var) : var);
  });
}

/// The cumsum along `axis` with every element its prefix's correctly rounded sum.
template <class T> Dense<T> want_cumsum(const Dense<T>& a, index_t axis) {
  const Extents& shape = a.shape();
  const auto k = static_cast<std::size_t>(axis);
  index_t stride = 1;
  for (std::size_t d = k + 1; d < shape.size(); ++d)
    stride *= shape[d];
  Dense<T> out(shape);
  for (index_t i = 0; i < a.size(); ++i) {
    std::vector<double> prefix;
    for (index_t p = i - unravel(i, shape)[k] * stride; p <= i; p += stride)
      prefix.push_back(static_cast<double>(a[p]));
    out[i] = static_cast<T>(fsum(prefix));
  }
  return out;
}

const std::vector<std::vector<index_t>> exact_axis_sets = {{}, {0}, {1}, {2}, {0, 2}, {1, 2}};

TYPED_TEST(ExactSumsTyped, OneBitPatternOnEveryChunkingEqualToTheCorrectlyRoundedSums) {
  using T = TypeParam;
  const Dense<T> ref = wide_values<T>({9, 14, 5}, 28);
  std::vector<Chunks> chunkings = chunkings_for(ref.shape());
  std::mt19937_64 rng(3);
  for (int k = 0; k < 3; ++k)
    chunkings.push_back(random_chunks(ref.shape(), rng));
  for (const auto& axes_list : exact_axis_sets) {
    const Axes axes(axes_list);
    for (bool keep : {false, true}) {
      SCOPED_TRACE("axes " + detail::format_tuple(axes_list) + (keep ? " keepdims" : ""));
      std::vector<NDArray<T>> first;
      for (const auto& chunks : chunkings) {
        SCOPED_TRACE(label(chunks));
        const auto x = make_array<Backend>(ref, chunks);
        auto [sum, mean, var, sd] = compute(exact_options(), x.sum(axes, keep), x.mean(axes, keep),
                                            x.var(axes, 1, keep), x.std(axes, 0, keep));
        EXPECT_TRUE(matches(sum, want_sum(ref, axes_list, keep)));
        EXPECT_TRUE(matches(mean, want_mean(ref, axes_list, keep)));
        EXPECT_TRUE(matches(var, want_var(ref, axes_list, keep, 1, false)));
        EXPECT_TRUE(matches(sd, want_var(ref, axes_list, keep, 0, true)));
        if (first.empty()) {
          first = {sum, mean, var, sd};
        } else {
          EXPECT_TRUE(bitwise_equal(sum, first[0]));
          EXPECT_TRUE(bitwise_equal(mean, first[1]));
          EXPECT_TRUE(bitwise_equal(var, first[2]));
          EXPECT_TRUE(bitwise_equal(sd, first[3]));
        }
      }
    }
  }
}

TYPED_TEST(ExactSumsTyped, FusedProducersAndThreadCountsChangeNothing) {
  using T = TypeParam;
  const Dense<T> a = wide_values<T>({300, 40}, 1), b = wide_values<T>({300, 40}, 2);
  const Dense<T> c = wide_values<T>({300, 40}, 3);
  const auto abc = zip3(a, b, c, [](T p, T q, T r) { return T(p * q + r); });
  NDArray<T> cols, whole;
  for (const auto& chunks : {Chunks{300, 40}, Chunks{7, 40}, Chunks{64, 9}, Chunks{1, 1}}) {
    for (int threads : {1, 2, 4}) {
      SCOPED_TRACE(label(chunks) + " threads " + std::to_string(threads));
      const auto x = make_array<Backend>(a, chunks), y = make_array<Backend>(b, chunks);
      const auto z = make_array<Backend>(c, chunks);
      auto [s0, s] = compute(exact_options(threads), (x * y + z).sum(Axes{0}), (x * y + z).sum());
      EXPECT_TRUE(matches(s0, want_sum(abc, {0}, false)));
      EXPECT_TRUE(matches(s, want_sum(abc, {}, false)));
      if (cols.size() == 0) {
        cols = s0;
        whole = s;
      }
      EXPECT_TRUE(bitwise_equal(s0, cols));
      EXPECT_TRUE(bitwise_equal(s, whole));
    }
  }
}

// The example of the issue: 1e16 + 1 + 1 + 1 is 1e16 + 4 rounded (a tie: to even, 1e16 + 4),
// whatever the blocks; plain sums give 1e16 in blocks of 1 or 4 and 1e16 + 2 in blocks of 2.
TEST_F(ExactSums, TheSumOfALargeAndThreeSmallTermsIsTheSameOnEveryChunking) {
  const Dense<double> ref({4}, {1e16, 1, 1, 1});
  for (index_t chunk : {1, 2, 3, 4}) {
    const auto x = make_array<Backend>(ref, Chunks{chunk});
    EXPECT_EQ(x.sum().item(exact_options()), fsum({1e16, 1, 1, 1})) << chunk;
    EXPECT_EQ(x.sum().item(exact_options()), 1e16 + 4) << chunk;
  }
}

TEST_F(ExactSums, NaNInfinitiesOverflowAndSignedZerosAsNumPy) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double big = std::numeric_limits<double>::max();
  auto sum = [](std::vector<double> v, index_t chunk) {
    const auto n = static_cast<index_t>(v.size());
    const Dense<double> d({n}, std::move(v));
    return make_array<Backend>(d, Chunks{chunk}).sum().item(exact_options());
  };
  for (index_t chunk : {1, 2, 5}) {
    SCOPED_TRACE(chunk);
    EXPECT_TRUE(std::isnan(sum({1, nan, 2, 3, 4}, chunk)));
    EXPECT_TRUE(std::isnan(sum({inf, 1, 2, 3, -inf}, chunk)));
    EXPECT_EQ(sum({1, inf, 2, 3, inf}, chunk), inf);
    EXPECT_EQ(sum({big, big, 1, 2, 3}, chunk), inf);
    EXPECT_EQ(sum({big, big, -big, 1, -1}, chunk), big);
    EXPECT_TRUE(std::signbit(sum({-0.0, -0.0, -0.0}, chunk)));
    EXPECT_FALSE(std::signbit(sum({-0.0, 0.0, -0.0}, chunk)));
    EXPECT_FALSE(std::signbit(sum({-1.0, 1.0, -0.0}, chunk)));
  }
  // The same along an axis, where each column takes its values through its own window.
  const Dense<double> cols({3, 5}, {-0.0, -0.0, 1.0, inf, 1e300, //
                                    -0.0, 0.0, nan, 2.0, -1e300, //
                                    -0.0, -0.0, 3.0, -inf, 1e-300});
  for (const auto& chunks : {Chunks{3, 5}, Chunks{1, 2}, Chunks{2, 3}}) {
    SCOPED_TRACE(label(chunks));
    const auto s = make_array<Backend>(cols, chunks).sum(Axes{0}).compute(exact_options());
    EXPECT_TRUE(std::signbit(s.data()[0]) && s.data()[0] == 0.0);
    EXPECT_TRUE(!std::signbit(s.data()[1]) && s.data()[1] == 0.0);
    EXPECT_TRUE(std::isnan(s.data()[2]));
    EXPECT_TRUE(std::isnan(s.data()[3]));
    EXPECT_EQ(s.data()[4], 1e-300);
  }
  // Empty: a sum is +0, a mean and a variance NaN.
  const Dense<double> none({0, 3}, {});
  const auto x = make_array<Backend>(none, Chunks{2, 2});
  auto [s, m, v] = compute(exact_options(), x.sum(Axes{0}), x.mean(Axes{0}), x.var(Axes{0}));
  EXPECT_TRUE(matches(s, Dense<double>({3}, {0.0, 0.0, 0.0})));
  EXPECT_TRUE(matches(m, Dense<double>({3}, {nan, nan, nan})));
  EXPECT_TRUE(matches(v, Dense<double>({3}, {nan, nan, nan})));
  // An infinity makes the variance NaN (inf - inf), its mean the infinity.
  const Dense<double> one_inf({2, 3}, {1, inf, 3, 4, 5, 6});
  const auto y = make_array<Backend>(one_inf, Chunks{1, 2});
  auto [m2, v2] = compute(exact_options(), y.mean(Axes{0}), y.std(Axes{0}));
  EXPECT_TRUE(matches(m2, Dense<double>({3}, {2.5, inf, 4.5})));
  EXPECT_TRUE(matches(v2, Dense<double>({3}, {1.5, nan, 1.5})));
}

// Cumsums: every element is its prefix's correctly rounded sum, so the bits are the reference's
// on every chunking (a carry across blocks that were rounded would differ).
TYPED_TEST(ExactSumsTyped, CumsumsAreTheCorrectlyRoundedPrefixesOnEveryChunking) {
  using T = TypeParam;
  const Dense<T> ref = wide_values<T>({9, 14, 5}, 29);
  std::vector<Chunks> chunkings = chunkings_for(ref.shape());
  std::mt19937_64 rng(5);
  for (int k = 0; k < 2; ++k)
    chunkings.push_back(random_chunks(ref.shape(), rng));
  for (index_t axis : {0, 1, 2}) {
    const Dense<T> want = want_cumsum(ref, axis);
    for (const auto& chunks : chunkings) {
      SCOPED_TRACE(label(chunks) + " axis " + std::to_string(axis));
      const auto x = make_array<Backend>(ref, chunks);
      EXPECT_TRUE(matches(cumsum(x, axis).compute(exact_options()), want));
    }
  }
}

// Long lines (which the GPU cuts into segments), along the last axis and along the first, on
// several thread counts; the last element of each line is the line's exact sum.
TYPED_TEST(ExactSumsTyped, LongCumsumsOnAnyThreadCountEndInTheExactSum) {
  using T = TypeParam;
  const Dense<T> rows = wide_values<T>({3, 700}, 8), cols = wide_values<T>({700, 3}, 9);
  const Dense<T> want_rows = want_cumsum(rows, 1), want_cols = want_cumsum(cols, 0);
  for (index_t chunk : {700, 129, 64, 1})
    for (int threads : {1, 3}) {
      SCOPED_TRACE("chunk " + std::to_string(chunk) + " threads " + std::to_string(threads));
      const auto r = make_array<Backend>(rows, Chunks{2, chunk});
      const auto c = make_array<Backend>(cols, Chunks{chunk, 2});
      auto [cr, cc, sr, sc] = compute(exact_options(threads), cumsum(r, 1), cumsum(c, 0),
                                      r.sum(Axes{1}), c.sum(Axes{0}));
      EXPECT_TRUE(matches(cr, want_rows));
      EXPECT_TRUE(matches(cc, want_cols));
      for (index_t k = 0; k < 3; ++k) {
        EXPECT_EQ(cr.data()[k * 700 + 699], sr.data()[k]);
        EXPECT_EQ(cc.data()[699 * 3 + k], sc.data()[k]);
      }
    }
}

// The example of the issue as a cumsum, NaN, infinities, overflow and signed zeros: each element
// is what the exact sum of its prefix gives (an overflow that later terms bring back is none).
TEST_F(ExactSums, CumsumsOfLargeAndSmallTermsSpecialValuesAndSignedZeros) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double big = std::numeric_limits<double>::max();
  auto scan = [](std::vector<double> v, index_t chunk) {
    const auto n = static_cast<index_t>(v.size());
    const Dense<double> d({n}, std::move(v));
    return cumsum(make_array<Backend>(d, Chunks{chunk}), 0).compute(exact_options());
  };
  for (index_t chunk : {1, 2, 3, 4}) {
    SCOPED_TRACE(chunk);
    EXPECT_TRUE(matches(scan({1e16, 1, 1, 1}, chunk),
                        Dense<double>({4}, {1e16, 1e16, 1e16 + 2, 1e16 + 4})));
    EXPECT_TRUE(matches(scan({1, nan, 2, 3}, chunk), Dense<double>({4}, {1, nan, nan, nan})));
    EXPECT_TRUE(matches(scan({inf, 1, -inf, 2}, chunk), Dense<double>({4}, {inf, inf, nan, nan})));
    EXPECT_TRUE(
        matches(scan({big, big, -big, -big}, chunk), Dense<double>({4}, {big, inf, big, 0.0})));
    const auto zeros = scan({-0.0, -0.0, 1, -1}, chunk);
    EXPECT_TRUE(std::signbit(zeros.data()[0]) && std::signbit(zeros.data()[1]));
    EXPECT_TRUE(zeros.data()[3] == 0.0 && !std::signbit(zeros.data()[3]));
    const auto tiny = scan({-1e-300, 1e300, -1e300, 0.5}, chunk); // a wide, then narrow, range
    EXPECT_TRUE(matches(tiny, Dense<double>({4}, {-1e-300, 1e300, -1e-300, 0.5})));
  }
}

// What reads an exact cumsum (programs, another scan, persist) sees its values only, and integer
// cumsums are unchanged.
TEST_F(ExactSums, ExactCumsumsComposeAndIntegerCumsumsAreUnchanged) {
  const Dense<double> ref = wide_values<double>({12, 7}, 4);
  const auto x = make_array<Backend>(ref, Chunks{5, 3});
  const Dense<double> down = want_cumsum(ref, 0);
  EXPECT_TRUE(matches((cumsum(x, 0) * 2.0).compute(exact_options()),
                      map(down, [](double v) { return v * 2.0; })));
  EXPECT_TRUE(matches(cumsum(cumsum(x, 0), 1).compute(exact_options()), want_cumsum(down, 1)));
  EXPECT_TRUE(matches(cumsum(x, 0).persist(exact_options()).compute(), down));
  EXPECT_TRUE(
      matches(cumsum(x, 0).sum(Axes{0}).compute(exact_options()), want_sum(down, {0}, false)));
  const Dense<std::int64_t> n({6}, {1, 2, 3, 4, 5, 6});
  const auto y = make_array<Backend>(n, Chunks{4});
  EXPECT_TRUE(matches(cumsum(y, 0).compute(exact_options()),
                      Dense<std::int64_t>({6}, {1, 3, 6, 10, 15, 21})));
}

TEST_F(ExactSums, IntegerReductionsAndOtherReductionsAreUnchanged) {
  std::mt19937_64 rng(7);
  const auto ints = random_dense<std::int32_t>({20, 6}, rng);
  const auto doubles = random_dense<double>({20, 6}, rng);
  const auto xi = make_array<Backend>(ints, Chunks{3, 4});
  const auto xd = make_array<Backend>(doubles, Chunks{3, 4});
  EXPECT_TRUE(bitwise_equal(xi.sum(Axes{0}).compute(exact_options()), xi.sum(Axes{0}).compute()));
  EXPECT_TRUE(bitwise_equal(xi.mean().compute(exact_options()), xi.mean().compute()));
  EXPECT_TRUE(bitwise_equal(xd.max(Axes{1}).compute(exact_options()), xd.max(Axes{1}).compute()));
  EXPECT_TRUE(bitwise_equal(xd.prod(Axes{0}).compute(exact_options()), xd.prod(Axes{0}).compute()));
  // A standardize composes with the exact moments.
  const auto z = ((xd - xd.mean(Axes{0})) / xd.std(Axes{0})).compute(exact_options());
  const auto want = zip(zip(doubles, want_mean(doubles, {0}, false), std::minus<double>()),
                        want_var(doubles, {0}, false, 0, true), std::divides<double>());
  EXPECT_TRUE(matches(z, want));
}

} // namespace
} // namespace chunked::test
