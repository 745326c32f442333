// SPDX-License-Identifier: Apache-2.0
// Scalar-edges suite: integer scalars outside an array's integer type (NEP 50). Comparisons go by
// value, on every chunking and with the scalar on either side; arithmetic is refused
// (suite_errors).
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"

#include <cstdint>
#include <limits>
#include <vector>

namespace chunked::test {
namespace {

template <class T> class ScalarEdges : public TypedBackendTest<T> {};
using IntegerAndBoolTypes = ::testing::Types<bool, std::int32_t, std::int64_t>;
TYPED_TEST_SUITE(ScalarEdges, IntegerAndBoolTypes);

/// Every element compared with the scalar by value, with the scalar on the right (x op s) and on
/// the left (s op x), for all six comparisons, on every chunking.
template <class T, class S> void check_comparisons(const Dense<T>& a, S s) {
  // By value: every integer type involved fits long double's 64-bit mantissa.
  const auto v = static_cast<long double>(s);
  for (const auto& chunks : chunkings_for(a.shape())) {
    SCOPED_TRACE(chunks.to_string() + ", scalar " + std::to_string(s));
    const auto x = make_array<Backend>(a, chunks);
    auto check = [&](const auto& got, auto ref) {
      EXPECT_EQ(got.shape().extents(), a.shape());
      EXPECT_EQ(got.chunks(), x.chunks());
      EXPECT_TRUE(matches(got.compute(), map(a, ref)));
    };
    auto ld = [](T e) { return static_cast<long double>(e); };
    check(x < s, [&](T e) { return ld(e) < v; });
    check(x <= s, [&](T e) { return ld(e) <= v; });
    check(x > s, [&](T e) { return ld(e) > v; });
    check(x >= s, [&](T e) { return ld(e) >= v; });
    check(x == s, [&](T e) { return ld(e) == v; });
    check(x != s, [&](T e) { return ld(e) != v; });
    check(s < x, [&](T e) { return v < ld(e); });
    check(s <= x, [&](T e) { return v <= ld(e); });
    check(s > x, [&](T e) { return v > ld(e); });
    check(s >= x, [&](T e) { return v >= ld(e); });
    check(s == x, [&](T e) { return v == ld(e); });
    check(s != x, [&](T e) { return v != ld(e); });
  }
}

TYPED_TEST(ScalarEdges, ComparisonsWithOutOfRangeIntegersGoByValue) {
  using T = TypeParam;
  std::mt19937_64 rng(31);
  auto a = random_dense<T>({5, 3}, rng);
  // The type's own extremes are in the data: a wrapped scalar would equal one of them.
  a[0] = std::numeric_limits<T>::max();
  a[1] = std::numeric_limits<T>::min();
  // int32_array < 3000000000 used to compare against the wrapped value, -1294967296.
  check_comparisons(a, 3000000000LL);
  check_comparisons(a, -3000000000LL);
  check_comparisons(a, 4294967296LL); // wraps to 0 in int32
  check_comparisons(a, std::numeric_limits<std::uint64_t>::max());
  check_comparisons(a, std::uint64_t{1} << 63); // INT64_MIN once wrapped
  check_comparisons(a, std::numeric_limits<std::int64_t>::min());
  // In range: the ordinary comparison.
  check_comparisons(a, 1);
  check_comparisons(a, std::numeric_limits<std::int32_t>::min());
}

} // namespace
} // namespace chunked::test
