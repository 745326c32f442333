// SPDX-License-Identifier: Apache-2.0
// The vectorised random kernels give, on every instruction set, the bits of the scalar reference.

#include "backend/cpu/random_kernels.hpp"
#include <chunked/random/distributions.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace chunked;
using namespace chunked::cpu;
namespace rnd = chunked::random;

constexpr std::int64_t two40 = std::int64_t{1} << 40;

// Runs over every vector-width boundary: steps 1, 2, -3, 0, 7 and others, odd and even starts,
// counts around multiples of 4 and 8, indices near 2^40 and in the upper half of block words.
std::vector<IndexRun> test_runs() {
  std::vector<IndexRun> runs;
  const std::int64_t firsts[] = {0,    1,         2,     5,         1000,
                                 1001, two40 - 3, two40, two40 + 1, (std::int64_t{1} << 62) + 7};
  const std::int64_t steps[] = {1, 2, -3, 0, 7, 3, 16, -1, -2, 1 << 20};
  const std::int64_t counts[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1001};
  for (std::int64_t first : firsts) {
    for (std::int64_t step : steps) {
      for (std::int64_t count : counts) {
        // Negative steps must stay at indices >= 0.
        if (step < 0 && first + step * (count - 1) < 0) {
          continue;
        }
        runs.push_back({first, step, count});
      }
    }
  }
  return runs;
}

std::vector<index_t> run_indices(IndexRun run) {
  std::vector<index_t> e(static_cast<std::size_t>(run.count));
  for (index_t i = 0; i < run.count; ++i) {
    e[static_cast<std::size_t>(i)] = run.first + i * run.step;
  }
  return e;
}

// Gathers: shuffled, repeated and far-apart indices, in lengths that leave partial vectors.
std::vector<std::vector<index_t>> test_lists() {
  std::mt19937_64 gen(7);
  std::vector<std::vector<index_t>> lists;
  for (index_t n : {0, 1, 3, 8, 13, 64, 333}) {
    std::vector<index_t> list;
    for (index_t i = 0; i < n; ++i) {
      const auto r = gen();
      switch (i % 3) {
      case 0:
        list.push_back(static_cast<index_t>(r % 4096));
        break;
      case 1:
        list.push_back(two40 + static_cast<index_t>(r % 4096) - 2048);
        break;
      default:
        list.push_back(static_cast<index_t>(r >> 2)); // anywhere below 2^62
        break;
      }
    }
    lists.push_back(list);
  }
  return lists;
}

struct Source {
  RandomSource src;
  const char* name;
};

const Source sources[] = {
    {{42, 0}, "seed 42"},
    {{0xfedcba9876543210ull, 3}, "seed with high word"},
    {{1, 0x123456789ull}, "stream above 2^32"},
};

template <class T> std::uint64_t bits_of(T x) {
  if constexpr (sizeof(T) == 8) {
    return std::bit_cast<std::uint64_t>(x);
  } else if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<std::uint32_t>(x);
  } else {
    return static_cast<std::uint32_t>(x);
  }
}

// Reports the first differing element only, so a broken lane does not flood the log.
template <class T, class Ref>
void expect_bits(const std::vector<T>& got, const std::vector<index_t>& indices, const Ref& ref,
                 const std::string& what) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    const T want = ref(static_cast<std::uint64_t>(indices[i]));
    if (bits_of(got[i]) != bits_of(want)) {
      ADD_FAILURE() << what << ": element " << i << " (flat index " << indices[i] << ") is "
                    << got[i] << ", the scalar reference gives " << want;
      return;
    }
  }
}

std::string describe(const Source& s, IndexRun r) {
  return std::string(s.name) + ", run {" + std::to_string(r.first) + ", " + std::to_string(r.step) +
         ", " + std::to_string(r.count) + "}";
}

std::string describe(const Source& s, const std::vector<index_t>& list) {
  return std::string(s.name) + ", list of " + std::to_string(list.size());
}

class RandomKernelsSimd : public ::testing::TestWithParam<SimdIsa> {
protected:
  void SetUp() override {
    if (!simd_isa_supported(GetParam())) {
      GTEST_SKIP() << simd_isa_name(GetParam()) << " is not built or not supported by this CPU";
    }
    ASSERT_TRUE(set_simd_isa(GetParam()));
    ASSERT_EQ(simd_isa(), GetParam());
  }
  void TearDown() override { set_simd_isa(saved_); }

  // Calls `fill(idx, out)` for every run and list and checks each element against `ref(e)`.
  template <class T, class Fill, class Ref> void check_all(const Fill& fill, const Ref& ref) {
    for (const Source& s : sources) {
      for (IndexRun run : test_runs()) {
        std::vector<T> out(static_cast<std::size_t>(run.count));
        fill(s.src, run, out.data());
        expect_bits(
            out, run_indices(run), [&](std::uint64_t e) { return ref(s.src, e); },
            describe(s, run));
      }
      for (const auto& list : test_lists()) {
        std::vector<T> out(list.size());
        fill(s.src, IndexList{list.data(), static_cast<index_t>(list.size())}, out.data());
        expect_bits(
            out, list, [&](std::uint64_t e) { return ref(s.src, e); }, describe(s, list));
      }
    }
  }

private:
  SimdIsa saved_ = simd_isa();
};

TEST_P(RandomKernelsSimd, NormalDoubleMatchesScalar) {
  const double mean = 10.0, stddev = 1.5;
  check_all<double>([&](const RandomSource& src, auto idx,
                        double* out) { random_normal(src, mean, stddev, idx, out); },
                    [&](const RandomSource& src, std::uint64_t e) {
                      return rnd::normal_at(src.seed, src.stream, e, mean, stddev);
                    });
}

TEST_P(RandomKernelsSimd, NormalFloatMatchesScalar) {
  const double mean = -3.0, stddev = 0.25;
  check_all<float>([&](const RandomSource& src, auto idx,
                       float* out) { random_normal(src, mean, stddev, idx, out); },
                   [&](const RandomSource& src, std::uint64_t e) {
                     return static_cast<float>(
                         rnd::normal_at(src.seed, src.stream, e, mean, stddev));
                   });
}

// Ordinary ranges, ranges one or two values wide (where the clamp to the last value below high
// is taken often), and ranges whose width overflows a double.
TEST_P(RandomKernelsSimd, UniformMatchesScalar) {
  const double max = std::numeric_limits<double>::max();
  const std::pair<double, double> ranges[] = {{-2.0, 5.0},
                                              {1.0, std::nextafter(1.0, 2.0)},
                                              {-7.0, std::nextafter(std::nextafter(-7.0, 0), 0)},
                                              {-1e308, 1e308},
                                              {-max, max}};
  for (auto [low, high] : ranges) {
    SCOPED_TRACE("[" + std::to_string(low) + ", " + std::to_string(high) + ")");
    const rnd::UniformForm form = rnd::uniform_form<double>(low, high);
    check_all<double>([&](const RandomSource& src, auto idx,
                          double* out) { random_uniform(src, low, high, idx, out); },
                      [&](const RandomSource& src, std::uint64_t e) {
                        return rnd::uniform_at(src.seed, src.stream, e, form);
                      });
  }
  const float fmax = std::numeric_limits<float>::max();
  const std::pair<float, float> ranges32[] = {
      {-2.0f, 5.0f}, {1.0f, std::nextafter(1.0f, 2.0f)}, {-fmax, fmax}};
  for (auto [low, high] : ranges32) {
    SCOPED_TRACE("float [" + std::to_string(low) + ", " + std::to_string(high) + ")");
    const rnd::UniformForm form = rnd::uniform_form<float>(low, high);
    check_all<float>([&](const RandomSource& src, auto idx,
                         float* out) { random_uniform(src, low, high, idx, out); },
                     [&](const RandomSource& src, std::uint64_t e) {
                       return static_cast<float>(rnd::uniform_at(src.seed, src.stream, e, form));
                     });
  }
}

TEST_P(RandomKernelsSimd, IntegersMatchScalar) {
  constexpr auto i64_min = std::numeric_limits<std::int64_t>::min();
  constexpr auto i64_max = std::numeric_limits<std::int64_t>::max();
  const std::pair<std::int64_t, std::int64_t> ranges[] = {
      {0, 10}, {-5, 5}, {i64_min, i64_max}, {0, (std::int64_t{1} << 40) + 12345}, {7, 8}};
  for (auto [low, high] : ranges) {
    SCOPED_TRACE("[" + std::to_string(low) + ", " + std::to_string(high) + ")");
    check_all<std::int64_t>([&](const RandomSource& src, auto idx,
                                std::int64_t* out) { random_integers(src, low, high, idx, out); },
                            [&](const RandomSource& src, std::uint64_t e) {
                              return rnd::integers_at(src.seed, src.stream, e, low, high);
                            });
  }
  const std::pair<std::int32_t, std::int32_t> ranges32[] = {
      {-100, 100},
      {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()}};
  for (auto [low, high] : ranges32) {
    SCOPED_TRACE("int32 [" + std::to_string(low) + ", " + std::to_string(high) + ")");
    check_all<std::int32_t>([&](const RandomSource& src, auto idx,
                                std::int32_t* out) { random_integers(src, low, high, idx, out); },
                            [&](const RandomSource& src, std::uint64_t e) {
                              return static_cast<std::int32_t>(
                                  rnd::integers_at(src.seed, src.stream, e, low, high));
                            });
  }
}

// Words whose (lo ^ hi << 21) is the 53-bit value b.
std::pair<std::uint32_t, std::uint32_t> words_for(std::uint64_t b) {
  return {static_cast<std::uint32_t>(b & 0x1fffff), static_cast<std::uint32_t>(b >> 21)};
}

// Box-Muller on chosen words: the extremes of u (2^-54, 1) and v (2^-53, 1, 2), u around the
// switch of the log's reduction, v around every quadrant boundary of sincospi, powers of two, and
// random words.
TEST_P(RandomKernelsSimd, BoxMullerOnChosenWordsMatchesScalar) {
  std::vector<std::uint64_t> special;
  constexpr std::uint64_t top = (std::uint64_t{1} << 53) - 1;
  for (std::uint64_t b : {std::uint64_t{0}, std::uint64_t{1}, top, top - 1}) {
    special.push_back(b);
  }
  for (int k = 0; k < 53; ++k) {
    for (std::int64_t d : {-1, 0, 1}) {
      special.push_back(((std::uint64_t{1} << k) + static_cast<std::uint64_t>(d)) & top);
    }
  }
  for (std::uint64_t quarter = 0; quarter <= 8; ++quarter) { // v near multiples of 1/4
    for (std::int64_t d = -3; d <= 3; ++d) {
      special.push_back((quarter * (std::uint64_t{1} << 50) + static_cast<std::uint64_t>(d)) & top);
    }
  }
  // The log switches to m / 2 where m's high mantissa word passes 0x6a09e (m ~ sqrt(2)): u just
  // below and above that point, in several binades.
  const std::uint64_t log_switch = (std::uint64_t{1} << 52) + 0x6a09f00000000ull;
  for (int k = 0; k < 12; ++k) {
    for (std::int64_t d = -3; d <= 3; ++d) {
      special.push_back((log_switch >> k) + static_cast<std::uint64_t>(d));
    }
  }
  std::vector<rnd::Words4x32> words;
  for (std::uint64_t bu : special) {
    for (std::uint64_t bv : special) {
      const auto [u0, u1] = words_for(bu);
      const auto [v0, v1] = words_for(bv);
      words.push_back({u0, u1, v0, v1});
    }
  }
  std::mt19937 gen(11);
  const auto word = [&] { return static_cast<std::uint32_t>(gen()); };
  for (int i = 0; i < 100003; ++i) {
    words.push_back({word(), word(), word(), word()});
  }

  std::vector<double> even(words.size()), odd(words.size());
  standard_normal_blocks(words.data(), static_cast<index_t>(words.size()), even.data(), odd.data());
  int failures = 0;
  for (std::size_t i = 0; i < words.size() && failures < 5; ++i) {
    const auto want = rnd::standard_normal_pair(words[i]);
    if (bits_of(even[i]) != bits_of(want.even) || bits_of(odd[i]) != bits_of(want.odd)) {
      ++failures;
      ADD_FAILURE() << "words {" << words[i].w0 << ", " << words[i].w1 << ", " << words[i].w2
                    << ", " << words[i].w3 << "}: got (" << even[i] << ", " << odd[i] << "), want ("
                    << want.even << ", " << want.odd << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, RandomKernelsSimd,
                         ::testing::Values(SimdIsa::scalar, SimdIsa::avx2, SimdIsa::avx512),
                         [](const auto& info) { return std::string(simd_isa_name(info.param)); });

// A build that silently lost its per-file -m flags would skip the ISA cases above; this catches it.
TEST(RandomKernelsSimdBuild, VectorKernelsExistWhereTheCpuHasThem) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_TRUE(simd_isa_supported(SimdIsa::avx2));
  }
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) {
    EXPECT_TRUE(simd_isa_supported(SimdIsa::avx512));
  }
#endif
  EXPECT_TRUE(simd_isa_supported(SimdIsa::scalar));
  EXPECT_STREQ(simd_isa_name(SimdIsa::avx512), "avx512");
}

} // namespace
