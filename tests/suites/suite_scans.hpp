// SPDX-License-Identifier: Apache-2.0
// Scans suite: cumsum and cumprod along every axis (negative ones too) against a sequential dense
// reference under many chunkings, their result dtypes and grids, NaN, empty arrays, composition
// with slices, elementwise operations and reductions, determinism over thread counts, bad axes.
#pragma once

#include "support/backend.hpp"
#include "support/errors.hpp"
#include "support/reference.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunked::test {
namespace {

using Scans = BackendTest;

template <class T> class ScansTyped : public TypedBackendTest<T> {};
using ScanTypes = ::testing::Types<bool, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(ScansTyped, ScanTypes);

template <class X> using scan_value_t = typename std::remove_cvref_t<X>::value_type;

/// The sequential scan NumPy defines: element i along `axis` is x[0] (+) ... (+) x[i], folded in
/// index order, in int64 (wrapping) for bool and integers and in double for floats.
template <class T> Dense<detail::sum_t<T>> ref_scan(const Dense<T>& a, index_t axis, bool prod) {
  using R = detail::sum_t<T>;
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
  const Extents& shape = a.shape();
  const auto k = static_cast<std::size_t>(axis < 0 ? axis + a.ndim() : axis);
  index_t stride = 1;
  for (std::size_t d = k + 1; d < shape.size(); ++d)
    stride *= shape[d];
  std::vector<Acc> acc(static_cast<std::size_t>(a.size()));
  Dense<R> out(shape);
  for (index_t i = 0; i < a.size(); ++i) {
    const Acc v = static_cast<Acc>(a[i]);
    Acc& r = acc[static_cast<std::size_t>(i)];
    if (unravel(i, shape)[k] == 0)
      r = v;
    else if constexpr (std::is_floating_point_v<Acc>)
      r = prod ? acc[static_cast<std::size_t>(i - stride)] * v
               : acc[static_cast<std::size_t>(i - stride)] + v;
    else
      r = prod ? wrapping_mul(acc[static_cast<std::size_t>(i - stride)], v)
               : wrapping_add(acc[static_cast<std::size_t>(i - stride)], v);
    out[i] = static_cast<R>(r);
  }
  return out;
}

/// Values whose sums and products are exact in float as in double over the short axes here
/// (multiples of 1/64 for sums, +-{1/2, 1, 2} for products), so that every chunking must give the
/// reference's values exactly.
template <class T> Dense<T> scan_data(const Extents& shape, std::mt19937_64& rng, bool prod) {
  if constexpr (std::is_floating_point_v<T>) {
    if (prod)
      return generate<T>(shape, [&](index_t) {
        constexpr double pick[] = {0.5, 1.0, 2.0, -0.5, -1.0, -2.0};
        return pick[rng() % 6];
      });
  }
  return random_dense<T>(shape, rng, true);
}

/// The chunkings of chunkings_for, and chunks longer than every axis.
std::vector<Chunks> scan_chunkings(const Extents& shape) {
  auto out = chunkings_for(shape);
  Extents longer(shape.size());
  for (std::size_t k = 0; k < shape.size(); ++k)
    longer[k] = shape[k] + 3;
  out.push_back(Chunks(longer));
  return out;
}

TYPED_TEST(ScansTyped, EveryAxisAndChunkingMatchesTheReference) {
  using T = TypeParam;
  using S = detail::sum_t<T>;
  std::mt19937_64 rng(91);
  for (const Extents& shape : {Extents{9}, Extents{5, 6}, Extents{3, 4, 5}}) {
    const auto nd = static_cast<index_t>(shape.size());
    for (const bool prod : {false, true}) {
      const auto ref = scan_data<T>(shape, rng, prod);
      for (const auto& chunks : scan_chunkings(shape)) {
        const auto x = make_array<Backend>(ref, chunks);
        for (index_t axis = -nd; axis < nd; ++axis) {
          SCOPED_TRACE(label(chunks) + (prod ? " cumprod" : " cumsum") + " axis " +
                       std::to_string(axis));
          const auto c = prod ? cumprod(x, axis) : cumsum(x, axis);
          static_assert(std::is_same_v<scan_value_t<decltype(c)>, S>);
          EXPECT_EQ(c.shape(), x.shape());
          EXPECT_EQ(c.chunks(), x.chunks());
          EXPECT_TRUE(matches(c.compute(), ref_scan(ref, axis, prod), tight<S>()));
        }
      }
    }
  }
}

TYPED_TEST(ScansTyped, MembersAreTheFreeFunctions) {
  using T = TypeParam;
  std::mt19937_64 rng(92);
  const auto ref = scan_data<T>({6, 7}, rng, false);
  const auto x = make_array<Backend>(ref, Chunks{4, 3});
  EXPECT_TRUE(bitwise_equal(x.cumsum(1).compute(), cumsum(x, 1).compute()));
  EXPECT_TRUE(bitwise_equal(x.cumprod(-2).compute(), cumprod(x, 0).compute()));
}

TEST_F(Scans, RandomChunkingsOfALongerAxis) {
  std::mt19937_64 rng(93);
  const Extents shape{4, 37};
  const auto ref = scan_data<double>(shape, rng, false);
  const auto ints = random_dense<std::int32_t>(shape, rng);
  for (int trial = 0; trial < 6; ++trial) {
    const Chunks chunks = random_chunks(shape, rng);
    SCOPED_TRACE(label(chunks));
    for (index_t axis : {0, 1}) {
      EXPECT_TRUE(matches(cumsum(make_array<Backend>(ref, chunks), axis).compute(),
                          ref_scan(ref, axis, false)));
      EXPECT_TRUE(matches(cumsum(make_array<Backend>(ints, chunks), axis).compute(),
                          ref_scan(ints, axis, false)));
    }
  }
}

TEST_F(Scans, RowsLongerThanOneGpuSegment) {
  // Past 65536 elements a row is scanned on CUDA in segments whose totals are scanned between
  // two passes (cuda/scan.hpp); sums of multiples of 1/64 are exact there as here.
  std::mt19937_64 rng(97);
  const Extents shape{2, 70001};
  const auto ref = random_dense<double>(shape, rng, true);
  const auto ints = random_dense<std::int32_t>(shape, rng);
  for (const Chunks& chunks : {Chunks{2, 70001}, Chunks{1, 69999}}) {
    SCOPED_TRACE(label(chunks));
    EXPECT_TRUE(
        matches(cumsum(make_array<Backend>(ref, chunks), 1).compute(), ref_scan(ref, 1, false)));
    EXPECT_TRUE(
        matches(cumsum(make_array<Backend>(ints, chunks), -1).compute(), ref_scan(ints, 1, false)));
  }
  const auto column = random_dense<double>({70001, 2}, rng, true);
  EXPECT_TRUE(matches(cumsum(make_array<Backend>(column, Chunks{70001, 1}), 0).compute(),
                      ref_scan(column, 0, false)));
}

TEST_F(Scans, IntegersWrapAsNumPysInt64) {
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max() / 2 + 7;
  const Dense<std::int64_t> ref({5}, std::vector<std::int64_t>{big, big, big, -3, big});
  const auto x = make_array<Backend>(ref, Chunks{2});
  EXPECT_TRUE(matches(cumsum(x, 0).compute(), ref_scan(ref, 0, false)));
  EXPECT_TRUE(matches(cumprod(x, 0).compute(), ref_scan(ref, 0, true)));
}

TEST_F(Scans, NaNAndInfinityPropagateForward) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Dense<double> ref({3, 5}, std::vector<double>{1, 2, nan, 4, 5,    //
                                                      1, inf, 3, -inf, 1, //
                                                      0, 2, 3, inf, 2});
  for (const auto& chunks : scan_chunkings(ref.shape())) {
    SCOPED_TRACE(label(chunks));
    const auto x = make_array<Backend>(ref, chunks);
    for (index_t axis : {0, 1}) {
      EXPECT_TRUE(matches(cumsum(x, axis).compute(), ref_scan(ref, axis, false)));
      EXPECT_TRUE(matches(cumprod(x, axis).compute(), ref_scan(ref, axis, true)));
    }
    const auto f = x.astype<float>();
    EXPECT_TRUE(matches(cumsum(f, 1).compute(), ref_scan(test::cast<float>(ref), 1, false)));
  }
}

TEST_F(Scans, NegativeZeroStaysNegativeInTheFirstBlock) {
  const Dense<double> ref({4}, std::vector<double>{-0.0, -0.0, 1.0, -0.0});
  const auto got = cumsum(make_array<Backend>(ref, Chunks{1}), 0).compute();
  EXPECT_TRUE(std::signbit(got(0)));
  EXPECT_TRUE(std::signbit(got(1)));
  EXPECT_EQ(got(3), 1.0);
}

TEST_F(Scans, EmptyArraysAndAxesOfExtentZero) {
  for (const Extents& shape : {Extents{0}, Extents{3, 0}, Extents{0, 4}, Extents{2, 0, 3}}) {
    const Dense<float> ref(shape);
    const auto x = make_array<Backend>(ref, Chunks(Extents(shape.size(), 2)));
    for (index_t axis = 0; axis < static_cast<index_t>(shape.size()); ++axis) {
      SCOPED_TRACE(extents_string(shape) + " axis " + std::to_string(axis));
      const auto c = cumsum(x, axis);
      EXPECT_EQ(c.shape().extents(), shape);
      EXPECT_EQ(c.compute().size(), 0);
      EXPECT_EQ(cumprod(x.astype<bool>(), axis).compute().size(), 0);
      EXPECT_EQ(cumsum(x, axis).sum().item(), 0.0f);
    }
  }
}

TEST_F(Scans, ComposesWithSlicesElementwiseOperationsAndReductions) {
  std::mt19937_64 rng(94);
  const Extents shape{9, 8};
  const auto ref = scan_data<double>(shape, rng, false);
  for (const auto& chunks : scan_chunkings(shape)) {
    SCOPED_TRACE(label(chunks));
    const auto x = make_array<Backend>(ref, chunks);
    // A slice with a negative step, then a scan of it.
    const std::vector<Index> idx{slice(1, none, 2), slice(none, none, -1)};
    const auto sliced = index(ref, idx);
    EXPECT_TRUE(matches(cumsum(x(slice(1, none, 2), slice(none, none, -1)), 1).compute(),
                        ref_scan(sliced, 1, false)));
    // A scan of an elementwise expression, and an expression of a scan.
    const auto affine = map(ref, [](double v) { return v * 2.0 + 1.0; });
    EXPECT_TRUE(matches(cumsum(x * 2.0 + 1.0, 0).compute(), ref_scan(affine, 0, false)));
    const auto scanned = ref_scan(ref, 1, false);
    EXPECT_TRUE(
        matches((cumsum(x, 1) - 1.0).compute(), map(scanned, [](double v) { return v - 1.0; })));
    // A reduction of a scan, a scan of a scan, and a slice of a scan.
    EXPECT_TRUE(matches(cumsum(x, 0).sum(Axes{1}).compute(), ref_sum(ref_scan(ref, 0, false), {1}),
                        tight<double>()));
    EXPECT_TRUE(
        matches(cumsum(cumsum(x, 0), 1).compute(), ref_scan(ref_scan(ref, 0, false), 1, false)));
    EXPECT_TRUE(matches(cumsum(x, 1)(2).compute(), index(scanned, {index_t{2}})));
    // A persisted scan reads as its values (its blocks are the scan's own buffers, which the next
    // block along the axis reads for its carry while the computation runs).
    EXPECT_TRUE(matches(cumsum(x, 1).persist().compute(), scanned));
    const auto down = cumsum(x, 0).persist();
    EXPECT_TRUE(matches(down.compute(), ref_scan(ref, 0, false)));
    EXPECT_TRUE(matches((down + 1.0).compute(),
                        map(ref_scan(ref, 0, false), [](double v) { return v + 1.0; })));
  }
}

TEST_F(Scans, ScanOfAGeneratedArrayMatchesTheScanOfItsValues) {
  Generator g(95);
  const auto x = g.uniform<double, Backend>(Shape{40, 30}, Chunks{7, 11}, -1.0, 1.0);
  const auto values = from_ndarray(x.compute());
  EXPECT_TRUE(matches(cumsum(x, 0).compute(), ref_scan(values, 0, false), tight<double>()));
  EXPECT_TRUE(matches(cumsum(x, 1).compute(), ref_scan(values, 1, false), tight<double>()));
}

template <class Tuple, std::size_t... I>
void expect_scans_bitwise_equal(const Tuple& got, const Tuple& want, std::index_sequence<I...>) {
  const ::testing::AssertionResult results[] = {
      bitwise_equal(std::get<I>(got), std::get<I>(want))...};
  for (std::size_t k = 0; k < sizeof...(I); ++k)
    EXPECT_TRUE(results[k]) << "result " << k;
}

/// The same bits on 1, 2 and 8 threads, twice each, as single-threaded.
template <class... A> void expect_scans_same_bits_everywhere(const A&... arrays) {
  const auto first = compute(options_with(Scheduler::single_threaded), arrays...);
  for (int threads : {1, 2, 8})
    for (int run = 0; run < 2; ++run) {
      SCOPED_TRACE("num_threads " + std::to_string(threads) + " run " + std::to_string(run));
      expect_scans_bitwise_equal(compute(options_with(Scheduler::threads, threads), arrays...),
                                 first, std::index_sequence_for<A...>{});
    }
}

TEST_F(Scans, BitwiseTheSameOnEveryThreadCount) {
  Generator g(96);
  const auto x = g.normal<double, Backend>(Shape{120, 90}, Chunks{13, 17}, 1.0, 3.0);
  const auto f = g.uniform<float, Backend>(Shape{70, 130}, Chunks{9, 31}, -1.0f, 1.0f);
  expect_scans_same_bits_everywhere(cumsum(x, 0), cumsum(x, -1), cumprod(x * 0.01 + 1.0, 0),
                                    cumsum(f, 0), cumsum(f, 1), cumsum(x, 1).sum(Axes{0}));
}

TEST_F(Scans, AnAxisOutOfRangeIsAnIndexError) {
  const auto x = zeros<double, Backend>(Shape{3, 4}, Chunks{2, 2});
  for (index_t axis : {2, -3, 100}) {
    expect_error<IndexError>([&] { (void)cumsum(x, axis); }, {"cumsum", std::to_string(axis)});
    expect_error<IndexError>([&] { (void)x.cumprod(axis); }, {"cumprod", std::to_string(axis)});
  }
  const auto scalar = x.sum();
  expect_error<IndexError>([&] { (void)cumsum(scalar, 0); }, {"cumsum", "rank 0"});
}

} // namespace
} // namespace chunked::test
