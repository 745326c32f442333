// SPDX-License-Identifier: Apache-2.0
// API conveniences: default-constructed arrays, compound assignment, from_host over ranges.
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace {

using namespace chunked;

TEST(ApiConveniences, DefaultConstructedArrayIsEmpty) {
  ChunkedArray<double> x;
  EXPECT_EQ(x.shape(), Shape{0});
  EXPECT_EQ(x.compute().size(), 0);
  EXPECT_EQ(x.sum().item(), 0.0);
  x = ones<double>(Shape{3}, Chunks{2});
  EXPECT_EQ(x.sum().item(), 3.0);
}

TEST(ApiConveniences, CompoundAssignmentRebindsLazily) {
  auto x = arange<std::int64_t>(0, 10, 1, 3);
  const auto before = x;
  x += 5;
  x *= 2;
  x %= 7;
  const auto r = x.compute();
  for (index_t i = 0; i < 10; ++i)
    EXPECT_EQ(r(i), ((i + 5) * 2) % 7);
  // The array it was copied from is unchanged: arrays are values.
  EXPECT_EQ(before.sum().item(), 45);
  auto b = full<bool>(Shape{4}, Chunks{3}, true);
  b ^= true;
  EXPECT_FALSE(b.any().item());
}

TEST(ApiConveniences, FromHostTakesContiguousRanges) {
  const std::vector<double> v{1, 2, 3, 4, 5, 6};
  const auto a = from_host(v, Shape{2, 3}, Chunks{1, 2});
  EXPECT_EQ(a.sum(Axes{1}).compute()(1), 15.0);
  const std::array<std::int32_t, 4> w{4, 3, 2, 1};
  const auto b = from_host(w, Shape{4}, Chunks{3});
  static_assert(std::is_same_v<decltype(b), const ChunkedArray<std::int32_t, Cpu>>);
  EXPECT_EQ(b.argmin().item(), 3);
  EXPECT_THROW(from_host(v, Shape{4}, Chunks{2}), ShapeError);
}

} // namespace
