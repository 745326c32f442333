// SPDX-License-Identifier: Apache-2.0
// Creation suite: zeros/ones/full/arange/from_host and automatic chunks against the reference.
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"

#include <cstdint>
#include <vector>

namespace chunked::test {
namespace {

using ElementTypes = ::testing::Types<bool, std::int32_t, std::int64_t, float, double>;

using Creation = BackendTest;

template <class T> class CreationTyped : public TypedBackendTest<T> {};
TYPED_TEST_SUITE(CreationTyped, ElementTypes);

const std::vector<Extents> creation_shapes = {{}, {0}, {1}, {7}, {4, 5}, {2, 0, 3}, {3, 4, 5}};

/// Blocks a regular chunking of `shape` by `chunks` must have.
index_t expected_blocks(const Extents& shape, const Chunks& chunks) {
  index_t n = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    const index_t c = chunks[static_cast<index_t>(k)];
    n *= shape[k] == 0 ? 1 : (shape[k] + c - 1) / c;
  }
  return n;
}

TYPED_TEST(CreationTyped, ZerosOnesFullMatchReferenceUnderEveryChunking) {
  using T = TypeParam;
  const T value = std::is_same_v<T, bool> ? T(true) : static_cast<T>(-3);
  for (const auto& shape : creation_shapes) {
    for (const auto& chunks : chunkings_for(shape)) {
      SCOPED_TRACE(extents_string(shape) + " " + label(chunks));
      const auto z = zeros<T, Backend>(Shape(shape), chunks);
      const auto o = ones<T, Backend>(Shape(shape), chunks);
      const auto f = full<T, Backend>(Shape(shape), chunks, value);
      EXPECT_EQ(z.shape(), Shape(shape));
      EXPECT_EQ(z.ndim(), static_cast<index_t>(shape.size()));
      EXPECT_EQ(z.size(), numel(shape));
      EXPECT_EQ(z.nbytes(), static_cast<std::size_t>(numel(shape)) * sizeof(T));
      EXPECT_EQ(z.numblocks(), expected_blocks(shape, chunks));
      EXPECT_EQ(z.chunks().shape(), Shape(shape));
      EXPECT_TRUE(matches(z.compute(), Dense<T>(shape, T(0))));
      EXPECT_TRUE(matches(o.compute(), Dense<T>(shape, T(1))));
      EXPECT_TRUE(matches(f.compute(), Dense<T>(shape, value)));
    }
  }
}

TYPED_TEST(CreationTyped, FromHostRoundTripsSpanAndNDArray) {
  using T = TypeParam;
  std::mt19937_64 rng(11);
  for (const auto& shape : creation_shapes) {
    const Dense<T> ref = random_dense<T>(shape, rng);
    const NDArray<T> host = to_ndarray(ref);
    for (const auto& chunks : chunkings_for(shape)) {
      SCOPED_TRACE(extents_string(shape) + " " + label(chunks));
      const auto a = from_host<Backend>(host, chunks);
      const auto b =
          from_host<Backend>(std::span<const T>(host.data(), static_cast<std::size_t>(host.size())),
                             Shape(shape), chunks);
      EXPECT_EQ(a.numblocks(), expected_blocks(shape, chunks));
      EXPECT_TRUE(matches(a.compute(), ref));
      EXPECT_TRUE(matches(b.compute(), ref));
      // to_host into caller memory, C order.
      NDArray<T> out{Shape(shape)};
      b.to_host(out.span());
      EXPECT_TRUE(matches(out, ref));
    }
  }
}

TEST_F(Creation, FromHostCopiesTheDataWhenCalled) {
  std::vector<double> data{1, 2, 3, 4, 5, 6};
  const auto a = from_host<Backend>(std::span<const double>(data), Shape{2, 3}, Chunks{1, 2});
  std::fill(data.begin(), data.end(), -1.0);
  EXPECT_TRUE(matches(a.compute(), Dense<double>({2, 3}, {1, 2, 3, 4, 5, 6})));
  // A mutable span is accepted too.
  std::vector<std::int32_t> ints{7, 8, 9};
  const auto b = from_host<Backend>(std::span<std::int32_t>(ints), Shape{3}, Chunks{2});
  static_assert(std::is_same_v<decltype(b), const ChunkedArray<std::int32_t, Backend>>);
  EXPECT_TRUE(matches(b.compute(), Dense<std::int32_t>({3}, {7, 8, 9})));
}

TEST_F(Creation, FromHostOfALargeArrayCopiesEveryBlockInPlace) {
  // 48 MiB: copied into its blocks on several threads, and on a GPU machine into page-locked
  // blocks of both kinds (registered host memory from 4 MiB on, cudaMallocHost below); ragged
  // edges on every axis.
  const Shape shape{3, 1000, 2003};
  std::vector<double> data(static_cast<std::size_t>(shape.size()));
  for (std::size_t k = 0; k < data.size(); ++k)
    data[k] = static_cast<double>(k) * 0.5 - 7.0;
  const auto a = from_host<Backend>(std::span<const double>(data), shape, Chunks{2, 500, 700});
  EXPECT_EQ(a.numblocks(), 12);
  std::vector<double> out(data.size(), -1.0);
  a.to_host(std::span<double>(out));
  for (std::size_t k = 0; k < data.size(); ++k)
    ASSERT_EQ(out[k], data[k]) << "element " << k;
  EXPECT_EQ(a(2, 999, 2002).item(), data.back());
}

template <class T>
void check_arange(T start, T stop, T step, index_t chunk, const std::vector<T>& want,
                  Tolerance tol = {}) {
  SCOPED_TRACE(fmt::format("arange({}, {}, {}, chunk {})", start, stop, step, chunk));
  const auto a = arange<T, Backend>(start, stop, step, chunk);
  EXPECT_EQ(a.ndim(), 1);
  EXPECT_EQ(a.size(), static_cast<index_t>(want.size()));
  EXPECT_TRUE(matches(a.compute(), Dense<T>({static_cast<index_t>(want.size())}, want), tol));
}

TEST_F(Creation, ArangeIntegers) {
  for (index_t chunk : {1, 2, 3, 100}) {
    check_arange<std::int64_t>(0, 10, 1, chunk, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    check_arange<std::int64_t>(-3, 8, 4, chunk, {-3, 1, 5});
    check_arange<std::int64_t>(10, 0, -3, chunk, {10, 7, 4, 1});
    check_arange<std::int64_t>(-1, -6, -2, chunk, {-1, -3, -5});
    check_arange<std::int64_t>(5, 5, 1, chunk, {});
    check_arange<std::int64_t>(5, 0, 1, chunk, {});
    check_arange<std::int64_t>(0, 5, -1, chunk, {});
    check_arange<std::int32_t>(2, 9, 3, chunk, {2, 5, 8});
    check_arange<std::int32_t>(3, -4, -2, chunk, {3, 1, -1, -3});
  }
}

TEST_F(Creation, ArangeIntegersWhoseSpanPassesInt64) {
  // stop - start leaves int64, the elements do not: NumPy's np.arange(-9 * 10**18, 9 * 10**18,
  // 4 * 10**18) has 5 elements.
  constexpr std::int64_t e18 = 1'000'000'000'000'000'000, max = INT64_MAX, min = INT64_MIN;
  constexpr std::int64_t q = std::int64_t{1} << 62;
  for (index_t chunk : {1, 2, 3, 100}) {
    check_arange<std::int64_t>(-9 * e18, 9 * e18, 4 * e18, chunk,
                               {-9 * e18, -5 * e18, -e18, 3 * e18, 7 * e18});
    check_arange<std::int64_t>(max, min, -q, chunk, {max, q - 1, -1, -q - 1});
    check_arange<std::int64_t>(min, max, max, chunk, {min, -1, max - 1});
    check_arange<std::int64_t>(min, max, min, chunk, {});
    check_arange<std::int64_t>(max, min, min, chunk, {max, -1});
    check_arange<std::int32_t>(INT32_MIN, INT32_MAX, 1 << 30, chunk,
                               {INT32_MIN, -(1 << 30), 0, 1 << 30});
  }
  // The last values of a range of 2^59 elements.
  const auto a = arange<std::int64_t, Backend>(min, max, 1 << 5, index_t{1} << 40);
  EXPECT_EQ(a.size(), index_t{1} << 59);
  EXPECT_EQ(a(-1).item(), max - 31);
}

TEST_F(Creation, ArangeFloatingIsNumPysFill) {
  // Element i is start + i * ((start + step) - start), each operation rounded: np.arange(1, 2, 0.1)
  // is [1.0, 1.1, 1.2000000000000002, 1.3000000000000003, ...], where start + i * step would give
  // 1.2 and 1.3 (and a fused multiply-add 1.3 as well).
  const double delta = (1.0 + 0.1) - 1.0;
  std::vector<double> tenths_from_one;
  for (int i = 0; i < 10; ++i)
    tenths_from_one.push_back(1.0 + i * delta);
  for (index_t chunk : {1, 2, 4, 100}) {
    check_arange<double>(1.0, 2.0, 0.1, chunk, tenths_from_one);
    check_arange<double>(0.0, 1.0, 0.1, chunk,
                         {0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001,
                          0.7000000000000001, 0.8, 0.9});
    check_arange<double>(0.5, 2.0, 0.25, chunk, {0.5, 0.75, 1.0, 1.25, 1.5, 1.75});
    // ceil((0 - 1) / -0.3) = 4 elements; delta is 0.7 - 1.0 = -0.30000000000000004.
    check_arange<double>(1.0, 0.0, -0.3, chunk,
                         {1.0, 0.7, 0.3999999999999999, 0.09999999999999987});
    check_arange<double>(0.0, 0.0, 0.5, chunk, {});
    check_arange<double>(0.0, -1.0, 0.5, chunk, {});
    // One element: start itself, whatever start + step is.
    check_arange<double>(1e308, 1.5e308, 1.7e308, chunk, {1e308}); // start + step is inf
    // float32: the increment and the elements are rounded to float, as NumPy's float fill.
    std::vector<float> tenths;
    const float fdelta = static_cast<float>(1.0 + static_cast<double>(0.1f)) - 1.0f;
    for (int i = 0; i < 10; ++i)
      tenths.push_back(1.0f + static_cast<float>(i) * fdelta);
    check_arange<float>(1.0f, 2.0f, 0.1f, chunk, tenths);
  }
  EXPECT_EQ((arange<double, Backend>(1.0, 2.0, 0.1, 3).compute()(3)), 1.3000000000000003);
}

TEST_F(Creation, ChunksAutomaticCoversTheShapeWithinTheTarget) {
  std::mt19937_64 rng(5);
  const Dense<double> ref = random_dense<double>({10, 30}, rng);
  const auto a =
      from_host<Backend>(to_ndarray(ref), Chunks::automatic(800)); // 100 doubles per chunk
  EXPECT_GT(a.numblocks(), 1);
  index_t biggest = 0;
  for (index_t b = 0; b < a.numblocks(); ++b)
    biggest = std::max(biggest, a.chunks().block_shape(a.chunks().block_index(b)).size());
  EXPECT_LE(biggest * 8, 800);
  EXPECT_GE(biggest * 8, 800 / 8) << "automatic chunks far below the target: "
                                  << a.chunks().to_string();
  EXPECT_TRUE(matches(a.compute(), ref));

  // The default target (128 MiB) keeps a small array in one chunk.
  const auto z = zeros<float, Backend>(Shape{100, 200}, Chunks::automatic());
  EXPECT_EQ(z.numblocks(), 1);
  EXPECT_TRUE(Chunks::automatic().is_automatic());
  EXPECT_EQ(Chunks::automatic().target_bytes(), std::size_t{128} << 20);
}

TEST_F(Creation, ChunkLengthsLongerThanTheExtentAreClamped) {
  const auto a = ones<std::int64_t, Backend>(Shape{3, 4}, Chunks{100, 3});
  EXPECT_EQ(a.numblocks(), 2);
  EXPECT_EQ(a.chunks().lengths(0), (std::vector<index_t>{3}));
  EXPECT_EQ(a.chunks().lengths(1), (std::vector<index_t>{3, 1}));
  EXPECT_EQ(a.sum().item(), 12);
}

} // namespace
} // namespace chunked::test
