// SPDX-License-Identifier: Apache-2.0
// Random suite: Generator arrays equal the element-wise spec under any chunking and any slicing.
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"

#include <chunked/random/distributions.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace chunked::test {
namespace {

using Random = BackendTest;

constexpr std::uint64_t seed = 0x1234'5678'9abc'def0ULL;
const Extents random_shape = {7, 9};

/// Normals are bit-identical on the CPU; on a GPU they may differ by a few ulp (DESIGN section 4).
Tolerance normal_tolerance() { return runs_on_gpu() ? Tolerance{4 * 2.3e-16, 0} : Tolerance{}; }

Dense<double> normal_spec(const Extents& shape, std::uint64_t stream, double mean, double stddev) {
  return generate<double>(shape, [&](index_t e) {
    return random::normal_at(seed, stream, static_cast<std::uint64_t>(e), mean, stddev);
  });
}
/// The values of a uniform<T> array as doubles (a float array holds them rounded).
template <class T = double>
Dense<double> uniform_spec(const Extents& shape, std::uint64_t stream, double low, double high) {
  const random::UniformForm form = random::uniform_form<T>(low, high);
  return generate<double>(shape, [&](index_t e) {
    return random::uniform_at(seed, stream, static_cast<std::uint64_t>(e), form);
  });
}
Dense<std::int64_t> integers_spec(const Extents& shape, std::uint64_t stream, std::int64_t low,
                                  std::int64_t high, std::uint64_t key = seed) {
  return generate<std::int64_t>(shape, [&](index_t e) {
    return random::integers_at(key, stream, static_cast<std::uint64_t>(e), low, high);
  });
}

TEST_F(Random, NormalEqualsTheSpecUnderEveryChunking) {
  const auto want = normal_spec(random_shape, 0, 10.0, 2.0);
  NDArray<double> first;
  for (const auto& chunks : chunkings_for(random_shape)) {
    SCOPED_TRACE(label(chunks));
    Generator g(seed);
    const auto x = g.normal<double, Backend>(Shape(random_shape), chunks, 10.0, 2.0);
    const auto got = x.compute();
    EXPECT_TRUE(matches(got, want, normal_tolerance()));
    if (first.size() == 0)
      first = got;
    EXPECT_TRUE(bitwise_equal(got, first)) << "the chunking changed the values";
  }
}

TEST_F(Random, UniformAndIntegersEqualTheSpecUnderEveryChunking) {
  for (const auto& chunks : chunkings_for(random_shape)) {
    SCOPED_TRACE(label(chunks));
    Generator g(seed);
    const auto u = g.uniform<double, Backend>(Shape(random_shape), chunks, -2.0, 3.0);
    const auto i64 = g.integers<std::int64_t, Backend>(Shape(random_shape), chunks, -5, 17);
    const auto i32 = g.integers<std::int32_t, Backend>(Shape(random_shape), chunks, 100, 103);
    EXPECT_TRUE(matches(u.compute(), uniform_spec(random_shape, 0, -2.0, 3.0)));
    EXPECT_TRUE(matches(i64.compute(), integers_spec(random_shape, 1, -5, 17)));
    EXPECT_TRUE(
        matches(i32.compute(), cast<std::int32_t>(integers_spec(random_shape, 2, 100, 103))));
  }
}

TEST_F(Random, SlicesOfRandomArraysKeepTheirElementsValues) {
  const auto full_normal = normal_spec(random_shape, 0, 0.0, 1.0);
  const auto full_ints = integers_spec(random_shape, 1, 0, 1000);
  const std::vector<std::vector<Index>> cases = {
      {Slice(none, none, 2), Slice(none, none, 2)},
      {Slice(1, none, 3), Slice(none, none, -1)},
      {index_t{3}, Slice(-2, 1, -2)},
      {Slice(5, 1), index_t{-1}},
  };
  for (const auto& chunks : chunkings_for(random_shape)) {
    for (std::size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE(label(chunks) + " case " + std::to_string(c));
      Generator g(seed);
      const auto x = g.normal<double, Backend>(Shape(random_shape), chunks);
      const auto k = g.integers<std::int64_t, Backend>(Shape(random_shape), chunks, 0, 1000);
      ChunkedArray<double, Backend> xv = x;
      ChunkedArray<std::int64_t, Backend> kv = k;
      const auto& a = cases[c];
      if (a.size() == 2 && std::holds_alternative<Slice>(a[0]) &&
          std::holds_alternative<Slice>(a[1])) {
        xv = x(std::get<Slice>(a[0]), std::get<Slice>(a[1]));
        kv = k(std::get<Slice>(a[0]), std::get<Slice>(a[1]));
      } else if (std::holds_alternative<index_t>(a[0])) {
        xv = x(std::get<index_t>(a[0]), std::get<Slice>(a[1]));
        kv = k(std::get<index_t>(a[0]), std::get<Slice>(a[1]));
      } else {
        xv = x(std::get<Slice>(a[0]), std::get<index_t>(a[1]));
        kv = k(std::get<Slice>(a[0]), std::get<index_t>(a[1]));
      }
      EXPECT_TRUE(matches(xv.compute(), index(full_normal, a), normal_tolerance()));
      EXPECT_TRUE(matches(kv.compute(), index(full_ints, a)));
    }
  }
}

TEST_F(Random, EachCallTakesTheNextStream) {
  Generator g(seed);
  EXPECT_EQ(g.seed(), seed);
  EXPECT_EQ(g.next_stream(), 0u);
  const auto a = g.normal<double, Backend>(Shape{6}, Chunks{4});
  EXPECT_EQ(g.next_stream(), 1u);
  const auto b = g.normal<double, Backend>(Shape{6}, Chunks{4});
  EXPECT_EQ(g.next_stream(), 2u);
  // A rejected call does not consume a stream.
  EXPECT_THROW(((void)g.integers<std::int64_t, Backend>(Shape{6}, Chunks{4}, 3, 3)), ValueError);
  EXPECT_EQ(g.next_stream(), 2u);
  const auto c = g.uniform<double, Backend>(Shape{6}, Chunks{4});
  EXPECT_EQ(g.next_stream(), 3u);
  EXPECT_TRUE(matches(a.compute(), normal_spec({6}, 0, 0, 1), normal_tolerance()));
  EXPECT_TRUE(matches(b.compute(), normal_spec({6}, 1, 0, 1), normal_tolerance()));
  EXPECT_TRUE(matches(c.compute(), uniform_spec({6}, 2, 0, 1)));
  EXPECT_FALSE(bitwise_equal(a.compute(), b.compute())) << "two calls gave the same stream";
  // A fresh generator with the same seed repeats the sequence; another seed does not.
  Generator same(seed), other(seed + 1);
  EXPECT_TRUE(
      bitwise_equal(same.normal<double, Backend>(Shape{6}, Chunks{2}).compute(), a.compute()));
  EXPECT_FALSE(
      bitwise_equal(other.normal<double, Backend>(Shape{6}, Chunks{2}).compute(), a.compute()));
}

TEST_F(Random, FloatSamplesAreTheDoubleSamplesRounded) {
  for (const auto& chunks : chunkings_for(random_shape)) {
    SCOPED_TRACE(label(chunks));
    Generator g(seed);
    const auto n = g.normal<float, Backend>(Shape(random_shape), chunks, 1.5f, 0.5f);
    const auto u = g.uniform<float, Backend>(Shape(random_shape), chunks, -1.0f, 1.0f);
    // On a GPU a normal double may be a few ulp off, which can move its float by one ulp.
    const Tolerance ft = runs_on_gpu() ? Tolerance{1.2e-7, 0} : Tolerance{};
    EXPECT_TRUE(matches(n.compute(), cast<float>(normal_spec(random_shape, 0, 1.5, 0.5)), ft));
    EXPECT_TRUE(matches(u.compute(), cast<float>(uniform_spec<float>(random_shape, 1, -1.0, 1.0))));
  }
}

TEST_F(Random, ValuesStayInTheirRanges) {
  Generator g(99);
  const Shape shape{40, 50};
  const auto u = g.uniform<double, Backend>(shape, Chunks{7, 9}, 2.0, 2.5).compute();
  for (double v : u) {
    ASSERT_GE(v, 2.0);
    ASSERT_LE(v, 2.5);
  }
  const auto k = g.integers<std::int64_t, Backend>(shape, Chunks{13, 50}, -3, 4).compute();
  std::vector<int> seen(7, 0);
  for (std::int64_t v : k) {
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 4);
    ++seen[static_cast<std::size_t>(v + 3)];
  }
  for (int count : seen)
    EXPECT_GT(count, 200) << "2000 draws from 7 values should hit each often";
  // A range wider than 2^63 and a one-value range.
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min() / 2 - 5;
  constexpr std::int64_t hi = std::numeric_limits<std::int64_t>::max() / 2 + 5;
  const auto wide = g.integers<std::int64_t, Backend>(Shape{1000}, Chunks{333}, lo, hi).compute();
  bool negative = false, positive = false;
  for (std::int64_t v : wide) {
    ASSERT_GE(v, lo);
    ASSERT_LT(v, hi);
    negative = negative || v < 0;
    positive = positive || v > 0;
  }
  EXPECT_TRUE(negative && positive);
  EXPECT_TRUE(matches(wide, integers_spec({1000}, 2, lo, hi, 99)));
  const auto one = g.integers<std::int32_t, Backend>(Shape{5}, Chunks{2}, 7, 8).compute();
  EXPECT_TRUE(matches(one, Dense<std::int32_t>({5}, 7)));
  const auto i32 = g.integers<std::int32_t, Backend>(Shape{500}, Chunks{64},
                                                     std::numeric_limits<std::int32_t>::min(),
                                                     std::numeric_limits<std::int32_t>::max())
                       .compute();
  EXPECT_TRUE(matches(
      i32, cast<std::int32_t>(integers_spec({500}, 4, std::numeric_limits<std::int32_t>::min(),
                                            std::numeric_limits<std::int32_t>::max(), 99))));
}

// A sample that would round to high is the last value below it: over a range one value wide
// every sample is low (about half of them were high), over two values wide never high.
TEST_F(Random, UniformNeverReachesHigh) {
  Generator g(seed);
  const float f1 = std::nextafter(1.0f, 2.0f), f2 = std::nextafter(f1, 2.0f);
  EXPECT_TRUE(matches(g.uniform<float, Backend>(Shape{1000}, Chunks{300}, 1.0f, f1).compute(),
                      Dense<float>({1000}, 1.0f)));
  const auto two = g.uniform<float, Backend>(Shape{1000}, Chunks{300}, 1.0f, f2).compute();
  EXPECT_TRUE(matches(two, cast<float>(uniform_spec<float>({1000}, 1, 1.0, f2))));
  EXPECT_EQ(std::count(two.begin(), two.end(), f2), 0);
  for (double low : {1.0, -3.5, 1e300}) {
    SCOPED_TRACE(low);
    const double high = std::nextafter(low, HUGE_VAL);
    EXPECT_TRUE(matches(g.uniform<double, Backend>(Shape{1000}, Chunks{300}, low, high).compute(),
                        Dense<double>({1000}, low)));
  }
  // low == high is every sample low, as NumPy.
  EXPECT_TRUE(matches(g.uniform<double, Backend>(Shape{5}, Chunks{2}, 2.5, 2.5).compute(),
                      Dense<double>({5}, 2.5)));
}

// high - low overflows a double: the samples are still low + (high - low) u, rounded once.
TEST_F(Random, UniformOverARangeWiderThanTheLargestDouble) {
  const double max = std::numeric_limits<double>::max();
  for (const auto& [low, high] : {std::pair{-1e308, 1e308}, std::pair{-max, max}}) {
    SCOPED_TRACE(high);
    Generator g(seed);
    const auto u = g.uniform<double, Backend>(Shape{3000}, Chunks{701}, low, high).compute();
    EXPECT_TRUE(matches(u, uniform_spec({3000}, 0, low, high)));
    double sum = 0;
    for (double v : u) {
      ASSERT_TRUE(std::isfinite(v));
      ASSERT_GE(v, low);
      ASSERT_LT(v, high);
      sum += v / high;
    }
    EXPECT_NEAR(sum / 3000, 0.0, 0.06); // 5 standard errors of sqrt(1/3 / n)
  }
}

TEST_F(Random, UniformNeedsFiniteOrderedBounds) {
  Generator g(seed);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (const auto& [low, high] : {std::pair{0.0, inf}, std::pair{-inf, 0.0}, std::pair{nan, 1.0},
                                  std::pair{0.0, nan}, std::pair{1.0, 0.0}}) {
    SCOPED_TRACE(std::to_string(low) + ", " + std::to_string(high));
    EXPECT_THROW(((void)g.uniform<double, Backend>(Shape{4}, Chunks{2}, low, high)), ValueError);
  }
  const float inf_f = std::numeric_limits<float>::infinity();
  EXPECT_THROW(((void)g.uniform<float, Backend>(Shape{4}, Chunks{2}, 0.0f, inf_f)), ValueError);
  EXPECT_EQ(g.next_stream(), 0u) << "a rejected call takes no stream";
}

// n = high - low as uint64: the whole int64 range, and one-value ranges at both ends.
TEST_F(Random, IntegersAtTheEndsOfInt64) {
  using L = std::numeric_limits<std::int64_t>;
  Generator g(seed);
  const auto all = g.integers<std::int64_t, Backend>(Shape{2000}, Chunks{333}, L::min(), L::max());
  const auto got = all.compute();
  EXPECT_TRUE(matches(got, integers_spec({2000}, 0, L::min(), L::max())));
  EXPECT_LT(*std::min_element(got.begin(), got.end()), L::min() / 2);
  EXPECT_GT(*std::max_element(got.begin(), got.end()), L::max() / 2);
  EXPECT_TRUE(matches(
      g.integers<std::int64_t, Backend>(Shape{7}, Chunks{3}, L::max() - 1, L::max()).compute(),
      Dense<std::int64_t>({7}, L::max() - 1)));
  EXPECT_TRUE(matches(
      g.integers<std::int64_t, Backend>(Shape{7}, Chunks{3}, L::min(), L::min() + 1).compute(),
      Dense<std::int64_t>({7}, L::min())));
  using I = std::numeric_limits<std::int32_t>;
  EXPECT_TRUE(matches(
      g.integers<std::int32_t, Backend>(Shape{7}, Chunks{3}, I::max() - 1, I::max()).compute(),
      Dense<std::int32_t>({7}, I::max() - 1)));
}

TEST_F(Random, RandomArraysOfRankZeroAndEmptyShapes) {
  Generator g(seed);
  const auto s = g.normal<double, Backend>(Shape{}, Chunks{});
  EXPECT_EQ(s.size(), 1);
  EXPECT_TRUE(matches(s.compute(), normal_spec({}, 0, 0, 1), normal_tolerance()));
  const auto e = g.uniform<double, Backend>(Shape{3, 0}, Chunks{2, 1});
  EXPECT_EQ(e.size(), 0);
  EXPECT_EQ(e.compute().size(), 0);
  EXPECT_EQ(e.sum().item(), 0.0);
}

TEST_F(Random, SampleMomentsAreSane) {
  Generator g(2024);
  const auto x = g.normal<double, Backend>(Shape{200, 300}, Chunks{64, 64}, 10.0, 2.0);
  const auto [m, s] = compute(ComputeOptions{}, x.mean(), x.std());
  EXPECT_NEAR(m.item(), 10.0, 0.05);
  EXPECT_NEAR(s.item(), 2.0, 0.05);
  const auto u = g.uniform<double, Backend>(Shape{60000}, Chunks{7000});
  EXPECT_NEAR(u.mean().item(), 0.5, 0.01);
}

} // namespace
} // namespace chunked::test
