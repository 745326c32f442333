// SPDX-License-Identifier: Apache-2.0
// Reshape, concatenate and stack suite: values against naive references under many chunkings of
// the input and of the result, the chunk grids they get, empty arrays, negative axes, inputs that
// are random, sliced, elementwise or transposed, composition with reductions, and bad input.
#pragma once

#include "support/backend.hpp"
#include "support/errors.hpp"
#include "support/reference.hpp"
#include "support/reference_assemble.hpp"
#include "support/reference_shape.hpp"

#include <string>
#include <vector>

namespace chunked::test {
namespace {

using Reshape = BackendTest;
using A = ChunkedArray<double, Backend>;
using Grid = std::vector<std::vector<index_t>>;

Grid grid_of(const ChunkGrid& g) {
  Grid out;
  for (index_t k = 0; k < g.ndim(); ++k)
    out.push_back(g.lengths(k));
  return out;
}

/// The chunkings of chunkings_for, and chunks longer than every axis.
std::vector<Chunks> with_long_chunks(const Extents& shape) {
  auto out = chunkings_for(shape);
  Extents longer(shape.size());
  for (std::size_t k = 0; k < shape.size(); ++k)
    longer[k] = shape[k] + 2;
  out.push_back(Chunks(longer));
  return out;
}

/// A shape asked for, which may hold a -1 (extents_string would refuse it).
std::string spec_string(const Extents& spec) {
  std::string s = "(";
  for (std::size_t k = 0; k < spec.size(); ++k)
    s += (k ? ", " : "") + std::to_string(spec[k]);
  return s + ")";
}

/// A reshape case: the input shape, the shape asked for (maybe with a -1), the shape it means.
struct Case {
  Extents from, spec, to;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {{12}, {3, 4}, {3, 4}},         {{12}, {3, -1}, {3, 4}},
      {{3, 4}, {12}, {12}},           {{3, 4}, {-1}, {12}},
      {{3, 4}, {2, 6}, {2, 6}},       {{3, 4}, {4, 3}, {4, 3}},
      {{2, 3, 4}, {4, 6}, {4, 6}},    {{2, 3, 4}, {6, -1, 2}, {6, 2, 2}},
      {{4, 6}, {2, 3, 4}, {2, 3, 4}}, {{5, 1, 3}, {15}, {15}},
      {{6, 5}, {5, 6}, {5, 6}},       {{1, 12}, {12, 1}, {12, 1}},
      {{7}, {7, 1}, {7, 1}},          {{2, 3, 4}, {24}, {24}},
      {{24}, {2, 3, 4}, {2, 3, 4}},   {{2, 1, 6}, {3, 1, 4}, {3, 1, 4}},
      {{5, 7}, {7, 5}, {7, 5}},       {{2, 2, 2, 3}, {4, 6}, {4, 6}},
  };
  return all;
}

TEST_F(Reshape, MatchesTheReferenceUnderEveryChunkingOfTheInput) {
  std::mt19937_64 rng(5);
  for (const Case& c : cases()) {
    const auto ref = random_dense<double>(c.from, rng);
    const auto want = with_shape(ref, c.to);
    for (const auto& chunks : with_long_chunks(c.from)) {
      SCOPED_TRACE(extents_string(c.from) + " " + label(chunks) + " -> " + spec_string(c.spec));
      const A x = make_array<Backend>(ref, chunks);
      const A r = reshape(x, c.spec);
      EXPECT_EQ(r.shape().extents(), c.to);
      EXPECT_EQ(r.chunks().shape(), r.shape());
      EXPECT_TRUE(matches(r.compute(), want));
      EXPECT_TRUE(matches(x.reshape(Shape(c.to)).compute(), want));
    }
  }
}

/// A random shape of `total` elements: its prime factors dealt to 1 to 4 axes at random.
Extents random_factoring(index_t total, std::mt19937_64& rng) {
  Extents shape(1 + rng() % 4, 1);
  for (index_t f = 2; total > 1;) {
    if (total % f != 0) {
      ++f;
      continue;
    }
    shape[rng() % shape.size()] *= f;
    total /= f;
  }
  return shape;
}

TEST_F(Reshape, RandomReshapesOfRandomChunkings) {
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 40; ++trial) {
    const index_t total = 1 + static_cast<index_t>(rng() % 72);
    const Extents from = random_factoring(total, rng), to = random_factoring(total, rng);
    const auto ref = random_dense<double>(from, rng);
    const Chunks chunks = random_chunks(from, rng);
    SCOPED_TRACE(extents_string(from) + " " + label(chunks) + " -> " + extents_string(to));
    const A x = make_array<Backend>(ref, chunks);
    EXPECT_TRUE(matches(reshape(x, to).compute(), with_shape(ref, to)));
    const Chunks out = random_chunks(to, rng);
    EXPECT_TRUE(matches(reshape(x, to, out).compute(), with_shape(ref, to))) << label(out);
    EXPECT_TRUE(matches(reshape(reshape(x, to), from).compute(), ref));
  }
}

TEST_F(Reshape, WithChunksGivesExactlyThatGrid) {
  std::mt19937_64 rng(6);
  for (const Case& c : cases()) {
    const auto ref = random_dense<double>(c.from, rng);
    const auto want = with_shape(ref, c.to);
    const A x = make_array<Backend>(ref, random_chunks(c.from, rng));
    for (const auto& out_chunks : with_long_chunks(c.to)) {
      SCOPED_TRACE(extents_string(c.from) + " -> " + extents_string(c.to) + " " +
                   label(out_chunks));
      const A r = reshape(x, c.spec, out_chunks);
      EXPECT_EQ(r.chunks(), ChunkGrid(Shape(c.to), out_chunks.lengths()));
      EXPECT_TRUE(matches(r.compute(), want));
      EXPECT_TRUE(matches(x.reshape(Shape(c.to), out_chunks).compute(), want));
    }
  }
}

TEST_F(Reshape, TheLibrarysGridKeepsBlocksNearTheInputsSize) {
  const auto x = arange<double, Backend>(0.0, 24.0, 1.0, 6);
  const auto r = reshape(x, {4, -1});
  EXPECT_EQ(grid_of(r.chunks()), (Grid{{1, 1, 1, 1}, {6}})); // whole input blocks, no copies
  EXPECT_EQ(grid_of(reshape(r, {24}).chunks()), (Grid{{6, 6, 6, 6}}));
  const auto m = from_host<Backend>(to_ndarray(Dense<double>({6, 8})), Chunks{3, 8});
  EXPECT_EQ(grid_of(m.reshape({2, 3, 8}).chunks()), (Grid{{1, 1}, {3}, {8}}));
  EXPECT_EQ(grid_of(m.reshape({48}).chunks()), (Grid{{24, 24}}));
  // An axis the reshape keeps keeps its chunks; unit axes only make a view with x's chunks.
  const auto k = from_host<Backend>(to_ndarray(Dense<double>({5, 6})), Chunks{2, 4});
  EXPECT_EQ(grid_of(k.reshape({5, 2, 3}).chunks())[0], (std::vector<index_t>{2, 2, 1}));
  EXPECT_EQ(grid_of(k.reshape({1, 5, 6, 1}).chunks()), (Grid{{1}, {2, 2, 1}, {4, 2}, {1}}));
  for (const auto& r2 : {reshape(x, {2, 12}), reshape(x, {3, 2, 4})}) {
    std::int64_t biggest = 0;
    for (index_t b = 0; b < r2.chunks().numblocks(); ++b)
      biggest = std::max(biggest, r2.chunks().block_shape(r2.chunks().block_index(b)).size());
    EXPECT_LE(biggest, 6) << r2.chunks().to_string();
  }
}

TEST_F(Reshape, EmptyArraysAndOneElement) {
  for (const Case& c : std::vector<Case>{{{0, 3}, {3, 0}, {3, 0}},
                                         {{0, 3}, {-1}, {0}},
                                         {{0}, {0, 5}, {0, 5}},
                                         {{2, 0, 4}, {8, -1}, {8, 0}},
                                         {{1}, {}, {}},
                                         {{}, {1, 1}, {1, 1}},
                                         {{1, 1}, {-1}, {1}}}) {
    SCOPED_TRACE(extents_string(c.from) + " -> " + spec_string(c.spec));
    const auto ref =
        generate<double>(c.from, [](index_t i) { return 2.0 + static_cast<double>(i); });
    for (const auto& chunks : chunkings_for(c.from)) {
      const A r = reshape(make_array<Backend>(ref, chunks), c.spec);
      EXPECT_EQ(r.shape().extents(), c.to);
      EXPECT_TRUE(matches(r.compute(), with_shape(ref, c.to)));
      EXPECT_TRUE(matches(r.sum().compute(), ref_sum(with_shape(ref, c.to)), tight<double>()));
    }
  }
}

TEST_F(Reshape, OfRandomSlicedElementwiseAndTransposedInputs) {
  Generator gen(3);
  const auto g = gen.uniform<double, Backend>(Shape{6, 10}, Chunks{4, 3});
  const auto gd = from_ndarray(g.compute());
  EXPECT_TRUE(matches(reshape(g, {3, 20}).compute(), with_shape(gd, {3, 20})));
  EXPECT_TRUE(matches(reshape(g, {-1}).compute(), with_shape(gd, {60})));
  const auto sliced = g(slice(1, none, 2), slice(none, none, -3)); // (3, 4)
  const auto sd = from_ndarray(sliced.compute());
  EXPECT_TRUE(matches(reshape(sliced, {2, 6}).compute(), with_shape(sd, {2, 6})));
  const auto e = g * 2.0 + 1.0;
  const auto ed = from_ndarray(e.compute());
  EXPECT_TRUE(matches(reshape(e, {5, 12}).compute(), with_shape(ed, {5, 12})));
  const auto t = transpose(g); // (10, 6)
  const auto td = ref_transpose(gd, {1, 0});
  EXPECT_TRUE(matches(reshape(t, {60}).compute(), with_shape(td, {60})));
  EXPECT_TRUE(matches(reshape(t, {4, 15}).compute(), with_shape(td, {4, 15})));
  // A reshape's result is an input like any other: elementwise, sliced, reshaped again.
  const auto r = reshape(g, {12, 5});
  const auto rd = with_shape(gd, {12, 5});
  EXPECT_TRUE(matches(
      (r - r(slice(none, none, -1))).compute(),
      zip(rd, index(rd, {slice(none, none, -1)}), [](double a, double b) { return a - b; })));
  EXPECT_TRUE(matches(reshape(reshape(g, {15, 4}), {6, 10}).compute(), gd));
}

TEST_F(Reshape, ComposesWithReductionsAndPersist) {
  std::mt19937_64 rng(8);
  const auto ref = random_dense<double>({4, 6, 5}, rng, true);
  for (const auto& chunks : with_long_chunks({4, 6, 5})) {
    SCOPED_TRACE(label(chunks));
    const A x = make_array<Backend>(ref, chunks);
    const auto r = reshape(x, {24, 5});
    const auto rd = with_shape(ref, {24, 5});
    EXPECT_TRUE(matches(r.sum(Axes{0}).compute(), ref_sum(rd, {0}), tight<double>()));
    EXPECT_TRUE(matches(r.sum().compute(), ref_sum(rd), tight<double>()));
    EXPECT_TRUE(matches(reshape(x.sum(Axes{2}), {-1}).compute(),
                        with_shape(ref_sum(ref, {2}), {24}), tight<double>()));
    const auto p = reshape(x, {6, 20}).persist();
    EXPECT_TRUE(matches(p.compute(), with_shape(ref, {6, 20})));
    EXPECT_TRUE(matches(reshape(p, {120}).compute(), with_shape(ref, {120})));
    EXPECT_TRUE(matches(reshape(x.persist(), {10, 12}).compute(), with_shape(ref, {10, 12})));
  }
}

TEST_F(Reshape, IntegerAndBoolArrays) {
  std::mt19937_64 rng(9);
  const auto ri = random_dense<std::int32_t>({6, 4}, rng);
  const auto xi = make_array<Backend>(ri, Chunks{4, 3});
  EXPECT_TRUE(matches(reshape(xi, {8, 3}).compute(), with_shape(ri, {8, 3})));
  EXPECT_TRUE(
      matches(reshape(xi, {3, 8}).sum(Axes{1}).compute(), ref_sum(with_shape(ri, {3, 8}), {1})));
  const auto rb = random_dense<bool>({5, 3}, rng);
  const auto xb = make_array<Backend>(rb, Chunks{2, 2});
  EXPECT_TRUE(matches(reshape(xb, {3, 5}).compute(), with_shape(rb, {3, 5})));
}

TEST_F(Reshape, ConcatenateMatchesTheReferenceAlongEveryAxis) {
  std::mt19937_64 rng(10);
  const Extents base{4, 5, 3};
  for (index_t axis = -3; axis < 3; ++axis) {
    const index_t a = nonneg_axis(axis, 3);
    std::vector<Dense<double>> refs;
    std::vector<A> xs;
    for (index_t len : {2, 1, 4, 0, 3}) {
      Extents s = base;
      s[static_cast<std::size_t>(a)] = len;
      refs.push_back(random_dense<double>(s, rng));
      xs.push_back(make_array<Backend>(refs.back(), random_chunks(s, rng)));
    }
    SCOPED_TRACE("axis " + std::to_string(axis));
    const A c = concatenate(xs, axis);
    const auto want = ref_concatenate(refs, a);
    EXPECT_EQ(c.shape().extents(), want.shape());
    EXPECT_TRUE(matches(c.compute(), want));
    // Along the axis, the operands' chunks in order (the empty one adds none).
    std::vector<index_t> along;
    for (const A& x : xs)
      if (x.shape()[a] > 0)
        for (index_t l : x.chunks().lengths(a))
          along.push_back(l);
    EXPECT_EQ(c.chunks().lengths(a), along);
    EXPECT_TRUE(matches(concatenate({xs[0], xs[2]}, axis).sum(Axes{a}).compute(),
                        ref_sum(ref_concatenate<double>({refs[0], refs[2]}, a), {a}),
                        tight<double>()));
  }
}

TEST_F(Reshape, ConcatenateUnderEveryChunkingAndOfLazyInputs) {
  std::mt19937_64 rng(12);
  const auto ra = random_dense<double>({3, 7}, rng), rb = random_dense<double>({5, 7}, rng);
  for (const auto& ca : with_long_chunks({3, 7}))
    for (const auto& cb : with_long_chunks({5, 7})) {
      SCOPED_TRACE(label(ca) + " " + label(cb));
      const A a = make_array<Backend>(ra, ca), b = make_array<Backend>(rb, cb);
      EXPECT_TRUE(matches(concatenate({a, b}, 0).compute(), ref_concatenate<double>({ra, rb}, 0)));
      EXPECT_TRUE(
          matches(concatenate({b, a, b}, -2).compute(), ref_concatenate<double>({rb, ra, rb}, 0)));
    }
  Generator gen(4);
  const auto g = gen.normal<double, Backend>(Shape{3, 7}, Chunks{2, 3});
  const auto gd = from_ndarray(g.compute());
  const A b = make_array<Backend>(rb, Chunks{2, 2});
  const auto mixed = concatenate({g * 3.0, transpose(b)(slice(0, 3), all)}, 1); // (3, 12)
  const auto tb = index(ref_transpose(rb, {1, 0}), {slice(0, 3)});
  EXPECT_TRUE(matches(mixed.compute(),
                      ref_concatenate<double>({map(gd, [](double v) { return v * 3.0; }), tb}, 1)));
  EXPECT_TRUE(matches(
      reshape(mixed, {-1}).compute(),
      with_shape(ref_concatenate<double>({map(gd, [](double v) { return v * 3.0; }), tb}, 1),
                 {36})));
  // One array is returned as it is.
  EXPECT_EQ(concatenate({g}, 0).node(), g.node());
}

TEST_F(Reshape, StackAddsAnAxisOfOneBlockPerArray) {
  std::mt19937_64 rng(13);
  std::vector<Dense<double>> refs;
  std::vector<A> xs;
  for (int j = 0; j < 3; ++j) {
    refs.push_back(random_dense<double>({4, 5}, rng));
    xs.push_back(make_array<Backend>(refs.back(), random_chunks({4, 5}, rng)));
  }
  for (index_t axis = -3; axis <= 2; ++axis) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    const index_t a = nonneg_axis(axis, 3);
    const A s = stack(xs, axis);
    EXPECT_TRUE(matches(s.compute(), ref_stack(refs, a)));
    EXPECT_EQ(s.chunks().lengths(a), (std::vector<index_t>{1, 1, 1}));
    EXPECT_TRUE(matches(stack({xs[1], xs[0]}, axis).sum(Axes{a}).compute(),
                        ref_sum(ref_stack<double>({refs[1], refs[0]}, a), {a}), tight<double>()));
  }
  const auto e = from_host<Backend>(to_ndarray(Dense<double>({0, 2})), Chunks{1, 1});
  EXPECT_EQ(stack({e, e}, 1).shape(), (Shape{0, 2, 2}));
  EXPECT_TRUE(matches(stack({e, e}, 1).compute(), Dense<double>({0, 2, 2})));
}

TEST_F(Reshape, BadArgumentsRaiseTheRightError) {
  const A x = make_array<Backend>(Dense<double>({4, 6}), Chunks{2, 3});
  expect_error<ValueError>([&] { (void)reshape(x, {-1, -1}); }, {"reshape", "more than one -1"});
  expect_error<ValueError>([&] { (void)reshape(x, {-2, 12}); }, {"reshape", "-2", "negative"});
  expect_error<ValueError>([&] { (void)x.reshape({2, -3, 4}); }, {"reshape", "-3"});
  expect_error<ShapeError>([&] { (void)reshape(x, {5, 5}); }, {"reshape", "(4, 6)", "(5, 5)"});
  expect_error<ShapeError>([&] { (void)reshape(x, {5, -1}); }, {"reshape", "24", "multiple of 5"});
  expect_error<ShapeError>([&] { (void)reshape(x, std::vector<index_t>{}); }, {"reshape"});
  const A empty = make_array<Backend>(Dense<double>({0, 3}), Chunks{1, 3});
  expect_error<ShapeError>(
      [&] {
        (void)reshape(empty, {0, -1});
      },
      {"reshape", "cannot be inferred"});
  expect_error<ShapeError>([&] { (void)reshape(x, Shape{3, 4}); }, {"reshape", "(3, 4)"});
  expect_error<ShapeError>([&] { (void)reshape(x, {24}, Chunks{2, 2}); }, {"chunk"});
  expect_error<ValueError>([&] { (void)reshape(x, {24}, Chunks{0}); }, {"chunk length 0"});
  expect_error<ShapeError>([&] { (void)reshape(x, {1 << 30, 1 << 30, 1 << 30}); }, {"reshape"});

  const A y = make_array<Backend>(Dense<double>({4, 5}), Chunks{2, 2});
  expect_error<ValueError>([&] { (void)concatenate(std::vector<A>{}, 0); },
                           {"concatenate", "at least one"});
  expect_error<ShapeError>(
      [&] {
        (void)concatenate({x, y}, 0);
      },
      {"concatenate", "(4, 5)", "(4, 6)", "axis 0"});
  expect_error<ShapeError>(
      [&] {
        (void)concatenate({x, reshape(x, {24})}, 0);
      },
      {"concatenate", "(24,)"});
  expect_error<IndexError>([&] { (void)concatenate({x, x}, 2); }, {"concatenate", "axis 2"});
  expect_error<IndexError>([&] { (void)concatenate({x, x}, -3); }, {"concatenate", "-3"});
  const A scalar = make_array<Backend>(Dense<double>(Extents{}), Chunks{});
  expect_error<ValueError>(
      [&] {
        (void)concatenate({scalar, scalar}, 0);
      },
      {"concatenate", "rank 0"});
  expect_error<ValueError>([&] { (void)stack(std::vector<A>{}, 0); }, {"stack", "at least one"});
  expect_error<ShapeError>([&] { (void)stack({x, y}, 0); }, {"stack", "(4, 5)", "(4, 6)"});
  expect_error<IndexError>([&] { (void)stack({x, x}, 3); }, {"stack", "axis 3"});
  expect_error<IndexError>([&] { (void)stack({x, x}, -4); }, {"stack", "-4"});
}

} // namespace
} // namespace chunked::test
