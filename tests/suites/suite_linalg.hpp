// SPDX-License-Identifier: Apache-2.0
// Linear algebra suite: matmul, dot and tensordot against naive host loops under many chunkings
// of both operands (exactly, on values whose products and sums are exact in float), batch axes
// that broadcast, vector operands, empty axes, NaN and infinity, mixed element types, composition
// with elementwise operations, views, reductions and persist, determinism over thread counts, and
// bad input.
#pragma once

#include "support/backend.hpp"
#include "support/errors.hpp"
#include "support/reference.hpp"
#include "support/reference_shape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunked::test {
namespace {

using Linalg = BackendTest;

template <class T> class LinalgTyped : public TypedBackendTest<T> {};
using LinalgTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(LinalgTyped, LinalgTypes);

/// Multiples of 1/8 in [-2, 2]: a product is a multiple of 1/64 of magnitude at most 4, so sums
/// of the few dozen terms here stay exact in float, and every chunking (every order of the
/// partial sums) must give the reference's values bit for bit.
template <class T> Dense<T> eighths(const Extents& shape, std::mt19937_64& rng) {
  return generate<T>(shape, [&](index_t) {
    return static_cast<double>(static_cast<std::int64_t>(rng() % 33) - 16) / 8.0;
  });
}

/// NumPy's matmul, written from its documentation: a 1-D a is a row and a 1-D b a column, those
/// axes then dropped; batch axes broadcast. Sums in long double, rounded once.
template <class T> Dense<T> ref_matmul(const Dense<T>& a, const Dense<T>& b) {
  const Extents as = a.ndim() == 1 ? Extents{1, a.shape()[0]} : a.shape();
  const Extents bs = b.ndim() == 1 ? Extents{b.shape()[0], 1} : b.shape();
  const Dense<T> a2 = with_shape(a, as), b2 = with_shape(b, bs);
  const Extents batch =
      broadcast_extents(Extents(as.begin(), as.end() - 2), Extents(bs.begin(), bs.end() - 2));
  const index_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  Extents full = batch;
  full.push_back(m);
  full.push_back(n);
  const Dense<T> out = generate<T>(full, [&](index_t flat) {
    Extents ia = unravel(flat, full), ib = ia;
    long double s = 0;
    for (index_t l = 0; l < k; ++l) {
      ia.back() = l;
      ib[ib.size() - 2] = l;
      s += static_cast<long double>(broadcast_read(a2, ia)) *
           static_cast<long double>(broadcast_read(b2, ib));
    }
    return static_cast<T>(s);
  });
  Extents shape = batch;
  if (a.ndim() != 1)
    shape.push_back(m);
  if (b.ndim() != 1)
    shape.push_back(n);
  return with_shape(out, shape);
}

/// NumPy's tensordot with axis lists (non-negative here): the result's axes are a's free axes in
/// order, then b's; each element sums over the contracted multi-index in C order.
template <class T>
Dense<T> ref_tensordot(const Dense<T>& a, const Dense<T>& b, const Extents& axes_a,
                       const Extents& axes_b) {
  auto free_axes = [](const Dense<T>& x, const Extents& contracted) {
    Extents out;
    for (index_t d = 0; d < x.ndim(); ++d)
      if (std::find(contracted.begin(), contracted.end(), d) == contracted.end())
        out.push_back(d);
    return out;
  };
  const Extents fa = free_axes(a, axes_a), fb = free_axes(b, axes_b);
  Extents shape, inner;
  for (index_t d : fa)
    shape.push_back(a.shape()[static_cast<std::size_t>(d)]);
  for (index_t d : fb)
    shape.push_back(b.shape()[static_cast<std::size_t>(d)]);
  for (index_t d : axes_a)
    inner.push_back(a.shape()[static_cast<std::size_t>(d)]);
  return generate<T>(shape, [&](index_t flat) {
    const Extents o = unravel(flat, shape);
    Extents ia(a.shape().size()), ib(b.shape().size());
    for (std::size_t j = 0; j < fa.size(); ++j)
      ia[static_cast<std::size_t>(fa[j])] = o[j];
    for (std::size_t j = 0; j < fb.size(); ++j)
      ib[static_cast<std::size_t>(fb[j])] = o[fa.size() + j];
    long double s = 0;
    for (index_t c = 0; c < numel(inner); ++c) {
      const Extents ci = unravel(c, inner);
      for (std::size_t j = 0; j < ci.size(); ++j) {
        ia[static_cast<std::size_t>(axes_a[j])] = ci[j];
        ib[static_cast<std::size_t>(axes_b[j])] = ci[j];
      }
      s += static_cast<long double>(a.at(ia)) * static_cast<long double>(b.at(ib));
    }
    return static_cast<T>(s);
  });
}

/// The chunkings of chunkings_for, and two more (3 and 4 or 5 along the last two axes, so that
/// a's contracted chunks differ from b's), clipped to the extents.
std::vector<Chunks> product_chunkings(const Extents& shape, bool left) {
  auto out = chunkings_for(shape);
  Extents c(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const index_t want = d + 1 == shape.size() ? (left ? 3 : 5) : (left ? 2 : 4);
    c[d] = std::max<index_t>(1, std::min(want, shape[d]));
  }
  out.push_back(Chunks(c));
  return out;
}

struct MatmulCase {
  index_t m, k, n;
};

TYPED_TEST(LinalgTyped, MatmulIsExactUnderEveryChunkingOfBothOperands) {
  using T = TypeParam;
  std::mt19937_64 rng(11);
  for (const MatmulCase c :
       {MatmulCase{5, 7, 6}, MatmulCase{1, 4, 3}, MatmulCase{4, 1, 5}, MatmulCase{3, 6, 1},
        MatmulCase{1, 1, 1}, MatmulCase{2, 9, 4}, MatmulCase{6, 12, 5}}) {
    const auto ra = eighths<T>({c.m, c.k}, rng), rb = eighths<T>({c.k, c.n}, rng);
    const auto want = ref_matmul(ra, rb);
    for (const auto& ca : product_chunkings(ra.shape(), true))
      for (const auto& cb : product_chunkings(rb.shape(), false)) {
        SCOPED_TRACE(extents_string(ra.shape()) + " @ " + extents_string(rb.shape()) + " a " +
                     label(ca) + " b " + label(cb));
        const auto p = matmul(make_array<Backend>(ra, ca), make_array<Backend>(rb, cb));
        static_assert(std::is_same_v<typename decltype(p)::value_type, T>);
        EXPECT_EQ(p.shape().extents(), (Extents{c.m, c.n}));
        const auto got = p.compute();
        ASSERT_EQ(got.shape().extents(), want.shape());
        for (index_t i = 0; i < want.size(); ++i)
          EXPECT_EQ(got.data()[i], want[i]) << "at " << extents_string(unravel(i, want.shape()));
      }
  }
}

TYPED_TEST(LinalgTyped, MatmulOfNormalDataIsCloseToTheReference) {
  using T = TypeParam;
  Generator g(12);
  const auto a = g.normal<T, Backend>(Shape{37, 29}, Chunks{8, 7});
  const auto b = g.normal<T, Backend>(Shape{29, 23}, Chunks{5, 6});
  const auto want = ref_matmul(from_ndarray(a.compute()), from_ndarray(b.compute()));
  const Tolerance tol = std::is_same_v<T, float> ? Tolerance{1e-5, 1e-4} : Tolerance{1e-12, 1e-12};
  EXPECT_TRUE(matches(matmul(a, b).compute(), want, tol));
}

TYPED_TEST(LinalgTyped, BatchAxesBroadcastAndHaveTheirOwnChunks) {
  using T = TypeParam;
  std::mt19937_64 rng(13);
  const std::vector<std::pair<Extents, Extents>> cases = {{{2, 1, 3, 4}, {5, 4, 2}},
                                                          {{3, 4, 5}, {5, 2}},
                                                          {{4, 3, 5}, {4, 5, 2}},
                                                          {{1, 3, 4}, {6, 4, 2}},
                                                          {{2, 3, 4}, {1, 4, 3}}};
  for (const auto& [sa, sb] : cases) {
    const auto ra = eighths<T>(sa, rng), rb = eighths<T>(sb, rng);
    const auto want = ref_matmul(ra, rb);
    auto chunkings_a = chunkings_for(sa), chunkings_b = chunkings_for(sb);
    for (int trial = 0; trial < 3; ++trial) {
      chunkings_a.push_back(random_chunks(sa, rng));
      chunkings_b.push_back(random_chunks(sb, rng));
    }
    for (const auto& ca : chunkings_a)
      for (const auto& cb : chunkings_b) {
        SCOPED_TRACE(extents_string(sa) + " @ " + extents_string(sb) + " a " + label(ca) + " b " +
                     label(cb));
        const auto p = matmul(make_array<Backend>(ra, ca), make_array<Backend>(rb, cb));
        EXPECT_EQ(p.shape().extents(), want.shape());
        EXPECT_TRUE(matches(p.compute(), want));
      }
  }
}

TYPED_TEST(LinalgTyped, VectorOperandsLoseTheirAxis) {
  using T = TypeParam;
  std::mt19937_64 rng(14);
  // (k) @ (k, n) -> (n); (m, k) @ (k) -> (m); (b, m, k) @ (k) -> (b, m); (k) @ (b, k, n) -> (b, n).
  const std::vector<std::pair<Extents, Extents>> cases = {
      {{7}, {7, 5}}, {{4, 7}, {7}}, {{3, 4, 7}, {7}}, {{7}, {2, 7, 5}}, {{1}, {1, 3}}};
  for (const auto& [sa, sb] : cases) {
    const auto ra = eighths<T>(sa, rng), rb = eighths<T>(sb, rng);
    const auto want = ref_matmul(ra, rb);
    for (const auto& ca : product_chunkings(sa, true))
      for (const auto& cb : product_chunkings(sb, false)) {
        SCOPED_TRACE(extents_string(sa) + " @ " + extents_string(sb) + " a " + label(ca) + " b " +
                     label(cb));
        EXPECT_TRUE(matches(
            matmul(make_array<Backend>(ra, ca), make_array<Backend>(rb, cb)).compute(), want));
      }
  }
  // (k) @ (k): a 0-d array.
  const auto u = eighths<T>({11}, rng), v = eighths<T>({11}, rng);
  const T want = ref_matmul(u, v)[0];
  for (const auto& cu : product_chunkings({11}, true))
    for (const auto& cv : product_chunkings({11}, false)) {
      SCOPED_TRACE("a " + label(cu) + " b " + label(cv));
      const auto p = matmul(make_array<Backend>(u, cu), make_array<Backend>(v, cv));
      EXPECT_EQ(p.ndim(), 0);
      EXPECT_EQ(p.item(), want);
    }
}

TEST_F(Linalg, AnEmptyContractedAxisGivesZerosAndAnEmptyFreeAxisAnEmptyResult) {
  for (const auto& [sa, sb] : std::vector<std::pair<Extents, Extents>>{
           {{3, 0}, {0, 4}}, {{2, 3, 0}, {0, 4}}, {{0}, {0, 5}}, {{3, 0}, {0}}}) {
    const auto want = ref_matmul(Dense<double>(sa, 1.0), Dense<double>(sb, 1.0));
    for (const auto& ca : chunkings_for(sa)) {
      SCOPED_TRACE(extents_string(sa) + " @ " + extents_string(sb) + " " + label(ca));
      const auto p =
          matmul(make_array<Backend>(Dense<double>(sa, 1.0), ca),
                 make_array<Backend>(Dense<double>(sb, 1.0), Chunks(Extents(sb.size(), 2))));
      EXPECT_EQ(p.shape().extents(), want.shape());
      EXPECT_TRUE(matches(p.compute(), Dense<double>(want.shape())));
      EXPECT_EQ(p.sum().item(), 0.0);
    }
  }
  const auto dot0 = matmul(zeros<float, Backend>(Shape{0}, Chunks{3}),
                           zeros<float, Backend>(Shape{0}, Chunks{1}));
  EXPECT_EQ(dot0.ndim(), 0);
  EXPECT_EQ(dot0.item(), 0.0f);
  for (const auto& [sa, sb, out] :
       std::vector<std::tuple<Extents, Extents, Extents>>{{{0, 5}, {5, 3}, {0, 3}},
                                                          {{4, 5}, {5, 0}, {4, 0}},
                                                          {{0, 2, 3}, {3, 4}, {0, 2, 4}},
                                                          {{2, 3}, {0, 3, 4}, {0, 2, 4}},
                                                          {{0, 5}, {5}, {0}}}) {
    SCOPED_TRACE(extents_string(sa) + " @ " + extents_string(sb));
    const auto p =
        matmul(make_array<Backend>(Dense<double>(sa, 1.0), Chunks(Extents(sa.size(), 2))),
               make_array<Backend>(Dense<double>(sb, 1.0), Chunks(Extents(sb.size(), 3))));
    EXPECT_EQ(p.shape().extents(), out);
    EXPECT_EQ(p.compute().size(), 0);
  }
}

TEST_F(Linalg, NaNAndInfinityPropagateAsInIEEEArithmetic) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::mt19937_64 rng(15);
  auto ra = eighths<double>({3, 4}, rng);
  auto rb = eighths<double>({4, 5}, rng);
  ra[1 * 4 + 2] = nan; // row 1 of the result: NaN whatever b holds (NaN * 0 is NaN too)
  ra[2 * 4 + 0] = inf; // row 2: inf * b(0, j), NaN where that is 0
  rb[0 * 5 + 1] = 0.0;
  rb[0 * 5 + 3] = 0.5;
  const auto want = ref_matmul(ra, rb);
  for (const auto& ca : product_chunkings(ra.shape(), true))
    for (const auto& cb : product_chunkings(rb.shape(), false)) {
      SCOPED_TRACE("a " + label(ca) + " b " + label(cb));
      const auto a = make_array<Backend>(ra, ca), b = make_array<Backend>(rb, cb);
      const auto got = matmul(a, b).compute();
      EXPECT_TRUE(matches(got, want));
      for (index_t j = 0; j < 5; ++j)
        EXPECT_TRUE(std::isnan(got(1, j))) << "column " << j;
      EXPECT_TRUE(std::isnan(got(2, 1)));
      EXPECT_TRUE(std::isinf(got(2, 3)));
      EXPECT_TRUE(matches(matmul(a.astype<float>(), b.astype<float>()).compute(),
                          ref_matmul(cast<float>(ra), cast<float>(rb))));
    }
}

TYPED_TEST(LinalgTyped, DotFollowsNumPy) {
  using T = TypeParam;
  std::mt19937_64 rng(16);
  struct Case {
    Extents a, b, axes_a, axes_b; // dot(a, b) = tensordot(a, b, {axes_a, axes_b})
  };
  const std::vector<Case> cases = {{{7}, {7}, {0}, {0}},          {{4, 6}, {6, 3}, {1}, {0}},
                                   {{2, 3, 4}, {4}, {2}, {0}},    {{2, 3, 4}, {5, 4, 6}, {2}, {1}},
                                   {{3, 4}, {2, 4, 5}, {1}, {1}}, {{4}, {2, 4, 5}, {0}, {1}},
                                   {{5, 4}, {4}, {1}, {0}},       {{1, 3, 2}, {2, 1}, {2}, {0}}};
  for (const Case& c : cases) {
    const auto ra = eighths<T>(c.a, rng), rb = eighths<T>(c.b, rng);
    const auto want = ref_tensordot(ra, rb, c.axes_a, c.axes_b);
    const auto chunkings_a = product_chunkings(c.a, true);
    const auto chunkings_b = product_chunkings(c.b, false);
    for (std::size_t j = 0; j < std::max(chunkings_a.size(), chunkings_b.size()); ++j) {
      const Chunks& ca = chunkings_a[j % chunkings_a.size()];
      const Chunks& cb = chunkings_b[(j + 1) % chunkings_b.size()];
      SCOPED_TRACE(extents_string(c.a) + " . " + extents_string(c.b) + " a " + label(ca) + " b " +
                   label(cb));
      const auto d = dot(make_array<Backend>(ra, ca), make_array<Backend>(rb, cb));
      EXPECT_EQ(d.shape().extents(), want.shape());
      EXPECT_TRUE(matches(d.compute(), want));
    }
  }
}

/// f()'s verdict, or a failure naming the exception it threw: a case that throws then leaves the
/// test's other cases to run.
template <class F>::testing::AssertionResult checked(F f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw: " << e.what();
  }
}

TYPED_TEST(LinalgTyped, DotWithA0dOperandMultipliesElementwise) {
  using T = TypeParam;
  std::mt19937_64 rng(22);
  const auto rm = eighths<T>({3, 4}, rng);
  const auto m = make_array<Backend>(rm, Chunks{2, 3});
  const auto s = full<T, Backend>(Shape{}, Chunks{}, T(2.5));
  const auto scaled = map(rm, [](T v) { return static_cast<T>(v * T(2.5)); });
  EXPECT_TRUE(checked([&] { return matches(dot(s, m).compute(), scaled); }));
  EXPECT_TRUE(checked([&] { return matches(dot(m, s).compute(), scaled); }));
  EXPECT_TRUE(checked([&] {
    const T got = dot(s, s).item();
    return ::testing::AssertionResult(got == T(6.25)) << "got " << value_string(got);
  }));
}

TYPED_TEST(LinalgTyped, TensordotWithAxisListsAndIntegerAxes) {
  using T = TypeParam;
  std::mt19937_64 rng(17);
  const auto ra = eighths<T>({3, 4, 5}, rng), rb = eighths<T>({4, 3, 2}, rng);
  const auto want = ref_tensordot(ra, rb, {0, 1}, {1, 0});
  for (const auto& ca : chunkings_for(ra.shape()))
    for (const auto& cb : chunkings_for(rb.shape())) {
      SCOPED_TRACE("a " + label(ca) + " b " + label(cb));
      const auto a = make_array<Backend>(ra, ca), b = make_array<Backend>(rb, cb);
      const auto t = tensordot(a, b, {{0, 1}, {1, 0}});
      EXPECT_EQ(t.shape().extents(), (Extents{5, 2}));
      EXPECT_TRUE(matches(t.compute(), want));
      EXPECT_TRUE(matches(tensordot(a, b, {{-3, -2}, {-2, -3}}).compute(), want));
      EXPECT_TRUE(matches(tensordot(a, b, {{1, 0}, {0, 1}}).compute(), want));
    }
  const auto rc = eighths<T>({4, 5, 3}, rng), rd = eighths<T>({5, 2}, rng);
  const auto re = eighths<T>({2, 3}, rng), rf = eighths<T>({3, 4}, rng);
  const auto c = make_array<Backend>(rc, Chunks{3, 2, 2});
  const auto d = make_array<Backend>(rd, Chunks{3, 1});
  const auto e = make_array<Backend>(re, Chunks{1, 2});
  const auto f = make_array<Backend>(rf, Chunks{2, 3});
  const auto x = make_array<Backend>(ra, Chunks{2, 3, 4});
  // The default is 2: a's last two axes against c's first two.
  EXPECT_TRUE(matches(tensordot(x, c).compute(), ref_tensordot(ra, rc, {1, 2}, {0, 1})));
  EXPECT_TRUE(matches(tensordot(x, d, 1).compute(), ref_tensordot(ra, rd, {2}, {0})));
  const auto outer = tensordot(e, x, 0);
  EXPECT_EQ(outer.shape().extents(), (Extents{2, 3, 3, 4, 5}));
  EXPECT_TRUE(matches(outer.compute(), ref_tensordot(re, ra, {}, {})));
  EXPECT_TRUE(matches(tensordot(e, f, 1).compute(), ref_matmul(re, rf)));
  EXPECT_TRUE(matches(tensordot(e, f, {{1}, {0}}).compute(), ref_matmul(re, rf)));
  EXPECT_TRUE(matches(tensordot(e, f, {{-1}, {-2}}).compute(), ref_matmul(re, rf)));
  // Every axis contracted: a 0-d result.
  const auto all = tensordot(x, x, 3);
  EXPECT_EQ(all.ndim(), 0);
  EXPECT_EQ(all.item(), ref_tensordot(ra, ra, {0, 1, 2}, {0, 1, 2})[0]);
}

TEST_F(Linalg, FloatWithDoubleGivesDouble) {
  std::mt19937_64 rng(18);
  const auto rf = eighths<float>({4, 5}, rng);
  const auto rd = eighths<double>({5, 3}, rng);
  const auto f = make_array<Backend>(rf, Chunks{3, 2});
  const auto d = make_array<Backend>(rd, Chunks{4, 2});
  const auto p = matmul(f, d);
  const auto q = matmul(d.transpose(), f.transpose());
  static_assert(std::is_same_v<typename decltype(p)::value_type, double>);
  static_assert(std::is_same_v<typename decltype(q)::value_type, double>);
  static_assert(std::is_same_v<typename decltype(dot(f, d))::value_type, double>);
  static_assert(std::is_same_v<typename decltype(tensordot(d, f, 1))::value_type, double>);
  static_assert(std::is_same_v<typename decltype(matmul(f, f.transpose()))::value_type, float>);
  const auto want = ref_matmul(cast<double>(rf), rd);
  EXPECT_TRUE(matches(p.compute(), want));
  EXPECT_TRUE(matches(q.compute(), ref_transpose(want, {1, 0})));
  EXPECT_TRUE(matches(dot(f, d).compute(), want));
}

TEST_F(Linalg, ComposesWithElementwiseOperationsViewsAndReductions) {
  std::mt19937_64 rng(19);
  const auto rx = eighths<double>({6, 5}, rng), ry = eighths<double>({4, 5}, rng);
  const auto rz = eighths<double>({5, 3}, rng);
  for (const auto& cx : chunkings_for(rx.shape())) {
    SCOPED_TRACE(label(cx));
    const auto x = make_array<Backend>(rx, cx);
    const auto y = make_array<Backend>(ry, Chunks{3, 2});
    const auto z = make_array<Backend>(rz, Chunks{2, 2});
    // An elementwise operand and a transposed one.
    const auto affine = map(rx, [](double v) { return v * 2.0 + 1.0; });
    EXPECT_TRUE(matches(matmul(x * 2.0 + 1.0, y.transpose()).compute(),
                        ref_matmul(affine, ref_transpose(ry, {1, 0}))));
    // A sliced operand with a negative step.
    const auto sliced = index(rx, {slice(1, none, 2), slice(none, none, -1)});
    EXPECT_TRUE(matches(matmul(x(slice(1, none, 2), slice(none, none, -1)), z).compute(),
                        ref_matmul(sliced, rz)));
    // Reductions of a product, and a product of a product.
    const auto want = ref_matmul(rx, rz);
    const auto p = matmul(x, z);
    EXPECT_EQ(p.sum().item(), ref_sum(want)[0]);
    EXPECT_TRUE(matches(p.sum(Axes{0}).compute(), ref_sum(want, {0})));
    EXPECT_TRUE(
        matches(matmul(p, p.transpose()).compute(), ref_matmul(want, ref_transpose(want, {1, 0}))));
    // The same product read twice in one graph, and by three results of one computation.
    const auto twice = map(want, [](double v) { return v + v * 0.5; });
    EXPECT_TRUE(matches((p + p * 0.5).compute(), twice));
    const auto [g0, g1, g2] = compute(ComputeOptions{}, p, p.sum(Axes{1}), p - 1.0);
    EXPECT_TRUE(matches(g0, want));
    EXPECT_TRUE(matches(g1, ref_sum(want, {1})));
    EXPECT_TRUE(matches(g2, map(want, [](double v) { return v - 1.0; })));
  }
}

/// The bit patterns of a double result, element by element.
std::vector<std::uint64_t> bit_patterns(const NDArray<double>& a) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(a.size()));
  for (index_t i = 0; i < a.size(); ++i)
    std::memcpy(&out[static_cast<std::size_t>(i)], &a.data()[i], sizeof(double));
  return out;
}

TEST_F(Linalg, BitwiseTheSameOnOneAndOnFourThreads) {
  Generator g(20);
  const auto x = g.normal<double, Backend>(Shape{60, 50}, Chunks{7, 11});
  const auto y = g.normal<double, Backend>(Shape{50, 40}, Chunks{13, 9});
  const auto s = g.normal<double, Backend>(Shape{3, 20, 30}, Chunks{2, 7, 8});
  const auto t = g.normal<double, Backend>(Shape{30, 10}, Chunks{9, 4});
  const auto f = g.normal<float, Backend>(Shape{40, 45}, Chunks{6, 10});
  auto run = [&](const ComputeOptions& options) {
    return compute(options, matmul(x, y), matmul(s, t), dot(x, y).sum(Axes{0}),
                   tensordot(s, t, {{2}, {0}}), matmul(f, f.transpose()));
  };
  const auto one = run(options_with(Scheduler::threads, 1));
  for (int repeat = 0; repeat < 2; ++repeat) {
    SCOPED_TRACE("repeat " + std::to_string(repeat));
    const auto four = run(options_with(Scheduler::threads, 4));
    EXPECT_EQ(bit_patterns(std::get<0>(four)), bit_patterns(std::get<0>(one)));
    EXPECT_EQ(bit_patterns(std::get<1>(four)), bit_patterns(std::get<1>(one)));
    EXPECT_EQ(bit_patterns(std::get<2>(four)), bit_patterns(std::get<2>(one)));
    EXPECT_EQ(bit_patterns(std::get<3>(four)), bit_patterns(std::get<3>(one)));
    EXPECT_TRUE(bitwise_equal(std::get<4>(four), std::get<4>(one)));
  }
  const auto single = run(options_with(Scheduler::single_threaded));
  EXPECT_EQ(bit_patterns(std::get<0>(single)), bit_patterns(std::get<0>(one)));
  EXPECT_TRUE(bitwise_equal(std::get<4>(single), std::get<4>(one)));
}

TEST_F(Linalg, OperandsInBorrowedHostMemoryAreReadInPlace) {
  std::mt19937_64 rng(23);
  const auto ra = eighths<double>({9, 7}, rng), rb = eighths<double>({7, 6}, rng);
  const auto want = ref_matmul(ra, rb);
  for (const auto& ca : chunkings_for(ra.shape())) {
    SCOPED_TRACE(label(ca));
    const auto a = from_host_view<Backend>(std::span<const double>(ra.values()), Shape{9, 7}, ca);
    const auto b =
        from_host_view<Backend>(std::span<const double>(rb.values()), Shape{7, 6}, Chunks{3, 4});
    EXPECT_TRUE(matches(matmul(a, b).compute(), want));
    EXPECT_TRUE(
        matches(matmul(a, a.transpose()).compute(), ref_matmul(ra, ref_transpose(ra, {1, 0}))));
  }
}

TEST_F(Linalg, APersistedProductIsUsedAgain) {
  std::mt19937_64 rng(21);
  const auto ra = eighths<double>({7, 6}, rng), rb = eighths<double>({6, 5}, rng);
  const auto rc = eighths<double>({5, 4}, rng);
  const auto want = ref_matmul(ra, rb);
  for (const auto& ca : chunkings_for(ra.shape())) {
    SCOPED_TRACE(label(ca));
    const auto p =
        matmul(make_array<Backend>(ra, ca), make_array<Backend>(rb, Chunks{4, 2})).persist();
    EXPECT_TRUE(matches(p.compute(), want));
    EXPECT_TRUE(matches(p.compute(), want)); // a second read of the same blocks
    EXPECT_TRUE(matches((p * 2.0).compute(), map(want, [](double v) { return v * 2.0; })));
    EXPECT_TRUE(
        matches(matmul(p, make_array<Backend>(rc, Chunks{3, 3})).compute(), ref_matmul(want, rc)));
    EXPECT_EQ(p.sum().item(), ref_sum(want)[0]);
  }
}

TEST_F(Linalg, BadShapesAreShapeErrorsNamingBothShapes) {
  const auto a = zeros<double, Backend>(Shape{2, 3}, Chunks{2, 2});
  const auto b = zeros<double, Backend>(Shape{4, 5}, Chunks{2, 2});
  expect_error<ShapeError>([&] { (void)matmul(a, b); }, {"matmul", "(2, 3)", "(4, 5)"});
  expect_error<ShapeError>([&] { (void)dot(a, b); }, {"(2, 3)", "(4, 5)"});
  expect_error<ShapeError>(
      [&] {
        (void)tensordot(a, b, {{1}, {0}});
      },
      {"tensordot", "(2, 3)", "(4, 5)"});
  expect_error<ShapeError>([&] { (void)tensordot(a, b, 1); }, {"tensordot", "(2, 3)", "(4, 5)"});
  const auto u = zeros<double, Backend>(Shape{3}, Chunks{2});
  const auto v = zeros<double, Backend>(Shape{4}, Chunks{2});
  expect_error<ShapeError>([&] { (void)matmul(u, v); }, {"(3,)", "(4,)"});
  expect_error<ShapeError>([&] { (void)matmul(b, u); }, {"(4, 5)", "(3,)"});
  // Batch shapes (2) and (3) do not broadcast.
  const auto s = zeros<double, Backend>(Shape{2, 3, 4}, Chunks{1, 2, 2});
  const auto t = zeros<double, Backend>(Shape{3, 4, 5}, Chunks{1, 2, 2});
  expect_error<ShapeError>([&] { (void)matmul(s, t); }, {"matmul", "(2, 3, 4)", "(3, 4, 5)"});
}

TEST_F(Linalg, BadArgumentsAreValueAndIndexErrors) {
  const auto m = zeros<double, Backend>(Shape{3, 3, 2}, Chunks{2, 2, 2});
  const auto n = zeros<double, Backend>(Shape{3, 3}, Chunks{2, 2});
  const auto scalar = full<double, Backend>(Shape{}, Chunks{}, 2.0);
  expect_error<ValueError>([&] { (void)matmul(scalar, n); }, {"matmul"});
  expect_error<ValueError>([&] { (void)matmul(n, scalar); }, {"matmul"});
  expect_error<ValueError>([&] { (void)matmul(scalar, scalar); }, {"matmul"});
  expect_error<ValueError>([&] { (void)tensordot(m, n, {{0, 1}, {0}}); }, {"tensordot"});
  expect_error<ValueError>([&] { (void)tensordot(m, n, {{0, 0}, {0, 1}}); }, {"tensordot"});
  expect_error<ValueError>([&] { (void)tensordot(m, n, {{0, 1}, {1, 1}}); }, {"tensordot"});
  expect_error<ValueError>([&] { (void)tensordot(m, n, {{0, -3}, {0, 1}}); }, {"tensordot"});
  expect_error<IndexError>([&] { (void)tensordot(m, n, {{3}, {0}}); }, {"tensordot", "3"});
  expect_error<IndexError>([&] { (void)tensordot(m, n, {{0}, {-3}}); }, {"tensordot", "-3"});
  expect_error<ValueError>([&] { (void)tensordot(m, n, -1); }, {"tensordot", "-1"});
  expect_error<ValueError>([&] { (void)tensordot(m, n, 3); }, {"tensordot", "3"});
  // Integer and bool operands: NumPy's exact integer product is not provided.
  const auto i32 = make_array<Backend>(Dense<std::int32_t>({2, 3}, 1), Chunks{2, 2});
  const auto j32 = make_array<Backend>(Dense<std::int32_t>({3, 2}, 1), Chunks{2, 2});
  const auto i64 = make_array<Backend>(Dense<std::int64_t>({2, 3}, 1), Chunks{2, 2});
  const auto j64 = make_array<Backend>(Dense<std::int64_t>({3, 2}, 1), Chunks{2, 2});
  const auto bools = make_array<Backend>(Dense<bool>({3, 3}, true), Chunks{2, 2});
  expect_error<ValueError>([&] { (void)matmul(i32, j32); }, {"int32"});
  expect_error<ValueError>([&] { (void)matmul(i64, j64); }, {"int64"});
  expect_error<ValueError>([&] { (void)matmul(bools, bools); }, {"bool"});
  expect_error<ValueError>([&] { (void)matmul(i32, n(slice(0, 3), 0)); }, {"int32"});
  expect_error<ValueError>([&] { (void)dot(i64, j64); }, {"int64"});
  expect_error<ValueError>([&] { (void)tensordot(i32, j32, 1); }, {"int32"});
  const auto int_scalar = full<std::int32_t, Backend>(Shape{}, Chunks{}, 2);
  expect_error<ValueError>([&] { (void)dot(int_scalar, i32); }, {});
}

} // namespace
} // namespace chunked::test
