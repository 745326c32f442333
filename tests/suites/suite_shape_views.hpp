// SPDX-License-Identifier: Apache-2.0
// Shape views suite: transpose, moveaxis, swapaxes, expand_dims, squeeze and broadcast_to against
// naive references under many chunkings, their chunk grids, their composition with slices,
// elementwise operations and reductions, random leaves, empty and 0-d arrays, and bad input.
#pragma once

#include "support/backend.hpp"
#include "support/errors.hpp"
#include "support/reference.hpp"
#include "support/reference_shape.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace chunked::test {
namespace {

using ShapeViews = BackendTest;
using A = ChunkedArray<double, Backend>;
using Grid = std::vector<std::vector<index_t>>;

/// The per-axis chunk lengths of a grid.
Grid lengths_of(const ChunkGrid& g) {
  Grid out;
  for (index_t k = 0; k < g.ndim(); ++k)
    out.push_back(g.lengths(k));
  return out;
}

/// The grid a view whose output axis k is input axis source[k] (-1: a new axis of length 1) has.
Grid moved_grid(const ChunkGrid& in, const Extents& source) {
  Grid out;
  for (index_t s : source)
    out.push_back(s < 0 ? std::vector<index_t>{1} : in.lengths(s));
  return out;
}

/// The chunkings of chunkings_for, and chunks longer than every axis.
std::vector<Chunks> chunkings_with_long(const Extents& shape) {
  auto out = chunkings_for(shape);
  Extents longer(shape.size());
  for (std::size_t k = 0; k < shape.size(); ++k)
    longer[k] = shape[k] + 3;
  out.push_back(Chunks(longer));
  return out;
}

/// Shape, values and chunk grid of a view.
template <class T>
void expect_view(const ChunkedArray<T, Backend>& v, const Dense<T>& want, const Grid& grid) {
  EXPECT_EQ(v.shape().extents(), want.shape());
  EXPECT_EQ(lengths_of(v.chunks()), grid);
  EXPECT_TRUE(matches(v.compute(), want));
}

Extents iota_axes(index_t n) {
  Extents a(static_cast<std::size_t>(n));
  std::iota(a.begin(), a.end(), index_t{0});
  return a;
}

TEST_F(ShapeViews, TransposeEveryPermutationMatchesTheReference) {
  std::mt19937_64 rng(11);
  for (const Extents& shape :
       {Extents{}, Extents{5}, Extents{4, 7}, Extents{3, 4, 5}, Extents{2, 3, 1, 4}}) {
    const auto ref = random_dense<double>(shape, rng);
    const index_t nd = static_cast<index_t>(shape.size());
    for (const auto& chunks : chunkings_with_long(shape)) {
      const A x = make_array<Backend>(ref, chunks);
      Extents perm = iota_axes(nd);
      do {
        SCOPED_TRACE(label(chunks) + " transpose " + extents_string(perm));
        const auto want = ref_transpose(ref, perm);
        expect_view(transpose(x, perm), want, moved_grid(x.chunks(), perm));
        Extents negative = perm;
        for (auto& a : negative)
          a -= nd;
        EXPECT_TRUE(matches(x.transpose(negative).compute(), want));
      } while (std::next_permutation(perm.begin(), perm.end()));
      SCOPED_TRACE(label(chunks) + " reversed");
      const auto want = ref_transpose(ref, reversed_axes(nd));
      expect_view(transpose(x), want, moved_grid(x.chunks(), reversed_axes(nd)));
      EXPECT_TRUE(matches(x.transpose().compute(), want));
    }
  }
}

TEST_F(ShapeViews, MoveaxisAndSwapaxesPermuteAsNumPy) {
  std::mt19937_64 rng(12);
  const Extents shape{2, 3, 4, 5};
  const auto ref = random_dense<double>(shape, rng);
  struct Move {
    Extents source, destination;
  };
  const std::vector<Move> moves = {{{0}, {-1}},
                                   {{-1}, {0}},
                                   {{1}, {2}},
                                   {{2}, {2}},
                                   {{0, 1}, {-1, -2}},
                                   {{0, 3}, {1, 0}},
                                   {{3, 1, 0}, {0, 1, 2}},
                                   {{0, 1, 2, 3}, {3, 2, 1, 0}}};
  for (const auto& chunks : chunkings_with_long(shape)) {
    const A x = make_array<Backend>(ref, chunks);
    for (const auto& m : moves) {
      SCOPED_TRACE(label(chunks) + " moveaxis " + detail::format_tuple(m.source) + " -> " +
                   detail::format_tuple(m.destination));
      const Extents perm = moveaxis_perm(4, m.source, m.destination);
      const A v = m.source.size() == 1 ? moveaxis(x, m.source[0], m.destination[0])
                                       : moveaxis(x, m.source, m.destination);
      expect_view(v, ref_transpose(ref, perm), moved_grid(x.chunks(), perm));
    }
    for (const auto& [a, b] : {std::pair<index_t, index_t>{0, 3}, {-1, 1}, {2, 2}, {1, -3}}) {
      SCOPED_TRACE(label(chunks) + " swapaxes " + std::to_string(a) + ", " + std::to_string(b));
      Extents perm = iota_axes(4);
      std::swap(perm[static_cast<std::size_t>(nonneg_axis(a, 4))],
                perm[static_cast<std::size_t>(nonneg_axis(b, 4))]);
      expect_view(swapaxes(x, a, b), ref_transpose(ref, perm), moved_grid(x.chunks(), perm));
    }
  }
}

TEST_F(ShapeViews, ExpandDimsInsertsAnAxisOfOneBlock) {
  std::mt19937_64 rng(13);
  const Extents shape{3, 1, 4};
  const auto ref = random_dense<double>(shape, rng);
  struct Case {
    Extents axes;
    Extents source; ///< per output axis, the input axis it reads (-1: the new one)
  };
  const std::vector<Case> cases = {
      {{0}, {-1, 0, 1, 2}},         {{1}, {0, -1, 1, 2}},
      {{3}, {0, 1, 2, -1}},         {{-1}, {0, 1, 2, -1}},
      {{-4}, {-1, 0, 1, 2}},        {{0, 2}, {-1, 0, -1, 1, 2}},
      {{-1, 0}, {-1, 0, 1, 2, -1}}, {{4, 1, 2}, {0, -1, -1, 1, -1, 2}}};
  for (const auto& chunks : chunkings_with_long(shape)) {
    const A x = make_array<Backend>(ref, chunks);
    for (const auto& c : cases) {
      SCOPED_TRACE(label(chunks) + " expand_dims " + detail::format_tuple(c.axes));
      Extents out;
      for (index_t s : c.source)
        out.push_back(s < 0 ? 1 : shape[static_cast<std::size_t>(s)]);
      const A v = c.axes.size() == 1 ? expand_dims(x, c.axes[0]) : expand_dims(x, Axes(c.axes));
      expect_view(v, with_shape(ref, out), moved_grid(x.chunks(), c.source));
    }
  }
}

TEST_F(ShapeViews, SqueezeDropsAxesOfLengthOne) {
  std::mt19937_64 rng(14);
  const Extents shape{1, 3, 1, 4};
  const auto ref = random_dense<double>(shape, rng);
  for (const auto& chunks : chunkings_with_long(shape)) {
    const A x = make_array<Backend>(ref, chunks);
    SCOPED_TRACE(label(chunks));
    expect_view(squeeze(x), with_shape(ref, {3, 4}), moved_grid(x.chunks(), {1, 3}));
    expect_view(squeeze(x, Axes{0}), with_shape(ref, {3, 1, 4}), moved_grid(x.chunks(), {1, 2, 3}));
    expect_view(squeeze(x, Axes{-2}), with_shape(ref, {1, 3, 4}),
                moved_grid(x.chunks(), {0, 1, 3}));
    expect_view(squeeze(x, Axes{2, 0}), with_shape(ref, {3, 4}), moved_grid(x.chunks(), {1, 3}));
    // Round trips through expand_dims and squeeze give the values back.
    EXPECT_TRUE(
        matches(squeeze(expand_dims(squeeze(x), 1), Axes{1}).compute(), with_shape(ref, {3, 4})));
  }
  // No axis of length 1: squeeze() is the array itself; every axis of length 1: a 0-d array.
  const auto plain = random_dense<double>({2, 3}, rng);
  const A p = make_array<Backend>(plain, Chunks{1, 2});
  EXPECT_EQ(squeeze(p).node(), p.node());
  const auto one = random_dense<double>({1, 1, 1}, rng);
  const A o = make_array<Backend>(one, Chunks{1, 1, 1});
  expect_view(squeeze(o), with_shape(one, {}), Grid{});
  EXPECT_EQ(squeeze(o).item(), one[0]);
}

TEST_F(ShapeViews, ZeroDimensionalArrays) {
  std::mt19937_64 rng(15);
  const auto ref = random_dense<double>({}, rng);
  const A s = make_array<Backend>(ref, Chunks{});
  expect_view(transpose(s), ref, Grid{});
  expect_view(s.transpose({}), ref, Grid{});
  expect_view(squeeze(s), ref, Grid{});
  expect_view(expand_dims(s, 0), with_shape(ref, {1}), Grid{{1}});
  expect_view(expand_dims(s, -1), with_shape(ref, {1}), Grid{{1}});
  expect_view(expand_dims(s, Axes{0, 1}), with_shape(ref, {1, 1}), Grid{{1}, {1}});
  expect_view(broadcast_to(s, Shape{2, 3}), ref_broadcast_to(ref, {2, 3}), Grid{{2}, {3}});
  EXPECT_EQ(squeeze(expand_dims(s, 0)).item(), ref[0]);
}

TEST_F(ShapeViews, BroadcastToFollowsNumPy) {
  std::mt19937_64 rng(16);
  struct Case {
    Extents from, to;
  };
  const std::vector<Case> cases = {{{3}, {4, 3}},    {{1, 3}, {2, 4, 3}},      {{4, 1}, {4, 5}},
                                   {{1}, {0}},       {{2, 1}, {3, 2, 0}},      {{1, 1}, {2, 3}},
                                   {{2, 3}, {2, 3}}, {{3, 1, 2}, {2, 3, 4, 2}}};
  for (const auto& c : cases) {
    const auto ref = random_dense<double>(c.from, rng);
    for (const auto& chunks : chunkings_with_long(c.from)) {
      SCOPED_TRACE(label(chunks) + " " + extents_string(c.from) + " -> " + extents_string(c.to));
      const A x = make_array<Backend>(ref, chunks);
      // Axes that keep their length keep their chunks; broadcast ones are one chunk.
      Grid grid;
      const std::size_t lead = c.to.size() - c.from.size();
      for (std::size_t k = 0; k < c.to.size(); ++k) {
        const bool kept = k >= lead && c.from[k - lead] == c.to[k];
        grid.push_back(kept ? x.chunks().lengths(static_cast<index_t>(k - lead))
                            : std::vector<index_t>{c.to[k]});
      }
      const A b = broadcast_to(x, Shape(c.to));
      expect_view(b, ref_broadcast_to(ref, c.to), grid);
      EXPECT_TRUE(
          matches(b.sum().compute(), ref_sum(ref_broadcast_to(ref, c.to)), tight<double>()));
    }
  }
}

TEST_F(ShapeViews, ViewsComposeWithSlicesInEitherOrder) {
  std::mt19937_64 rng(17);
  const Extents shape{5, 6, 7};
  const auto ref = random_dense<double>(shape, rng);
  const Extents p{2, 0, 1};
  const auto t = ref_transpose(ref, p);
  for (const auto& chunks : chunkings_with_long(shape)) {
    SCOPED_TRACE(label(chunks));
    const A x = make_array<Backend>(ref, chunks);
    // Transpose, then slice.
    EXPECT_TRUE(matches(transpose(x, p)(slice(1, none, 2), -1, slice(none, none, -1)).compute(),
                        index(t, {Slice(1, none, 2), index_t{-1}, Slice(none, none, -1)})));
    // Slice, then transpose.
    const auto sliced = index(ref, {Slice(4, 0, -2), Slice(1, 5), Slice(none, none, 3)});
    EXPECT_TRUE(
        matches(transpose(x(slice(4, 0, -2), slice(1, 5), slice(none, none, 3)), p).compute(),
                ref_transpose(sliced, p)));
    // An integer index, then swapaxes; transposes of transposes; views of all kinds stacked.
    EXPECT_TRUE(
        matches(swapaxes(x(2), 0, 1).compute(), ref_transpose(index(ref, {index_t{2}}), {1, 0})));
    EXPECT_TRUE(matches(transpose(transpose(x, p), {1, 2, 0}).compute(), ref));
    // Axes of length 1 made by slices are squeezed where the slice starts; slices broadcast.
    EXPECT_TRUE(matches(squeeze(x(slice(2, 3), all, slice(-1, none))).compute(),
                        index(ref, {index_t{2}, Slice(none, none), index_t{-1}})));
    EXPECT_TRUE(matches(broadcast_to(x(slice(3, 4), 1), Shape{2, 4, 7}).compute(),
                        ref_broadcast_to(index(ref, {Slice(3, 4), index_t{1}}), {2, 4, 7})));
    const A stacked =
        squeeze(expand_dims(moveaxis(x, 0, -1), 1)(slice(none, none, -1), 0, slice(2, 5)));
    const auto want = index(ref_transpose(ref, {1, 2, 0}), {Slice(none, none, -1), Slice(2, 5)});
    expect_view(stacked, want, lengths_of(stacked.chunks()));
  }
}

TEST_F(ShapeViews, ElementwiseAndReductionsOverPermutedAxes) {
  std::mt19937_64 rng(18);
  const auto ref = random_dense<double>({6, 6, 5}, rng);
  const auto other = random_dense<double>({5, 6, 6}, rng);
  const Extents p{2, 1, 0};
  const auto t = ref_transpose(ref, p);
  for (const auto& chunks : chunkings_with_long(ref.shape())) {
    SCOPED_TRACE(label(chunks));
    const A x = make_array<Backend>(ref, chunks);
    const A xt = transpose(x, p);
    // An operand of another chunking, and the array with its own transpose (grids that differ
    // per axis are aligned by the planner).
    const A y = make_array<Backend>(other, Chunks{2, 5, 4});
    EXPECT_TRUE(matches((xt * 2.0 + y).compute(),
                        zip(t, other, [](double a, double b) { return a * 2.0 + b; })));
    EXPECT_TRUE(
        matches((x - swapaxes(x, 0, 1)).compute(),
                zip(ref, ref_transpose(ref, {1, 0, 2}), [](double a, double b) { return a - b; })));
    // Broadcasting against a transposed operand.
    const auto row = random_dense<double>({6}, rng);
    const A r = make_array<Backend>(row, Chunks{4});
    EXPECT_TRUE(matches((xt + r).compute(), zip(t, row, [](double a, double b) { return a + b; })));
    // Reductions over the permuted axes.
    EXPECT_TRUE(matches(xt.sum(Axes{0}).compute(), ref_sum(t, {0}), tight<double>()));
    EXPECT_TRUE(matches(xt.sum(Axes{0, 1}).compute(), ref_sum(t, {0, 1}), tight<double>()));
    EXPECT_TRUE(matches(xt.max(Axes{-1}, true).compute(), ref_max(t, {-1}, true)));
    EXPECT_TRUE(matches(xt.mean().compute(), ref_mean(t), tight<double>()));
    EXPECT_TRUE(matches(xt.argmax(0).compute(), ref_arg(t, index_t{0}, true)));
    EXPECT_TRUE(matches(xt.argmin().compute(), ref_arg(t, std::nullopt, false)));
    // Views of reduction results (computed blocks read through the view).
    EXPECT_TRUE(matches(transpose(xt.sum(Axes{0})).compute(),
                        ref_transpose(ref_sum(t, {0}), {1, 0}), tight<double>()));
    EXPECT_TRUE(
        matches(squeeze(x.sum(Axes{1}, true)).compute(), ref_sum(ref, {1}), tight<double>()));
    EXPECT_TRUE(matches(moveaxis(x, 2, 0).var(Axes{1, 2}).compute(),
                        ref_var(ref_transpose(ref, {2, 0, 1}), {1, 2}, 0, false), tight<double>()));
  }
}

// Blocks larger than the GPU's 32 x 32 transpose tiles, with ragged tiles at their edges, and a
// reduction along the axis the stored input is contiguous on (the kernels chosen for transposed
// reads on Cuda; the same references on every backend).
TEST_F(ShapeViews, LargeTransposedBlocksAndTheirReductions) {
  std::mt19937_64 rng(19);
  const auto ref = random_dense<double>({70, 45, 3}, rng);
  for (const Chunks& chunks : {Chunks{64, 40, 3}, Chunks{70, 45, 2}, Chunks{33, 45, 1}}) {
    SCOPED_TRACE(label(chunks));
    const A x = make_array<Backend>(ref, chunks);
    for (const Extents& perm : {Extents{1, 0, 2}, Extents{2, 1, 0}, Extents{0, 2, 1},
                                Extents{1, 2, 0}, Extents{2, 0, 1}}) {
      SCOPED_TRACE(extents_string(perm));
      const auto t = ref_transpose(ref, perm);
      EXPECT_TRUE(matches(transpose(x, perm).compute(), t));
      EXPECT_TRUE(matches((transpose(x, perm) * 3.0 + 1.0).compute(),
                          map(t, [](double v) { return v * 3.0 + 1.0; })));
    }
    const auto t = ref_transpose(ref, {1, 0, 2});
    EXPECT_TRUE(
        matches(swapaxes(x, 0, 1).sum(Axes{1}).compute(), ref_sum(t, {1}), tight<double>()));
    const auto u = ref_transpose(ref, {2, 1, 0});
    EXPECT_TRUE(matches(transpose(x).sum(Axes{2}).compute(), ref_sum(u, {2}), tight<double>()));
    EXPECT_TRUE(matches(transpose(x).max(Axes{1, 2}).compute(), ref_max(u, {1, 2})));
  }
}

TEST_F(ShapeViews, RandomLeavesGiveTheTransposedValues) {
  Generator gen(21);
  const auto r = gen.normal<double, Backend>(Shape{5, 6, 7}, Chunks{2, 4, 3}, 1.0, 2.0);
  const auto u = gen.uniform<float, Backend>(Shape{4, 1, 6}, Chunks{3, 1, 4});
  const auto n = gen.integers<std::int64_t, Backend>(Shape{3, 8}, Chunks{2, 3}, -5, 9);
  const auto rd = from_ndarray(r.compute());
  const auto ud = from_ndarray(u.compute());
  const auto nd = from_ndarray(n.compute());
  for (const Extents& p : {Extents{2, 0, 1}, Extents{1, 2, 0}, Extents{2, 1, 0}}) {
    SCOPED_TRACE("transpose " + extents_string(p));
    EXPECT_TRUE(bitwise_equal(transpose(r, p).compute(), to_ndarray(ref_transpose(rd, p))));
    EXPECT_TRUE(bitwise_equal(transpose(u, p).compute(), to_ndarray(ref_transpose(ud, p))));
  }
  EXPECT_TRUE(bitwise_equal(transpose(n).compute(), to_ndarray(ref_transpose(nd, {1, 0}))));
  // Slices of transposes generate only the elements they keep, with the same values.
  const auto want = index(ref_transpose(rd, {2, 1, 0}), {Slice(none, none, -3), index_t{4}});
  EXPECT_TRUE(bitwise_equal(transpose(r)(slice(none, none, -3), 4).compute(), to_ndarray(want)));
  EXPECT_TRUE(matches(transpose(r).sum(Axes{0}).compute(),
                      ref_sum(ref_transpose(rd, {2, 1, 0}), {0}), tight<double>()));
  EXPECT_TRUE(bitwise_equal(squeeze(u).compute(), to_ndarray(with_shape(ud, {4, 6}))));
  EXPECT_TRUE(bitwise_equal(broadcast_to(expand_dims(n, 1), Shape{3, 2, 8}).compute(),
                            to_ndarray(ref_broadcast_to(with_shape(nd, {3, 1, 8}), {3, 2, 8}))));
  // A leaf made of arange: its one axis moved behind a new one.
  const auto a = arange<std::int64_t, Backend>(0, 9, 1, 4);
  const auto ad = generate<std::int64_t>({9}, [](index_t i) { return i; });
  EXPECT_TRUE(matches(transpose(expand_dims(a, 0)).compute(), with_shape(ad, {9, 1})));
}

TEST_F(ShapeViews, EmptyArrays) {
  std::mt19937_64 rng(19);
  for (const Extents& shape : {Extents{0, 3}, Extents{3, 0, 2}, Extents{0, 1, 4}}) {
    const auto ref = random_dense<double>(shape, rng);
    const index_t nd = static_cast<index_t>(shape.size());
    for (const auto& chunks : chunkings_for(shape)) {
      SCOPED_TRACE(label(chunks) + " " + extents_string(shape));
      const A x = make_array<Backend>(ref, chunks);
      const auto t = ref_transpose(ref, reversed_axes(nd));
      expect_view(transpose(x), t, moved_grid(x.chunks(), reversed_axes(nd)));
      expect_view(moveaxis(x, 0, -1), ref_transpose(ref, moveaxis_perm(nd, {0}, {-1})),
                  moved_grid(x.chunks(), moveaxis_perm(nd, {0}, {-1})));
      Extents expanded = shape;
      expanded.insert(expanded.begin() + 1, 1);
      EXPECT_TRUE(matches(expand_dims(x, 1).compute(), with_shape(ref, expanded)));
      EXPECT_TRUE(matches(transpose(x).sum(Axes{0}).compute(), ref_sum(t, {0}), tight<double>()));
    }
  }
  const auto e = random_dense<double>({0, 1, 4}, rng);
  const A x = make_array<Backend>(e, Chunks{2, 1, 3});
  expect_view(squeeze(x), with_shape(e, {0, 4}), moved_grid(x.chunks(), {0, 2}));
  const auto one = random_dense<double>({1}, rng);
  expect_view(broadcast_to(make_array<Backend>(one, Chunks{1}), Shape{2, 0}),
              ref_broadcast_to(one, {2, 0}), Grid{{2}, {0}});
}

template <class T> class ShapeViewsTyped : public TypedBackendTest<T> {};
using ShapeViewTypes = ::testing::Types<bool, std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(ShapeViewsTyped, ShapeViewTypes);

TYPED_TEST(ShapeViewsTyped, EveryElementTypeMovesUnchanged) {
  using T = TypeParam;
  std::mt19937_64 rng(20);
  const auto ref = random_dense<T>({3, 1, 5}, rng);
  for (const auto& chunks : chunkings_for(ref.shape())) {
    SCOPED_TRACE(label(chunks));
    const auto x = make_array<Backend>(ref, chunks);
    EXPECT_TRUE(matches(transpose(x, {2, 0, 1}).compute(), ref_transpose(ref, {2, 0, 1})));
    EXPECT_TRUE(matches(squeeze(x).compute(), with_shape(ref, {3, 5})));
    EXPECT_TRUE(
        matches(broadcast_to(x, Shape{2, 3, 4, 5}).compute(), ref_broadcast_to(ref, {2, 3, 4, 5})));
    EXPECT_TRUE(matches(swapaxes(x, 0, 2).sum(Axes{1}).compute(),
                        ref_sum(ref_transpose(ref, {2, 1, 0}), {1}), tight<ref_sum_t<T>>()));
  }
}

TEST_F(ShapeViews, PersistedInputsAreReadThroughTheView) {
  std::mt19937_64 rng(22);
  const auto ref = random_dense<double>({7, 5}, rng);
  const A x = make_array<Backend>(ref, Chunks{3, 2});
  const A held = (x * 3.0).persist();
  const auto tripled = map(ref, [](double v) { return v * 3.0; });
  EXPECT_TRUE(matches(transpose(held).compute(), ref_transpose(tripled, {1, 0})));
  EXPECT_TRUE(
      matches((transpose(held) + transpose(x))(slice(1, 4), slice(none, none, -2)).compute(),
              index(ref_transpose(map(ref, [](double v) { return v * 3.0 + v; }), {1, 0}),
                    {Slice(1, 4), Slice(none, none, -2)})));
}

TEST_F(ShapeViews, BadAxesAndShapesRaiseTheRightError) {
  const A x = zeros<double, Backend>(Shape{3, 1, 4}, Chunks{2, 1, 2});
  expect_error<ValueError>(
      [&] {
        (void)transpose(x, {0, 1});
      },
      {"transpose", "(0, 1)", "rank 3", "permutation"});
  expect_error<ValueError>([&] { (void)x.transpose({}); }, {"transpose", "()", "rank 3"});
  expect_error<ValueError>(
      [&] {
        (void)transpose(x, {0, 2, -1});
      },
      {"transpose", "-1", "(0, 2, -1)", "at most once"});
  expect_error<IndexError>(
      [&] {
        (void)transpose(x, {0, 1, 3});
      },
      {"transpose", "axis 3", "rank 3", "[-3, 3)"});
  expect_error<IndexError>([&] { (void)moveaxis(x, 3, 0); }, {"moveaxis", "axis 3", "rank 3"});
  expect_error<IndexError>([&] { (void)moveaxis(x, 0, -4); }, {"moveaxis", "axis -4", "rank 3"});
  expect_error<ValueError>(
      [&] {
        (void)moveaxis(x, {0, 1}, {2});
      },
      {"moveaxis", "(0, 1)", "(2,)", "lengths"});
  expect_error<ValueError>(
      [&] {
        (void)moveaxis(x, {0, -3}, {1, 2});
      },
      {"moveaxis", "(0, -3)", "at most once"});
  expect_error<ValueError>(
      [&] {
        (void)moveaxis(x, {0, 1}, {2, 2});
      },
      {"moveaxis", "(2, 2)", "at most once"});
  expect_error<IndexError>([&] { (void)swapaxes(x, 0, -4); }, {"swapaxes", "axis -4", "rank 3"});
  expect_error<IndexError>([&] { (void)expand_dims(x, 4); }, {"expand_dims", "axis 4", "rank 4"});
  expect_error<IndexError>([&] { (void)expand_dims(x, -5); },
                           {"expand_dims", "axis -5", "[-4, 4)"});
  expect_error<ValueError>(
      [&] {
        (void)expand_dims(x, Axes{1, -4});
      },
      {"expand_dims", "(1, -4)", "at most once"});
  expect_error<ValueError>([&] { (void)squeeze(x, Axes{0}); },
                           {"squeeze", "axis 0", "(3, 1, 4)", "length 3", "length 1"});
  expect_error<IndexError>([&] { (void)squeeze(x, Axes{3}); }, {"squeeze", "axis 3", "rank 3"});
  expect_error<ValueError>([&] { (void)squeeze(x, Axes{1, -2}); }, {"squeeze", "at most once"});
  expect_error<ShapeError>(
      [&] {
        (void)broadcast_to(x, Shape{1, 4});
      },
      {"(3, 1, 4)", "(1, 4)", "broadcast"});
  expect_error<ShapeError>(
      [&] {
        (void)broadcast_to(x, Shape{2, 5, 4});
      },
      {"(3, 1, 4)", "(2, 5, 4)"});
  expect_error<ShapeError>(
      [&] {
        (void)broadcast_to(x, Shape{3, 1, 0});
      },
      {"(3, 1, 4)", "(3, 1, 0)"});
  const auto eight = zeros<double, Backend>(Shape(Extents(8, 1)), Chunks(Extents(8, 1)));
  expect_error<ValueError>([&] { (void)expand_dims(eight, 0); }, {"rank 9", "8"});
  // Nothing was computed: the arrays still work.
  EXPECT_EQ(transpose(x).sum().item(), 0.0);
}

} // namespace
} // namespace chunked::test
