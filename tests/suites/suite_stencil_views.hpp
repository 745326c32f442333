// SPDX-License-Identifier: Apache-2.0
// Stencils on strided views: map_overlap and map_blocks with functions that take View<T>, against
// the padded references of support/reference_overlap.hpp; persisted stencils (one buffer with a
// frame of halos) read in place by the next step of the same depth and boundary, and read as any
// other array by everything else. Host callables: the tests that compute skip where the backend
// computes on a GPU (tests/cuda/test_user_kernels.cu runs device kernels the same way).
#pragma once

#include "support/backend.hpp"
#include "support/errors.hpp"
#include "support/reference.hpp"
#include "support/reference_overlap.hpp"
#include "support/reference_shape.hpp"

#include <atomic>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunked::test {
namespace {

using StencilViews = BackendTest;
using A = ChunkedArray<double, Backend>;

/// What the calls of a strided function saw.
struct Calls {
  std::atomic<int> calls{0};
  std::atomic<int> strided{0}; ///< calls whose `in` was not dense: read where it lies
};

/// True when v's strides are not the C-order strides of its shape on some axis of extent > 1.
template <class T> bool is_strided(const View<T>& v) { return !v.is_c_contiguous(); }

/// The window sums of half-width `depth` (support/reference_overlap.hpp's order of additions),
/// reading `in` (the block with its halo) and writing `out` through their strides.
auto window_sum_fn(std::vector<index_t> depth, Boundary b, Calls& calls) {
  return [depth = std::move(depth), b, &calls](const BlockInfo& info, View<double> out,
                                               View<const double> in) {
    ++calls.calls;
    if (is_strided(in))
      ++calls.strided;
    const std::size_t nd = depth.size();
    Extents lo(nd), win(nd);
    for (std::size_t k = 0; k < nd; ++k) {
      lo[k] = b.kind == Boundary::Kind::none ? std::min(depth[k], info.offset[k]) : depth[k];
      win[k] = 2 * depth[k] + 1;
    }
    const Extents ext = info.shape.extents();
    for (index_t i = 0; i < numel(ext); ++i) {
      const Extents p = unravel(i, ext);
      double s = 0;
      for (index_t w = 0; w < numel(win); ++w) {
        const Extents q = unravel(w, win);
        index_t at = 0;
        bool inside = true;
        for (std::size_t k = 0; k < nd; ++k) {
          const index_t g = p[k] + lo[k] + q[k] - depth[k];
          inside = inside && g >= 0 && g < in.shape[static_cast<index_t>(k)];
          at += g * in.strides[k];
        }
        if (inside)
          s += in.data[at];
      }
      index_t o = 0;
      for (std::size_t k = 0; k < nd; ++k)
        o += p[k] * out.strides[k];
      out.data[o] = s;
    }
  };
}

/// The frame a persisted array keeps (empty: its blocks are apart).
template <class T> std::vector<index_t> frame_of(const ChunkedArray<T, Backend>& x) {
  const graph::Node& n = *x.node();
  if (n.kind != graph::NodeKind::stored)
    return {};
  return n.as<graph::StoredParams>().data->frame;
}

/// Whether persisted stencils of this backend keep one buffer (host backends here: the suite's
/// functions run on the host).
bool keeps_frames() { return !runs_on_gpu(); }

void expect_two_steps(const Extents& shape, const Chunks& chunks, const std::vector<index_t>& depth,
                      Boundary b, std::mt19937_64& rng) {
  SCOPED_TRACE("shape " + extents_string(shape) + " chunks " + Shape(chunks.lengths()).to_string() +
               " depth " + Shape(depth).to_string() + " boundary " + boundary_name(b));
  const Dense<double> ref = random_dense<double>(shape, rng, true);
  const Dense<double> once = window_sums(ref, depth, b), twice = window_sums(once, depth, b);
  const A x = make_array<Backend>(ref, chunks);
  Calls first, second;
  const A y = map_overlap<double>(window_sum_fn(depth, b, first), x, depth, b);
  EXPECT_TRUE(matches(y.compute(), once));
  const A p = y.persist();
  EXPECT_EQ(frame_of(p), keeps_frames() ? depth : std::vector<index_t>{});
  EXPECT_EQ(first.strided.load(), 0) << "blocks of from_host are dense";
  EXPECT_TRUE(matches(p.compute(), once));
  const A z = map_overlap<double>(window_sum_fn(depth, b, second), p, depth, b).persist();
  EXPECT_TRUE(matches(z.compute(), twice));
  EXPECT_EQ(second.calls.load(), x.numblocks());
  // Read in place: strided wherever a block is narrower than the buffer's rows.
  if (keeps_frames() && shape.size() > 1 && chunks.lengths().back() < shape.back()) {
    EXPECT_EQ(second.strided.load(), x.numblocks());
  }
}

TEST_F(StencilViews, TwoPersistedStepsMatchTheReferenceOnEveryBoundaryAndChunking) {
  if (runs_on_gpu())
    GTEST_SKIP() << "host callables";
  std::mt19937_64 rng(811);
  for (const Boundary b : all_boundaries) {
    const Extents shape{9, 14};
    for (const Chunks& c : chunkings_for(shape))
      expect_two_steps(shape, c, {1, 2}, b, rng);
    expect_two_steps({5, 4, 6}, Chunks{2, 4, 3}, {1, 0, 2}, b, rng);
    expect_two_steps({7}, Chunks{3}, {7}, b, rng); // depth the whole axis
    expect_two_steps({6, 5}, random_chunks({6, 5}, rng), {2, 1}, b, rng);
  }
}

TEST_F(StencilViews, ThePersistedStepReadsEveryBlockInPlace) {
  if (!keeps_frames())
    GTEST_SKIP() << "host callables";
  std::mt19937_64 rng(812);
  const Dense<double> ref = random_dense<double>({12, 10}, rng, true);
  const A x = make_array<Backend>(ref, Chunks{5, 4});
  Calls a, b;
  const A y = map_overlap<double>(window_sum_fn({1, 1}, Boundary::periodic, a), x, {1, 1},
                                  Boundary::periodic)
                  .persist();
  // The block with its halo, inside the one buffer of 12 + 2 rows of 10 + 2 values padded to 16
  // (128 bytes), each row's first value on a 64-byte boundary at least.
  auto centre = [&b](const BlockInfo& info, View<double> out, View<const double> in) {
    ++b.calls;
    const auto row_start = reinterpret_cast<std::uintptr_t>(out.data - info.offset[1]);
    if (in.strides == std::vector<index_t>{16, 1} && out.strides == std::vector<index_t>{16, 1} &&
        row_start % 64 == 0)
      ++b.strided;
    for (index_t i = 0; i < info.shape[0]; ++i)
      for (index_t j = 0; j < info.shape[1]; ++j)
        out.data[i * 16 + j] = in.data[(i + 1) * 16 + j + 1];
  };
  const A z = map_overlap<double>(centre, y, {1, 1}, Boundary::periodic).persist();
  EXPECT_EQ(b.calls.load(), x.numblocks());
  EXPECT_EQ(b.strided.load(), x.numblocks());
  EXPECT_TRUE(matches(z.compute(), window_sums(ref, {1, 1}, Boundary::periodic)));
}

TEST_F(StencilViews, APersistedStencilReadsAsAnyOtherArray) {
  if (runs_on_gpu())
    GTEST_SKIP() << "host callables";
  std::mt19937_64 rng(813);
  const Dense<double> ref = random_dense<double>({11, 9}, rng, true);
  const A x = make_array<Backend>(ref, Chunks{4, 5});
  Calls calls;
  const A y = map_overlap<double>(window_sum_fn({1, 1}, Boundary::reflect, calls), x, {1, 1},
                                  Boundary::reflect)
                  .persist();
  const Dense<double> once = window_sums(ref, {1, 1}, Boundary::reflect);
  EXPECT_TRUE(matches(y.compute(), once));
  EXPECT_TRUE(matches((y * 2.0 + 1.0).compute(), map(once, [](double v) { return v * 2 + 1; })));
  EXPECT_NEAR(y.sum().item(), ref_sum(once).at({}), 1e-9 * (1 + std::abs(ref_sum(once).at({}))));
  EXPECT_TRUE(matches(y(Slice(1, none, 2), Slice(none, none, -1)).compute(),
                      index(once, {Slice(1, none, 2), Slice(none, none, -1)})));
  EXPECT_TRUE(matches(y.persist().compute(), once));
  EXPECT_TRUE(matches(reshape(y, Shape{9, 11}).compute(), with_shape(once, {9, 11})));
  // Dense functions get dense copies of its blocks.
  const A copy = map_blocks<double>(
      [](const BlockInfo&, BlockView<double> out, BlockView<const double> in) {
        for (index_t i = 0; i < out.size(); ++i)
          out.data[i] = in.data[i];
      },
      y);
  EXPECT_TRUE(matches(copy.compute(), once));
  // Another boundary, a deeper halo and none: the same values as from dense blocks.
  for (const auto& [depth, b] :
       std::vector<std::pair<std::vector<index_t>, Boundary>>{{{1, 1}, Boundary::periodic},
                                                              {{2, 1}, Boundary::reflect},
                                                              {{1, 1}, Boundary::none},
                                                              {{1, 0}, Boundary::constant(2.5)}}) {
    SCOPED_TRACE(boundary_name(b));
    Calls c;
    EXPECT_TRUE(matches(map_overlap<double>(window_sum_fn(depth, b, c), y, depth, b).compute(),
                        window_sums(once, depth, b)));
  }
}

TEST_F(StencilViews, StridedMapBlocksReadsBlocksWhereTheyLie) {
  if (runs_on_gpu())
    GTEST_SKIP() << "host callables";
  std::mt19937_64 rng(814);
  const Dense<double> ref = random_dense<double>({7, 8}, rng, true);
  auto twice = [](const BlockInfo& info, View<double> out, View<const double> in) {
    for (index_t i = 0; i < info.shape[0]; ++i)
      for (index_t j = 0; j < info.shape[1]; ++j)
        out.data[i * out.strides[0] + j * out.strides[1]] =
            2 * in.data[i * in.strides[0] + j * in.strides[1]];
  };
  const auto want = map(ref, [](double v) { return 2 * v; });
  for (const Chunks& c : chunkings_for({7, 8})) {
    const A x = make_array<Backend>(ref, c);
    EXPECT_TRUE(matches(map_blocks<double>(twice, x).compute(), want));
    EXPECT_TRUE(matches(map_blocks<double>(twice, x + 0.0).persist().compute(), want));
    const auto view =
        from_host_view<Backend>(std::span<const double>(ref.values()), Shape{7, 8}, c);
    EXPECT_TRUE(matches(map_blocks<double>(twice, view).compute(), want));
  }
}

TEST_F(StencilViews, FramesOfEveryElementSize) {
  if (runs_on_gpu())
    GTEST_SKIP() << "host callables";
  // out = in at offset (-1, +1) of the block: the frame's values themselves, per element type.
  auto shifted = [](const auto& info, auto out, auto in) {
    for (index_t i = 0; i < info.shape[0]; ++i)
      for (index_t j = 0; j < info.shape[1]; ++j)
        out.data[i * out.strides[0] + j * out.strides[1]] =
            in.data[i * in.strides[0] + (j + 2) * in.strides[1]];
  };
  const Dense<double> ref = generate<double>({5, 6}, [](index_t i) { return double(i % 7); });
  for (const Boundary b : all_boundaries) {
    if (b.kind == Boundary::Kind::none)
      continue;
    SCOPED_TRACE(boundary_name(b));
    auto want = [&](const Dense<double>& d) {
      return generate<double>({5, 6}, [&](index_t i) {
        const Extents p = unravel(i, {5, 6});
        return padded_at(d, {p[0] - 1, p[1] + 1}, b);
      });
    };
    const Dense<double> one = want(ref), two = want(one);
    auto check = [&](auto tag) {
      using T = decltype(tag);
      auto x = make_array<Backend>(cast<T>(ref), Chunks{2, 4});
      for (int s = 0; s < 2; ++s)
        x = map_overlap<T>([&](const BlockInfo& info, View<T> out,
                               View<const T> in) { shifted(info, out, in); },
                           x, {1, 1}, b)
                .persist();
      EXPECT_TRUE(matches(x.compute(), cast<T>(two))) << typeid(T).name();
    };
    check(float{});
    check(std::int32_t{});
    check(std::int64_t{});
    check(bool{}); // one byte: rows padded to 128 elements
  }
}

TEST_F(StencilViews, AUserExceptionInAPersistedStepLeavesTheRuntimeUsable) {
  if (runs_on_gpu())
    GTEST_SKIP() << "host callables";
  const A x = arange<double, Backend>(0, 30, 1, 10).reshape(Shape{5, 6}).rechunk(Chunks{2, 3});
  auto throwing = [](const BlockInfo& info, View<double>, View<const double>) {
    if (info.block == std::vector<index_t>{1, 1})
      throw std::runtime_error("the stencil gave up");
  };
  expect_error<Error>(
      [&] { (void)map_overlap<double>(throwing, x, 1, Boundary::periodic).persist(); },
      {"the stencil gave up", "(1, 1)"});
  Calls calls;
  const Dense<double> ref = from_ndarray(x.compute());
  EXPECT_TRUE(matches(
      map_overlap<double>(window_sum_fn({1, 1}, Boundary::nearest, calls), x, 1, Boundary::nearest)
          .persist()
          .compute(),
      window_sums(ref, {1, 1}, Boundary::nearest)));
}

TEST_F(StencilViews, MemoryLimitsAndEmptyArraysKeepBlocksApart) {
  if (runs_on_gpu())
    GTEST_SKIP() << "host callables";
  std::mt19937_64 rng(815);
  const Dense<double> ref = random_dense<double>({6, 6}, rng, true);
  const A x = make_array<Backend>(ref, Chunks{3, 3});
  Calls calls;
  ComputeOptions limited;
  limited.host_memory_limit = std::size_t{1} << 30;
  const A y = map_overlap<double>(window_sum_fn({1, 1}, Boundary::periodic, calls), x, 1,
                                  Boundary::periodic)
                  .persist(limited);
  EXPECT_TRUE(frame_of(y).empty());
  EXPECT_TRUE(matches(y.compute(), window_sums(ref, {1, 1}, Boundary::periodic)));
  const A empty = zeros<double, Backend>(Shape{0, 4}, Chunks{2, 2});
  const A e = map_overlap<double>(window_sum_fn({0, 1}, Boundary::reflect, calls), empty, {0, 1},
                                  Boundary::reflect)
                  .persist();
  EXPECT_EQ(e.compute().size(), 0);
}

} // namespace
} // namespace chunked::test
