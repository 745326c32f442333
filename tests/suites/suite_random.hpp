// SPDX-License-Identifier: Apache-2.0
// Random suite: Generator arrays equal the element-wise spec under any chunking and any slicing.
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"

#include <chunked/random/distributions.hpp>

#include <cstdint>
#include <limits>
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
Dense<double> uniform_spec(const Extents& shape, std::uint64_t stream, double low, double high) {
  return generate<double>(shape, [&](index_t e) {
    return random::uniform_at(seed, stream, static_cast<std::uint64_t>(e), low, high);
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
    EXPECT_TRUE(matches(u.compute(), cast<float>(uniform_spec(random_shape, 1, -1.0, 1.0))));
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
