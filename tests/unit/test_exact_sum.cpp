// SPDX-License-Identifier: Apache-2.0
// The exact accumulator (backend/common/exact_sum.hpp) and the CPU's lanes over it: every path,
// grouping and order gives the correctly rounded sum, checked against Shewchuk's exact
// summation (Python's math.fsum), and the special values as NumPy.
#include "backend/common/exact_running.hpp"
#include "backend/common/exact_sum.hpp"
#include "backend/cpu/exact_acc.hpp"
#include "support/fsum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

namespace exact = chunked::scalar::exact;
using chunked::test::fsum;
using Entry = std::vector<std::int64_t>;

Entry empty_entry() {
  Entry w(exact::words);
  exact::clear(w.data());
  return w;
}

double sum_by_deposits(const std::vector<double>& xs) {
  Entry w = empty_entry();
  for (double x : xs)
    exact::deposit(w.data(), x);
  return exact::to_double(w.data());
}

double sum_by_window(const std::vector<double>& xs) {
  Entry w = empty_entry();
  for (double x : xs)
    exact::add(w.data(), x);
  return exact::to_double(w.data());
}

double sum_by_lanes(const std::vector<double>& xs) {
  Entry w = empty_entry();
  chunked::cpu::exact_segment_lanes(xs.data(), static_cast<chunked::index_t>(xs.size()), w.data());
  return exact::to_double(w.data());
}

/// The lanes in the widest instruction set of this CPU (the baseline's where it has none wider).
double sum_by_wide_lanes(const std::vector<double>& xs) {
  const auto* wide = chunked::cpu::detail::interpreter_kernels();
  if (wide == nullptr)
    return sum_by_lanes(xs);
  Entry w = empty_entry();
  wide->exact_segment_f64(xs.data(), static_cast<chunked::index_t>(xs.size()), w.data());
  return exact::to_double(w.data());
}

/// The sum of xs cut into `parts` groups (each by another path), combined in a shuffled order.
double sum_by_groups(const std::vector<double>& xs, int parts, std::mt19937_64& rng) {
  std::vector<Entry> groups(static_cast<std::size_t>(parts), empty_entry());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    auto& g = groups[rng() % groups.size()];
    if (i % 2 == 0)
      exact::add(g.data(), xs[i]);
    else
      exact::deposit(g.data(), xs[i]);
  }
  std::shuffle(groups.begin(), groups.end(), rng);
  Entry total = empty_entry();
  for (const auto& g : groups)
    exact::combine(total.data(), g.data());
  return exact::to_double(total.data());
}

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }
std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

/// Random doubles whose magnitudes spread over `binades` binades, with random signs.
std::vector<double> spread(std::mt19937_64& rng, std::size_t n, int binades) {
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::uniform_int_distribution<int> ex(-binades / 2, binades / 2);
  std::vector<double> xs(n);
  for (double& x : xs)
    x = std::ldexp(mant(rng), ex(rng)) * (rng() % 2 ? 1.0 : -1.0);
  return xs;
}

TEST(ExactSum, EveryPathGroupingAndOrderGivesTheCorrectlyRoundedSum) {
  std::mt19937_64 rng(28);
  for (int binades : {4, 60, 200, 1200}) {
    for (std::size_t n : {1u, 2u, 7u, 100u, 5000u}) {
      auto xs = spread(rng, n, binades);
      const double want = fsum(xs);
      EXPECT_EQ(bits(sum_by_deposits(xs)), bits(want)) << binades << " " << n;
      EXPECT_EQ(bits(sum_by_window(xs)), bits(want)) << binades << " " << n;
      EXPECT_EQ(bits(sum_by_lanes(xs)), bits(want)) << binades << " " << n;
      EXPECT_EQ(bits(sum_by_wide_lanes(xs)), bits(want)) << binades << " " << n;
      EXPECT_EQ(bits(sum_by_groups(xs, 7, rng)), bits(want)) << binades << " " << n;
      std::reverse(xs.begin(), xs.end());
      EXPECT_EQ(bits(sum_by_lanes(xs)), bits(want)) << binades << " " << n << " reversed";
    }
  }
}

TEST(ExactSum, CancellationLeavesTheSmallTerms) {
  EXPECT_EQ(sum_by_window({1e16, 1, 1, 1}), fsum({1e16, 1, 1, 1}));
  EXPECT_EQ(sum_by_deposits({1e308, 1e308, -1e308, -1e308, 1.0}), 1.0);
  EXPECT_EQ(sum_by_lanes({1e308, 1e308, -1e308, -1e308, 1.0}), 1.0);
  EXPECT_EQ(sum_by_window({1e300, 1e-300, -1e300}), 1e-300);
  const double big = std::numeric_limits<double>::max();
  EXPECT_EQ(sum_by_lanes({big, big, -big}), big); // no intermediate overflow
  // Values far below the lanes' anchor leave remainders that go to the digits.
  std::vector<double> mixed(4000, 1.0);
  for (std::size_t i = 0; i < mixed.size(); i += 3)
    mixed[i] = std::ldexp(1.0, -60 - static_cast<int>(i % 200));
  EXPECT_EQ(bits(sum_by_lanes(mixed)), bits(fsum(mixed)));
}

TEST(ExactSum, RoundsHalfToEvenWithAStickyTail) {
  const double ulp_half = std::ldexp(1.0, -53);
  EXPECT_EQ(sum_by_deposits({1.0, ulp_half}), 1.0);
  EXPECT_EQ(sum_by_deposits({1.0, ulp_half, std::ldexp(1.0, -200)}), 1.0 + 2 * ulp_half);
  EXPECT_EQ(sum_by_deposits({1.0 + 2 * ulp_half, ulp_half}), 1.0 + 4 * ulp_half);
  EXPECT_EQ(sum_by_deposits({-1.0, -ulp_half, -std::ldexp(1.0, -900)}), -1.0 - 2 * ulp_half);
}

TEST(ExactSum, SubnormalsAndOverflow) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  const double big = std::numeric_limits<double>::max();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(sum_by_window({tiny, tiny}), 2 * tiny);
  EXPECT_EQ(sum_by_lanes({std::numeric_limits<double>::min(), -tiny}),
            std::numeric_limits<double>::min() - tiny);
  EXPECT_EQ(sum_by_deposits({big, big}), inf);
  EXPECT_EQ(sum_by_lanes({-big, -big}), -inf);
  // Rounding up to 2^1024 overflows too.
  EXPECT_EQ(sum_by_deposits({big, std::ldexp(1.0, 970)}), inf);
  EXPECT_EQ(sum_by_deposits({big, std::ldexp(1.0, 969)}), big);
}

TEST(ExactSum, SpecialValuesAsNumPy) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(sum_by_lanes({1.0, nan, 2.0})));
  EXPECT_TRUE(std::isnan(sum_by_window({inf, -inf})));
  EXPECT_EQ(sum_by_deposits({inf, 1.0, 1e308}), inf);
  EXPECT_EQ(sum_by_lanes({-inf, 5.0}), -inf);
  EXPECT_EQ(bits(sum_by_lanes({})), bits(0.0));
  EXPECT_EQ(bits(sum_by_lanes({-0.0})), bits(-0.0));
  EXPECT_EQ(bits(sum_by_window({-0.0, -0.0})), bits(-0.0));
  EXPECT_EQ(bits(sum_by_deposits({-0.0, 0.0})), bits(0.0));
  EXPECT_EQ(bits(sum_by_lanes({1.0, -1.0})), bits(0.0));
  EXPECT_EQ(bits(sum_by_lanes({-1.0, 1.0, -0.0})), bits(0.0));
  std::vector<double> zeros(3000, -0.0);
  EXPECT_EQ(bits(sum_by_lanes(zeros)), bits(-0.0));
  zeros[1234] = 0.0;
  EXPECT_EQ(bits(sum_by_lanes(zeros)), bits(0.0));
}

TEST(ExactSum, FloatSumsRoundOnceFromTheExactValue) {
  auto to_float = [](const std::vector<double>& xs) {
    Entry w = empty_entry();
    for (double x : xs)
      exact::add(w.data(), x);
    return exact::to_float(w.data());
  };
  const double half = std::ldexp(1.0, -24);
  EXPECT_EQ(to_float({1.0, half}), 1.0f); // a tie: to even
  // Through a double this would round to 1 + 2^-24 (a tie for float, then even: 1.0f); once
  // from the exact value it is above the tie.
  EXPECT_EQ(to_float({1.0, half, std::ldexp(1.0, -80)}), 1.0f + std::ldexp(1.0f, -23));
  EXPECT_EQ(to_float({3e38, 3e38}), std::numeric_limits<float>::infinity());
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(to_float({tiny, tiny, tiny}), 3 * tiny);
  EXPECT_EQ(to_float({static_cast<double>(tiny) / 2}), 0.0f); // a tie below the least subnormal
  EXPECT_EQ(to_float({static_cast<double>(tiny) * 0.75}), tiny);
  EXPECT_EQ(bits(to_float({-0.0})), bits(-0.0f));
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> u(-1000.0f, 1000.0f);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> xs(50);
    for (double& x : xs)
      x = u(rng);
    // Sums of 50 floats of this range are exact in double: one rounding to float.
    EXPECT_EQ(bits(to_float(xs)), bits(static_cast<float>(fsum(xs))));
  }
}

TEST(ExactSum, CarriesAndSettlingKeepTheValue) {
  Entry w = empty_entry();
  std::vector<double> xs;
  std::mt19937_64 rng(9);
  for (int i = 0; i < (1 << 21) + 17; ++i) { // the window settles twice
    const double x = std::ldexp(static_cast<double>(rng() % 1000) + 0.5, -3);
    xs.push_back(x);
    exact::add(w.data(), x);
  }
  EXPECT_EQ(exact::to_double(w.data()), fsum(xs));
  // A deposit count at the threshold normalizes the digits, leaving the value.
  Entry v = empty_entry();
  for (double x : {1.5, -2.25, 1e200, -1e200, 3.0})
    exact::deposit(v.data(), x);
  v[exact::deposits_word] = exact::normalize_after - 1;
  exact::deposit(v.data(), 0.125);
  EXPECT_EQ(v[exact::deposits_word], 0);
  EXPECT_EQ(exact::to_double(v.data()), 1.5 - 2.25 + 3.0 + 0.125);
  Entry u = v;
  u[exact::deposits_word] = exact::normalize_after - 1;
  exact::combine(v.data(), u.data());
  EXPECT_EQ(exact::to_double(v.data()), 2 * (1.5 - 2.25 + 3.0 + 0.125));
}

} // namespace

namespace running {

/// Every prefix of xs through a running sum, rounded to T after each element; the sum is stored
/// into an entry and loaded back halfway, as a carry between blocks.
template <class T> std::vector<T> prefixes(const std::vector<double>& xs) {
  exact::Running r;
  exact::start(r);
  std::vector<T> out;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (i == xs.size() / 2) {
      Entry w = empty_entry();
      exact::store(r, w.data());
      exact::load(r, w.data());
    }
    exact::add(r, xs[i]);
    out.push_back(exact::running_value<T>(r));
  }
  return out;
}

} // namespace running

TEST(ExactSum, RunningSumsRoundEveryPrefixCorrectly) {
  std::mt19937_64 rng(12);
  for (int binades : {4, 60, 1200}) {
    const auto xs = spread(rng, 300, binades);
    const auto got = running::prefixes<double>(xs);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const std::vector<double> prefix(xs.begin(), xs.begin() + static_cast<long>(i) + 1);
      ASSERT_EQ(bits(got[i]), bits(fsum(prefix))) << binades << " " << i;
    }
  }
  // Crossing zero turns the digits' sign, and back; a carry ripples through the extension.
  const double tiny = std::ldexp(1.0, -1074);
  const auto crossing = running::prefixes<double>({1.0, -3.0, tiny, 2.0, -tiny, 1e300, -1e300});
  const std::vector<double> want{1.0, -2.0, -2.0 + tiny, tiny, 0.0, 1e300, 0.0};
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(bits(crossing[i]), bits(want[i])) << i;
  // Floats round once from the exact value, signed zeros and specials as the entries' sums.
  const auto f = running::prefixes<float>({1.0, std::ldexp(1.0, -24), std::ldexp(1.0, -80)});
  EXPECT_EQ(f[1], 1.0f);                         // a tie: to even
  EXPECT_EQ(f[2], 1.0f + std::ldexp(1.0f, -23)); // the tail breaks it
  const auto z = running::prefixes<double>({-0.0, -0.0, 0.0});
  EXPECT_TRUE(std::signbit(z[0]) && std::signbit(z[1]) && !std::signbit(z[2]));
  const double inf = std::numeric_limits<double>::infinity();
  const auto s = running::prefixes<double>({1.0, inf, -1.0, -inf});
  EXPECT_EQ(s[1], inf);
  EXPECT_EQ(s[2], inf);
  EXPECT_TRUE(std::isnan(s[3]));
}
