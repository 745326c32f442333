// SPDX-License-Identifier: Apache-2.0
// Views suite: from_host_view (borrowed host memory, read in place or block by block) against the
// host data under many chunkings, through slices, transposes, reductions, reshapes, scans and
// persist; View, NDArray::view() and std::mdspan; bad input; and the argument checks of
// from_device and to_device that hold on every backend and build.
#pragma once

#include "support/backend.hpp"
#include "support/errors.hpp"
#include "support/reference.hpp"
#include "support/reference_shape.hpp"

#include <chunked/config.hpp>

#include <cstdint>
#include <numeric>
#include <vector>

namespace chunked::test {
namespace {

using ViewElementTypes = ::testing::Types<bool, std::int32_t, std::int64_t, float, double>;

using Views = BackendTest;

template <class T> class ViewsTyped : public TypedBackendTest<T> {};
TYPED_TEST_SUITE(ViewsTyped, ViewElementTypes);

const std::vector<Extents> view_shapes = {{}, {0}, {1}, {7}, {4, 5}, {2, 0, 3}, {3, 4, 5}};

TYPED_TEST(ViewsTyped, FromHostViewReadsTheHostDataUnderEveryChunking) {
  using T = TypeParam;
  std::mt19937_64 rng(23);
  for (const auto& shape : view_shapes) {
    const Dense<T> ref = random_dense<T>(shape, rng, true);
    const NDArray<T> host = to_ndarray(ref); // not std::vector<bool>, which has no data()
    for (const auto& chunks : chunkings_for(shape)) {
      SCOPED_TRACE(extents_string(shape) + " " + label(chunks));
      const auto x = from_host_view<Backend>(host.span(), Shape(shape), chunks);
      EXPECT_EQ(x.shape(), Shape(shape));
      EXPECT_TRUE(matches(x.compute(), ref));
      if constexpr (!std::is_same_v<T, bool>) {
        EXPECT_TRUE(
            matches((x + x).compute(), zip(ref, ref, [](T a, T b) { return np_add(a, b); })));
        EXPECT_TRUE(matches(x.sum().compute(), ref_sum(ref)));
      }
    }
  }
}

TEST_F(Views, SlicesTransposesAndReductionsOfAViewMatchTheReference) {
  std::mt19937_64 rng(5);
  const Extents shape{6, 7};
  const Dense<double> ref = random_dense<double>(shape, rng, true);
  const std::vector<double> host = ref.values();
  for (const Chunks& chunks : {Chunks{6, 7}, Chunks{1, 1}, Chunks{4, 3}, Chunks{5, 6}}) {
    SCOPED_TRACE(label(chunks));
    const auto x = from_host_view<Backend>(std::span<const double>(host), Shape(shape), chunks);
    // Slices push into the borrowed leaf, spanning blocks and reversed.
    const auto s = x(slice(1, none, 2), slice(none, none, -1));
    EXPECT_TRUE(matches(s.compute(), index(ref, {Slice(1, none, 2), Slice(none, none, -1)})));
    EXPECT_TRUE(matches(x(3).compute(), index(ref, {index_t{3}})));
    const Dense<double> t = ref_transpose(ref, {1, 0});
    EXPECT_TRUE(matches(x.transpose().compute(), t));
    EXPECT_TRUE(matches((x.transpose() * 2.0).sum(Axes{1}).compute(),
                        ref_sum(map(t, [](double v) { return v * 2.0; }), {1})));
    EXPECT_TRUE(matches(x.max(Axes{0}).compute(), ref_max(ref, {0})));
    EXPECT_TRUE(matches(x.mean().compute(), ref_mean(ref)));
    // Readers of whole C-order blocks (reshape, scans) read copies of the view's blocks.
    EXPECT_TRUE(matches(x.reshape({7, 6}).compute(), with_shape(ref, {7, 6})));
    const NDArray<double> c = x.cumsum(1).compute();
    for (index_t i = 0; i < 6; ++i) {
      double run = 0;
      for (index_t j = 0; j < 7; ++j) {
        run += ref.at({i, j});
        EXPECT_EQ(c(i, j), run);
      }
    }
  }
}

TEST_F(Views, ConcatenationsAndUserFunctionsReadCopiesOfItsBlocks) {
  std::vector<double> host(30);
  std::iota(host.begin(), host.end(), 0.0);
  const auto x = from_host_view<Backend>(std::span<const double>(host), Shape{5, 6}, Chunks{2, 4});
  const NDArray<double> c = concatenate({x, x * 10.0}, 0).compute();
  EXPECT_EQ(c(4, 5), 29.0);
  EXPECT_EQ(c(9, 5), 290.0);
  if (!runs_on_gpu()) { // a host function: on a GPU the blocks are device memory
    const auto twice = map_blocks<double>(
        [](const BlockInfo&, BlockView<double> out, BlockView<const double> in) {
          for (index_t i = 0; i < out.size(); ++i)
            out.data[i] = 2 * in.data[i];
        },
        x);
    const NDArray<double> t = twice.compute();
    for (index_t i = 0; i < 30; ++i)
      EXPECT_EQ(t.data()[i], 2.0 * static_cast<double>(i));
  }
}

TEST_F(Views, TheViewIsReadWhenComputedAndPersistMakesAnOwnedCopy) {
  std::vector<double> host(24);
  std::iota(host.begin(), host.end(), 1.0);
  const auto x = from_host_view<Backend>(std::span<const double>(host), Shape{4, 6}, Chunks{3, 4});
  const auto kept = (x * 1.0).persist(); // values of now, owned
  const auto copy = x.persist();
  EXPECT_EQ(x.sum().item(), 300.0);
  // The lifetime rule: the array reads the memory at each computation, so it sees new values;
  // the persisted arrays do not.
  for (double& v : host)
    v = -v;
  EXPECT_EQ(x.sum().item(), -300.0);
  EXPECT_EQ(kept.sum().item(), 300.0);
  EXPECT_EQ(copy.sum().item(), 300.0);
  EXPECT_EQ(copy.compute()(3, 5), 24.0);
  host.assign(host.size(), 0.0);
  EXPECT_EQ(copy(slice(1, 3), slice(2, 5)).sum().item(), 9.0 + 10 + 11 + 15 + 16 + 17);
}

TEST_F(Views, FromHostViewTakesContiguousViewsRangesAndNDArrays) {
  NDArray<std::int64_t> nd(Shape{3, 5});
  for (index_t i = 0; i < nd.size(); ++i)
    nd.data()[i] = i * i;
  const Dense<std::int64_t> ref = from_ndarray(nd);
  EXPECT_TRUE(matches(from_host_view<Backend>(nd.view(), Chunks{2, 2}).compute(), ref));
  const NDArray<std::int64_t>& cnd = nd;
  EXPECT_TRUE(matches(from_host_view<Backend>(cnd.view(), Chunks{3, 1}).compute(), ref));
  EXPECT_TRUE(matches(from_host_view<Backend>(nd, Shape{3, 5}, Chunks{1, 5}).compute(), ref));
  std::vector<std::int64_t> v(nd.begin(), nd.end());
  EXPECT_TRUE(matches(from_host_view<Backend>(v, Shape{3, 5}, Chunks{2, 4}).compute(), ref));
  // Strides of extent-1 axes do not matter.
  View<const std::int64_t> odd{nd.data(), Shape{1, 15}, {99, 1}};
  EXPECT_TRUE(odd.is_c_contiguous());
  EXPECT_TRUE(
      matches(from_host_view<Backend>(odd, Chunks{1, 4}).compute(), with_shape(ref, {1, 15})));
}

TEST_F(Views, ViewDescribesNDArrayMemory) {
  NDArray<float> nd(Shape{2, 3, 4});
  const View<float> v = nd.view();
  EXPECT_EQ(v.data, nd.data());
  EXPECT_EQ(v.shape, nd.shape());
  EXPECT_EQ(v.strides, (std::vector<index_t>{12, 4, 1}));
  EXPECT_TRUE(v.is_c_contiguous());
  const View<const float> cv = v;
  EXPECT_EQ(cv.data, nd.data());
  EXPECT_FALSE((View<float>{nd.data(), Shape{3, 2}, {1, 3}}.is_c_contiguous()));
  EXPECT_FALSE((View<float>{nd.data(), Shape{3, 2}, {2}}.is_c_contiguous()));
  EXPECT_TRUE((View<float>{nd.data(), Shape{0, 2}, {7, 7}}.is_c_contiguous()));
#if defined(__cpp_lib_mdspan)
  nd(1, 2, 3) = 5.0f;
  const auto m = nd.mdspan<3>();
  EXPECT_EQ(m.extent(0), 2);
  EXPECT_EQ(m.stride(1), 4);
  EXPECT_EQ((m[1, 2, 3]), 5.0f);
  const View<float> back = view_of(m);
  EXPECT_EQ(back.strides, v.strides);
  EXPECT_EQ(back.shape, v.shape);
#endif
}

TEST_F(Views, FromHostViewRejectsBadInput) {
  std::vector<double> host(12, 1.0);
  expect_error<ShapeError>(
      [&] {
        (void)from_host_view<Backend>(std::span<const double>(host), Shape{5, 3}, Chunks{2});
      },
      {"12", "(5, 3)"});
  expect_error<ValueError>(
      [&] {
        (void)from_host_view<Backend>(
            std::span<const double>(static_cast<const double*>(nullptr), std::size_t{4}), Shape{4},
            Chunks{2});
      },
      {"null"});
  const auto* misaligned = reinterpret_cast<const double*>(
      reinterpret_cast<const char*>(host.data()) + 1); // never read: the check comes first
  expect_error<ValueError>(
      [&] {
        (void)from_host_view<Backend>(std::span<const double>(misaligned, std::size_t{4}), Shape{4},
                                      Chunks{2});
      },
      {"aligned"});
  expect_error<ValueError>(
      [&] {
        (void)from_host_view<Backend>(View<const double>{host.data(), Shape{3, 4}, {1, 3}},
                                      Chunks{2, 2});
      },
      {"contiguous"});
  // An empty view may be null.
  const auto e = from_host_view<Backend>(std::span<const double>(), Shape{0, 3}, Chunks{1, 1});
  EXPECT_EQ(e.compute().size(), 0);
}

TEST_F(Views, DeviceInteropChecksItsArguments) {
  // Without CUDA, from_device and to_device are BackendErrors; with it, a device that does not
  // exist is one too, and to_device of a Cpu array is a ValueError.
  std::vector<double> out(4);
  const auto x = full<double, Backend>(Shape{4}, Chunks{2}, 1.0);
  if constexpr (std::is_same_v<Backend, Cpu>) {
    if (CHUNKED_HAS_CUDA)
      expect_error<ValueError>([&] { x.to_device(out.data(), 0); }, {"Cpu"});
    else
      expect_error<BackendError>([&] { x.to_device(out.data(), 0); }, {"CUDA"});
  } else {
    expect_error<BackendError>([&] { x.to_device(out.data(), 4096); }, {"CUDA"});
    expect_error<BackendError>(
        [&] { (void)from_device<Backend>(out.data(), Shape{4}, Chunks{2}, 4096); }, {"CUDA"});
    if (cuda_available()) {
      // Host memory is not device memory.
      expect_error<ValueError>([&] { x.to_device(out.data(), 0); }, {"device 0"});
      expect_error<ValueError>(
          [&] { (void)from_device<Backend>(out.data(), Shape{4}, Chunks{2}, 0); }, {"device 0"});
      expect_error<ValueError>(
          [&] { (void)from_device<Backend>(static_cast<double*>(nullptr), Shape{4}, Chunks{2}); },
          {"null"});
    }
  }
}

} // namespace
} // namespace chunked::test
