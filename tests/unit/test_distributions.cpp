// SPDX-License-Identifier: Apache-2.0
// Uniform, normal and integer samples: spec formulas, accuracy, statistics and the CPU kernels.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "backend/cpu/random_kernels.hpp"
#include "chunked/random/cuda_math.hpp"
#include "chunked/random/distributions.hpp"
#include "support/ulp.hpp"

namespace {

__extension__ using u128 = unsigned __int128; // GCC and Clang; __extension__ for -Wpedantic

namespace rnd = chunked::random;
using chunked::index_t;

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

using chunked::test::ulp_distance;

// sin(pi x), cos(pi x) in long double with the exact reduction x = q / 2 + r, |r| <= 1/4.
void sincospi_reference(double x, long double* s, long double* c) {
  const long double pi = 3.141592653589793238462643383279502884L;
  const long double q = std::nearbyint(2.0L * x);
  const long double r = (x - q / 2) * pi; // x - q / 2 is exact in long double
  const long double sr = std::sin(r), cr = std::cos(r);
  switch (static_cast<long long>(q) & 3) {
  case 0:
    *s = sr, *c = cr;
    break;
  case 1:
    *s = cr, *c = -sr;
    break;
  case 2:
    *s = -sr, *c = -cr;
    break;
  default:
    *s = -cr, *c = sr;
    break;
  }
}

// Random words for accuracy sweeps, from the generator under test's own block function.
rnd::Words4x32 sweep_words(std::uint64_t i) { return rnd::philox_words(7, 99, i); }

// ---- cuRAND values recorded on an H200 (CUDA 13.0): the host must reproduce their bits. ----

struct RecordedNormals {
  std::uint64_t seed, stream, block, even_bits, odd_bits;
};
// curand_init(seed, stream, 4 * block, &state); curand_normal2_double(&state).
constexpr RecordedNormals kCurandNormals[] = {
    {0x2aull, 0x0ull, 0x0ull, 0x3ff0938d6e3710a3ull, 0xbfe54abf38e526c1ull},
    {0x2aull, 0x0ull, 0x1ull, 0x3fdb1706d3b4c823ull, 0xbff6f13555a03774ull},
    {0x2aull, 0x0ull, 0x2ull, 0xbfecf0bca1278e2cull, 0x3fc147e62207a1f0ull},
    {0x2aull, 0x0ull, 0x3ull, 0x3fe3b208d09165f3ull, 0xbfe4be76a676d9abull},
    {0x7e3ull, 0x2ull, 0x1d1a94a200ull, 0x3fd2c5a464acab64ull, 0xbfc7ddc12efcb85full},
    {0x7e3ull, 0x2ull, 0x1d1a94a201ull, 0x3fa7028d94accc59ull, 0xbfd94b29580765f9ull},
    {0xdeadbeefcafef00dull, 0x3ull, 0x3ade68aull, 0x3ffa15af5031a739ull, 0x3fd63006bca201bdull},
    {0xffffffffffffffffull, 0xffffffffffffffffull, 0xfffffffffffffffull, 0xbfda43490e79d32full,
     0x3fde5c9bbec022c8ull},
};

struct RecordedMath {
  double x;
  std::uint64_t sinpi_bits, cospi_bits, log_bits;
};
// Device sincospi(x, &s, &c) and log(x).
constexpr RecordedMath kCudaMath[] = {
    {0x1p-53, 0x3cb921fb54442d18ull, 0x3ff0000000000000ull, 0xc0425e4f7b2737faull},
    {0x1p-54, 0x3ca921fb54442d18ull, 0x3ff0000000000000ull, 0xc042b708872320e2ull},
    {0x1p-2, 0x3fe6a09e667f3bccull, 0x3fe6a09e667f3bcdull, 0xbff62e42fefa39efull},
    {0x1p-1, 0x3ff0000000000000ull, 0x0000000000000000ull, 0xbfe62e42fefa39efull},
    {0x1.8p-1, 0x3fe6a09e667f3bccull, 0xbfe6a09e667f3bcdull, 0xbfd269621134db92ull},
    {0x1p+0, 0x0000000000000000ull, 0xbff0000000000000ull, 0x0000000000000000ull},
    {0x1.4p+0, 0xbfe6a09e667f3bccull, 0xbfe6a09e667f3bcdull, 0x3fcc8ff7c79a9a22ull},
    {0x1.8p+0, 0xbff0000000000000ull, 0x0000000000000000ull, 0x3fd9f323ecbf984cull},
    {0x1.cp+0, 0xbfe6a09e667f3bccull, 0x3fe6a09e667f3bcdull, 0x3fe1e85f5e7040d0ull},
    {0x1.ffffffffffffep-2, 0x3ff0000000000000ull, 0x3cb921fb54442d18ull, 0xbfe62e42fefa39f1ull},
    {0x1.0000000000002p-1, 0x3ff0000000000000ull, 0xbcc921fb54442d18ull, 0xbfe62e42fefa39ebull},
    {0x1.fffffffffffffp-1, 0x3cb921fb54442d18ull, 0xbff0000000000000ull, 0xbca0000000000000ull},
    {0x1.0000000000001p+0, 0xbcc921fb54442d18ull, 0xbff0000000000000ull, 0x3cafffffffffffffull},
    {0x1.fffffffffffffp+0, 0xbcc921fb54442d18ull, 0x3ff0000000000000ull, 0x3fe62e42fefa39eeull},
    {0x1.5555555555555p-2, 0x3febb67ae8584caaull, 0x3fe0000000000000ull, 0xbff193ea7aad030bull},
    {0x1.999999999999ap-4, 0x3fd3c6ef372fe950ull, 0x3fee6f0e134454ffull, 0xc0026bb1bbb55515ull},
    {0x1.6a09e667f3bcdp-1, 0x3fe9765196cc383full, 0xbfe361e4b009710full, 0xbfd62e42fefa39eeull},
    {0x1.fffffca501acbp-1, 0x3e9515370f6a4d07ull, 0xbfeffffffffffe44ull, 0xbe7ad7f2b1049b9full},
    {0x1.56e1fc2f8f359p-997, 0x01c0d4cab14b6bc0ull, 0x3ff0000000000000ull, 0xc085963447f87fb5ull},
    {0x1.f75104d551d69p-16, 0x3f18b4dc85ab54efull, 0x3feffffffd9d96e0ull, 0xc024d420db4d09faull},
    {0x1.f9add3739635fp-4, 0x3fd8346d2a0aa1fcull, 0x3fed9f87e05bb874ull, 0xc000bc233add5d72ull},
    {0x1.e666666666666p+0, 0xbfd3c6ef372fe954ull, 0x3fee6f0e134454ffull, 0x3fe48a11293d785bull},
    {0x1.3333333333333p-1, 0x3fee6f0e13445500ull, 0xbfd3c6ef372fe94eull, 0xbfe058aefa811452ull},
};

TEST(CudaMath, ReproducesRecordedDeviceResults) {
  for (const RecordedMath& m : kCudaMath) {
    double s = 0, c = 0;
    rnd::sincospi(m.x, &s, &c);
    EXPECT_EQ(bits(s), m.sinpi_bits) << "sinpi(" << m.x << ")";
    EXPECT_EQ(bits(c), m.cospi_bits) << "cospi(" << m.x << ")";
    EXPECT_EQ(bits(rnd::cuda_log(m.x)), m.log_bits) << "log(" << m.x << ")";
  }
}

TEST(Normal, ReproducesRecordedCurandNormals) {
  for (const RecordedNormals& r : kCurandNormals) {
    const rnd::Pair<double> z = rnd::normal_pair(r.seed, r.stream, r.block, 0.0, 1.0);
    EXPECT_EQ(bits(z.even), r.even_bits) << "block " << r.block;
    EXPECT_EQ(bits(z.odd), r.odd_bits) << "block " << r.block;
  }
}

TEST(CudaMath, SincospiIsExactAtHalfIntegersAndQuarters) {
  for (int k = -8; k <= 8; ++k) {
    double s = 0, c = 0;
    rnd::sincospi(k, &s, &c); // sinpi(k) = +-0 with the sign of k, cospi(k) = (-1)^k
    EXPECT_EQ(s, 0.0);
    EXPECT_EQ(std::signbit(s), k < 0);
    EXPECT_EQ(c, (k % 2 == 0) ? 1.0 : -1.0);
    rnd::sincospi(k + 0.5, &s, &c); // sinpi(k + 1/2) = (-1)^k, cospi(k + 1/2) = +0
    EXPECT_EQ(s, ((k % 2 + 2) % 2 == 0) ? 1.0 : -1.0);
    EXPECT_EQ(bits(c), 0u);
    rnd::sincospi(k + 0.25, &s, &c);
    EXPECT_LE(ulp_distance(std::fabs(s), M_SQRT1_2), 1u);
    EXPECT_LE(ulp_distance(std::fabs(c), M_SQRT1_2), 1u);
  }
  double s = 0, c = 0;
  rnd::sincospi(0x1p60, &s, &c); // beyond 2^53 every double is an even integer
  EXPECT_EQ(s, 0.0);
  EXPECT_EQ(c, 1.0);
  rnd::sincospi(std::numeric_limits<double>::infinity(), &s, &c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
}

TEST(CudaMath, SincospiIsSymmetric) {
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const rnd::Words4x32 w = sweep_words(i);
    const double x = static_cast<double>(w.w0) * 0x1p-28; // up to 16
    double s = 0, c = 0, sn = 0, cn = 0;
    rnd::sincospi(x, &s, &c);
    rnd::sincospi(-x, &sn, &cn);
    ASSERT_EQ(bits(sn), bits(-s)) << x;
    ASSERT_EQ(bits(cn), bits(c)) << x;
  }
}

TEST(CudaMath, SincospiWithinOneUlpOnBoxMullerArguments) {
  // The v of Box-Muller, plus arguments right next to the zeros of sinpi and cospi.
  std::vector<double> args;
  for (std::uint64_t i = 0; i < 200000; ++i) {
    const rnd::Words4x32 w = sweep_words(i);
    args.push_back(static_cast<double>(w.w2 ^ (std::uint64_t{w.w3} << 21)) * 0x1p-52 + 0x1p-53);
  }
  for (double z : {0.5, 1.0, 1.5, 2.0}) {
    for (int k = 1; k < 200; ++k) {
      args.push_back(z - k * 0x1p-52);
      args.push_back(std::nextafter(z, 0.0) - k * 1e-10);
    }
  }
  std::uint64_t worst = 0;
  for (double x : args) {
    double s = 0, c = 0;
    long double rs = 0, rc = 0;
    rnd::sincospi(x, &s, &c);
    sincospi_reference(x, &rs, &rc);
    const std::uint64_t d = std::max(ulp_distance(s, static_cast<double>(rs)),
                                     ulp_distance(c, static_cast<double>(rc)));
    worst = std::max(worst, d);
    ASSERT_LE(d, 1u) << "sincospi(" << x << ")";
  }
  RecordProperty("sincospi_worst_ulp", static_cast<int>(worst));
}

TEST(CudaMath, LogWithinOneUlpOfLibm) {
  for (std::uint64_t i = 0; i < 200000; ++i) {
    const rnd::Words4x32 w = sweep_words(i);
    const double u = rnd::unit_uniform(w.w0, w.w1);
    ASSERT_LE(ulp_distance(rnd::cuda_log(u), std::log(u)), 1u) << u;
    const double wide = std::ldexp(1.0 + w.w2 * 0x1p-32, static_cast<int>(w.w3 % 2000) - 1000);
    ASSERT_LE(ulp_distance(rnd::cuda_log(wide), std::log(wide)), 1u) << wide;
  }
  EXPECT_EQ(rnd::cuda_log(1.0), 0.0);
  EXPECT_EQ(rnd::cuda_log(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(rnd::cuda_log(-1.0)));
  EXPECT_EQ(rnd::cuda_log(std::numeric_limits<double>::infinity()),
            std::numeric_limits<double>::infinity());
  EXPECT_LE(ulp_distance(rnd::cuda_log(0x1p-1070), std::log(0x1p-1070)), 1u); // subnormal
}

TEST(Normal, WithinFourUlpOfLongDoubleReference) {
  std::uint64_t identical = 0, worst = 0;
  const std::uint64_t n = 200000;
  for (std::uint64_t i = 0; i < n; ++i) {
    const rnd::Words4x32 w = sweep_words(i);
    const double u = rnd::unit_uniform(w.w0, w.w1);
    const double v = static_cast<double>(w.w2 ^ (std::uint64_t{w.w3} << 21)) * 0x1p-52 + 0x1p-53;
    long double s = 0, c = 0;
    sincospi_reference(v, &s, &c);
    const long double radius = std::sqrt(-2.0L * std::log(static_cast<long double>(u)));
    const rnd::Pair<double> z = rnd::standard_normal_pair(w);
    for (auto [got, want] : {std::pair{z.even, radius * s}, std::pair{z.odd, radius * c}}) {
      const std::uint64_t d = ulp_distance(got, static_cast<double>(want));
      identical += d == 0;
      worst = std::max(worst, d);
      ASSERT_LE(d, 4u) << "block " << i << ": " << got << " vs " << static_cast<double>(want);
    }
  }
  RecordProperty("normal_worst_ulp", static_cast<int>(worst));
  EXPECT_GT(static_cast<double>(identical) / (2 * n), 0.5);
}

TEST(Normal, PerElementMatchesPairsAndSpecFormula) {
  for (std::uint64_t e = 0; e < 1000; ++e) {
    const rnd::Pair<double> z = rnd::standard_normal_pair(rnd::philox_words(5, 2, e >> 1));
    const double want = std::fma(2.5, (e & 1) ? z.odd : z.even, -3.0);
    ASSERT_EQ(bits(rnd::normal_at(5, 2, e, -3.0, 2.5)), bits(want));
    const rnd::Pair<double> p = rnd::normal_pair(5, 2, e >> 1, -3.0, 2.5);
    ASSERT_EQ(bits((e & 1) ? p.odd : p.even), bits(want));
  }
}

TEST(Normal, MomentsOfAMillionSamples) {
  const std::uint64_t n = 1000000;
  double sum = 0, sum2 = 0, sum4 = 0;
  std::uint64_t tails = 0;
  for (std::uint64_t e = 0; e < n; ++e) {
    const double z = rnd::normal_at(2024, 3, e, 0.0, 1.0);
    sum += z;
    sum2 += z * z;
    sum4 += z * z * z * z;
    tails += std::fabs(z) > 1.959963984540054;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  // Bounds are 5 standard errors: 1/sqrt(n), sqrt(2/n), sqrt(96/n), sqrt(0.05 * 0.95 / n).
  EXPECT_NEAR(mean, 0.0, 5e-3);
  EXPECT_NEAR(var, 1.0, 7.1e-3);
  EXPECT_NEAR(sum4 / n, 3.0, 4.9e-2);
  EXPECT_NEAR(static_cast<double>(tails) / n, 0.05, 1.1e-3);
  // mean and stddev shift and scale.
  double shifted = 0;
  for (std::uint64_t e = 0; e < 1000; ++e) {
    shifted += rnd::normal_at(2024, 3, e, 10.0, 0.001);
  }
  EXPECT_NEAR(shifted / 1000, 10.0, 1e-3);
}

TEST(Uniform, OpenUnitIntervalAndEndpoints) {
  EXPECT_EQ(rnd::unit_uniform(0, 0), 0x1p-54);
  // 53 ones: (2^53 - 1) 2^-53 + 2^-54 is a tie that rounds to 1, as in cuRAND.
  EXPECT_EQ(rnd::unit_uniform(0x001FFFFF, 0xFFFFFFFF), 1.0);
  // (2^53 - 2) 2^-53 + 2^-54 = 1 - 1.5 2^-53, a tie between 1 - 2^-53 and 1 - 2^-52: even wins.
  EXPECT_EQ(rnd::unit_uniform(0x001FFFFE, 0xFFFFFFFF), 1.0 - 0x1p-52);
  EXPECT_EQ(rnd::unit_uniform(0x12345678, 0), 0x12345678 * 0x1p-53 + 0x1p-54);
  const std::uint64_t n = 1000000;
  double sum = 0, sum2 = 0;
  for (std::uint64_t e = 0; e < n; ++e) {
    const double u = rnd::uniform_at(77, 0, e, 0.0, 1.0);
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum2 += u * u;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.5, 1.5e-3);     // 5 standard errors of sqrt(1/12 / n)
  EXPECT_NEAR(var, 1.0 / 12, 3.8e-4); // 5 standard errors of sqrt((1/80 - 1/144) / n)
}

TEST(Uniform, EvenAndOddElementsUseTheirWordPairs) {
  for (std::uint64_t e = 0; e < 1000; ++e) {
    const rnd::Words4x32 w = rnd::philox_words(9, 4, e >> 1);
    const double u = (e & 1) ? rnd::unit_uniform(w.w2, w.w3) : rnd::unit_uniform(w.w0, w.w1);
    ASSERT_EQ(bits(rnd::uniform_at(9, 4, e, -2.0, 3.0)), bits(std::fma(5.0, u, -2.0)));
    const rnd::Pair<double> p = rnd::uniform_pair(9, 4, e >> 1, -2.0, 3.0);
    ASSERT_EQ(bits((e & 1) ? p.odd : p.even), bits(std::fma(5.0, u, -2.0)));
  }
}

// The value is fma((high - low) / 2, 2u, low): for every finite width (of at least 2^-1021) the
// bits of the former fma(high - low, u, low), except that a value reaching high is the last one
// below it. Ranges of many magnitudes and widths down to one ulp.
TEST(Uniform, SameBitsAsTheFmaOfTheWidthBelowHigh) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> exponent(-300.0, 300.0);
  int clamped = 0;
  for (int r = 0; r < 400; ++r) {
    const double a = (rng() & 1 ? -1.0 : 1.0) * std::pow(10.0, exponent(rng));
    double b = (rng() & 1 ? -1.0 : 1.0) * std::pow(10.0, exponent(rng));
    if (r % 4 == 0) // a few ulps wide
      b = std::nextafter(std::nextafter(a, HUGE_VAL), HUGE_VAL);
    if (r % 4 == 1)
      b = std::nextafter(a, HUGE_VAL);
    const double low = std::min(a, b), high = std::max(a, b);
    for (std::uint64_t e = 0; e < 64; ++e) {
      const rnd::Words4x32 w = rnd::philox_words(17, 3, e >> 1);
      const double u = (e & 1) ? rnd::unit_uniform(w.w2, w.w3) : rnd::unit_uniform(w.w0, w.w1);
      const double old = std::fma(high - low, u, low);
      const double v = rnd::uniform_at(17, 3, e, low, high);
      ASSERT_LT(v, high) << "[" << low << ", " << high << ") element " << e;
      ASSERT_GE(v, low);
      if (old < high)
        ASSERT_EQ(bits(v), bits(old)) << "[" << low << ", " << high << ") element " << e;
      else
        ASSERT_EQ(v, std::nextafter(high, low));
      clamped += old >= high;
    }
  }
  EXPECT_GT(clamped, 100) << "the one-ulp ranges reach high about half the time";
}

// u = 1 (one word pair in 2^53) gives high itself without the clamp.
TEST(Uniform, TheLargestUnitValueGivesTheLastValueBelowHigh) {
  const rnd::UniformForm d = rnd::uniform_form<double>(-2.0, 3.0);
  EXPECT_EQ(d.half_width, 2.5);
  EXPECT_EQ(d.last, std::nextafter(3.0, 0.0));
  EXPECT_EQ(rnd::uniform_value(d, rnd::twice_unit_uniform(0x001FFFFF, 0xFFFFFFFF)), d.last);
  EXPECT_EQ(rnd::twice_unit_uniform(0x001FFFFF, 0xFFFFFFFF), 2.0);
  EXPECT_EQ(rnd::twice_unit_uniform(0x12345678, 0xABCDEF),
            2 * rnd::unit_uniform(0x12345678, 0xABCDEF));
  // A float array's last value is a float: its samples round to at most that float.
  const rnd::UniformForm f = rnd::uniform_form<float>(0.0, 1.0);
  EXPECT_EQ(f.last, static_cast<double>(std::nextafter(1.0f, 0.0f)));
  const double near_one = rnd::uniform_value(f, 2.0 - 0x1p-40);
  EXPECT_EQ(static_cast<float>(near_one), std::nextafter(1.0f, 0.0f));
  EXPECT_EQ(rnd::uniform_value(rnd::uniform_form<double>(0.0, 1.0), 2.0 - 0x1p-40), 1.0 - 0x1p-41);
  // low == high: every value is low.
  EXPECT_EQ(rnd::uniform_value(rnd::uniform_form<double>(4.0, 4.0), 1.3), 4.0);
  // A reversed range (only a hand-made leaf has one) is not clamped: u = 1 gives high.
  EXPECT_EQ(rnd::uniform_value(rnd::uniform_form<float>(10.0, 2.0), 2.0), 2.0);
}

// high - low overflows: the half width does not, and the values cover the range.
TEST(Uniform, RangesWiderThanTheLargestDouble) {
  const double max = std::numeric_limits<double>::max();
  const rnd::UniformForm f = rnd::uniform_form<double>(-max, max);
  EXPECT_EQ(f.half_width, max);
  EXPECT_EQ(rnd::uniform_value(f, 1.0), 0.0);
  EXPECT_EQ(rnd::uniform_value(f, 2.0), std::nextafter(max, 0.0));
  EXPECT_EQ(rnd::uniform_value(f, 0x1p-52), -max + max * 0x1p-52);
  const rnd::UniformForm g = rnd::uniform_form<double>(-1e308, 1e308);
  EXPECT_EQ(g.half_width, 1e308);
  double sum = 0;
  for (std::uint64_t e = 0; e < 10000; ++e) {
    const double v = rnd::uniform_at(8, 1, e, -1e308, 1e308);
    ASSERT_TRUE(std::isfinite(v));
    ASSERT_GE(v, -1e308);
    ASSERT_LT(v, 1e308);
    sum += v * 1e-308;
  }
  EXPECT_NEAR(sum / 10000, 0.0, 0.03); // 5 standard errors of sqrt(1/3 / n)
}

TEST(Integers, HandComputedLemireExamples) {
  EXPECT_EQ(rnd::integer_in(0, 0, 10), 0);
  EXPECT_EQ(rnd::integer_in(std::uint64_t{1} << 63, 0, 10), 5);
  EXPECT_EQ(rnd::integer_in(~std::uint64_t{0}, 0, 10), 9);
  // 0x1999999999999999 * 10 = 0xFFFFFFFFFFFFFFFA: still bucket 0; one more crosses into 1.
  EXPECT_EQ(rnd::integer_in(0x1999999999999999ull, 0, 10), 0);
  EXPECT_EQ(rnd::integer_in(0x199999999999999Aull, 0, 10), 1);
  EXPECT_EQ(rnd::integer_in(std::uint64_t{1} << 63, -5, 5), 0);
  // Full int64 range: n = 2^64 - 1, value = INT64_MIN + w - 1 for w > 0.
  EXPECT_EQ(rnd::integer_in(0, INT64_MIN, INT64_MAX), INT64_MIN);
  EXPECT_EQ(rnd::integer_in(12345, INT64_MIN, INT64_MAX), INT64_MIN + 12344);
  EXPECT_EQ(rnd::integer_in(~std::uint64_t{0}, INT64_MIN, INT64_MAX), INT64_MAX - 1);
}

void check_range(std::int64_t low, std::int64_t high) {
  for (std::uint64_t e = 0; e < 100000; ++e) {
    const std::int64_t v = rnd::integers_at(31, 8, e, low, high);
    ASSERT_GE(v, low) << "[" << low << ", " << high << ")";
    ASSERT_LT(v, high) << "[" << low << ", " << high << ")";
  }
}

TEST(Integers, StayInTheirRange) {
  check_range(-5, 5);
  check_range(0, 1);
  check_range(INT32_MIN, INT32_MAX);
  check_range(INT64_MIN / 2, INT64_MAX / 2);
  check_range(INT64_MIN, INT64_MAX);
  check_range(1000000, 1000003);
}

TEST(Integers, BucketsAreUniformAndMatchTheSpec) {
  const std::uint64_t n = 1000000;
  std::vector<std::uint64_t> count(10, 0);
  for (std::uint64_t e = 0; e < n; ++e) {
    const std::int64_t v = rnd::integers_at(31, 9, e, -5, 5);
    ++count[static_cast<std::size_t>(v + 5)];
    if (e < 1000) { // the word choice and the 128-bit product, written out
      const rnd::Words4x32 w = rnd::philox_words(31, 9, e >> 1);
      const std::uint64_t word =
          (e & 1) ? (w.w2 | std::uint64_t{w.w3} << 32) : (w.w0 | std::uint64_t{w.w1} << 32);
      const auto want = -5 + static_cast<std::int64_t>((static_cast<u128>(word) * 10) >> 64);
      ASSERT_EQ(v, want);
      const rnd::Pair<std::int64_t> p = rnd::integers_pair(31, 9, e >> 1, -5, 5);
      ASSERT_EQ((e & 1) ? p.odd : p.even, want);
    }
  }
  for (std::uint64_t c : count) {
    EXPECT_NEAR(static_cast<double>(c) / n, 0.1, 1.5e-3); // 5 standard errors of sqrt(0.09 / n)
  }
}

// ---- CPU kernels: every index pattern must equal the per-element functions. ----

constexpr chunked::cpu::RandomSource kSource{0xC0FFEEull, 6};

std::vector<std::uint64_t> run_indices(index_t first, index_t step, index_t count) {
  std::vector<std::uint64_t> e;
  for (index_t i = 0; i < count; ++i) {
    e.push_back(static_cast<std::uint64_t>(first + i * step));
  }
  return e;
}

template <class T, class Kernel, class Expected>
void expect_kernel(const Kernel& kernel, const Expected& expected) {
  const chunked::cpu::IndexRun runs[] = {{0, 1, 17},
                                         {1, 1, 17},
                                         {1, 1, 16},
                                         {6, 1, 1},
                                         {7, 1, 1},
                                         {0, 1, 0},
                                         {3, 2, 9},
                                         {4, 2, 9},
                                         {100, -3, 30},
                                         {55, 0, 7},
                                         {(index_t{1} << 40) + 1, 1, 11}};
  for (const auto& run : runs) {
    std::vector<T> out(static_cast<std::size_t>(run.count) + 1, T{42});
    kernel(run, out.data());
    const auto e = run_indices(run.first, run.step, run.count);
    for (std::size_t i = 0; i < e.size(); ++i) {
      ASSERT_EQ(out[i], static_cast<T>(expected(e[i])))
          << "run {" << run.first << ", " << run.step << ", " << run.count << "} element " << i;
    }
    EXPECT_EQ(out[e.size()], T{42}) << "wrote past the end";
  }
  const std::vector<index_t> list{5, 4, 3, 1000001, 0, 0, 8, index_t{1} << 50, 2};
  std::vector<T> out(list.size());
  kernel(chunked::cpu::IndexList{list.data(), static_cast<index_t>(list.size())}, out.data());
  for (std::size_t i = 0; i < list.size(); ++i) {
    ASSERT_EQ(out[i], static_cast<T>(expected(static_cast<std::uint64_t>(list[i]))))
        << "list " << i;
  }
}

TEST(CpuKernels, NormalEqualsPerElement) {
  const auto expected = [](std::uint64_t e) {
    return rnd::normal_at(kSource.seed, kSource.stream, e, 10.0, 2.0);
  };
  expect_kernel<double>(
      [](auto idx, double* out) { chunked::cpu::random_normal(kSource, 10.0, 2.0, idx, out); },
      expected);
  expect_kernel<float>(
      [](auto idx, float* out) { chunked::cpu::random_normal(kSource, 10.0, 2.0, idx, out); },
      expected);
}

TEST(CpuKernels, UniformEqualsPerElement) {
  const auto expected = [](std::uint64_t e) {
    return rnd::uniform_at(kSource.seed, kSource.stream, e, -1.0, 4.0);
  };
  expect_kernel<double>(
      [](auto idx, double* out) { chunked::cpu::random_uniform(kSource, -1.0, 4.0, idx, out); },
      expected);
  const rnd::UniformForm form = rnd::uniform_form<float>(-1.0, 4.0);
  expect_kernel<float>(
      [](auto idx, float* out) { chunked::cpu::random_uniform(kSource, -1.0, 4.0, idx, out); },
      [&](std::uint64_t e) { return rnd::uniform_at(kSource.seed, kSource.stream, e, form); });
}

TEST(CpuKernels, IntegersEqualPerElement) {
  const auto expected64 = [](std::uint64_t e) {
    return rnd::integers_at(kSource.seed, kSource.stream, e, INT64_MIN / 2, INT64_MAX / 2);
  };
  expect_kernel<std::int64_t>(
      [](auto idx, std::int64_t* out) {
        chunked::cpu::random_integers(kSource, INT64_MIN / 2, INT64_MAX / 2, idx, out);
      },
      expected64);
  const auto expected32 = [](std::uint64_t e) {
    return rnd::integers_at(kSource.seed, kSource.stream, e, INT32_MIN, INT32_MAX);
  };
  expect_kernel<std::int32_t>(
      [](auto idx, std::int32_t* out) {
        chunked::cpu::random_integers(kSource, std::int32_t{INT32_MIN}, std::int32_t{INT32_MAX},
                                      idx, out);
      },
      expected32);
}

} // namespace
