// SPDX-License-Identifier: Apache-2.0
// Compute suite: compute/item/to_host/persist, chunked::compute of several arrays, rechunk,
// astype, moving between backends, compute options, and fmt formatting.
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace chunked::test {
namespace {

using Compute = BackendTest;

template <class X> using value_t = typename std::remove_cvref_t<X>::value_type;

TEST_F(Compute, ComputeItemAndToHost) {
  std::mt19937_64 rng(61);
  const auto ref = random_dense<double>({4, 6}, rng);
  const auto x = make_array<Backend>(ref, Chunks{3, 4});
  const NDArray<double> dense = x.compute();
  EXPECT_EQ(dense.shape(), Shape({4, 6}));
  EXPECT_TRUE(matches(dense, ref));
  EXPECT_EQ(dense(1, 2), ref.at({1, 2}));
  EXPECT_EQ(dense(-1, -1), ref.at({3, 5}));
  // item() of any one-element array, whatever its rank.
  EXPECT_EQ(x(2, 3).item(), ref.at({2, 3}));
  EXPECT_EQ(x(slice(2, 3), slice(-1, none)).item(), ref.at({2, 5}));
  EXPECT_EQ(x(slice(2, 3), slice(-1, none)).compute().item(), ref.at({2, 5}));
  std::vector<double> out(24, -1.0);
  x.to_host(std::span<double>(out));
  EXPECT_TRUE(matches(NDArray<double>(Shape{4, 6}, out), ref));
  // Empty arrays compute to empty results and write nothing.
  const auto e = x(slice(2, 2));
  EXPECT_EQ(e.compute().size(), 0);
  std::vector<double> none_out;
  e.to_host(std::span<double>(none_out));
}

TEST_F(Compute, PersistKeepsValuesAndGrid) {
  Generator g(62);
  const auto x = g.normal<double, Backend>(Shape{9, 7}, Chunks{4, 3});
  const auto y = (x * 2.0 + 1.0);
  const auto p = y.persist();
  EXPECT_EQ(p.chunks(), y.chunks());
  EXPECT_EQ(p.shape(), y.shape());
  EXPECT_TRUE(bitwise_equal(p.compute(), y.compute()));
  // A persisted array feeds further work, including views and reductions.
  const auto want = from_ndarray(y.compute());
  EXPECT_TRUE(matches(p(slice(none, none, -2), 1).compute(),
                      index(want, {Slice(none, none, -2), index_t{1}})));
  EXPECT_TRUE(matches(p.sum(Axes{0}).compute(), ref_sum(want, {0}), tight<double>()));
  EXPECT_TRUE(matches(p.persist().compute(), want));
  const auto q = p(slice(1, none)).persist(options_with(Scheduler::single_threaded));
  EXPECT_TRUE(matches(q.compute(), index(want, {Slice(1, none)})));
}

TEST_F(Compute, ComputeSeveralArraysAtOnce) {
  std::mt19937_64 rng(63);
  const auto ref = random_dense<double>({6, 5}, rng);
  const auto x = make_array<Backend>(ref, Chunks{4, 2});
  const auto shared = x * 3.0 - 1.0;
  const auto shared_ref = map(ref, [](double v) { return v * 3.0 - 1.0; });
  auto [a, b, c, d, e] = compute(ComputeOptions{}, shared, shared.sum(Axes{1}), shared.argmax(),
                                 shared > 0.0, shared(slice(0, 0)));
  static_assert(std::is_same_v<decltype(a), NDArray<double>>);
  static_assert(std::is_same_v<decltype(c), NDArray<std::int64_t>>);
  static_assert(std::is_same_v<decltype(d), NDArray<bool>>);
  EXPECT_TRUE(matches(a, shared_ref));
  EXPECT_TRUE(matches(b, ref_sum(shared_ref, {1}), tight<double>()));
  EXPECT_TRUE(matches(c, ref_arg(shared_ref, std::nullopt, true)));
  EXPECT_TRUE(matches(d, map(shared_ref, [](double v) { return v > 0.0; })));
  EXPECT_EQ(e.size(), 0);
  // The same array twice, and one array alone.
  auto [s1, s2] = compute(ComputeOptions{}, x.sum(), x.sum());
  EXPECT_TRUE(bitwise_equal(s1, s2));
  auto [only] = compute(ComputeOptions{}, x);
  EXPECT_TRUE(matches(only, ref));
}

TEST_F(Compute, SharedWorkIsDoneOnce) {
  // Two results of one intermediate that must be computed first (a reduction): computing them
  // together must take fewer block tasks than computing them apart.
  Generator g(64);
  const auto raw = g.normal<double, Backend>(Shape{64, 64}, Chunks{8, 8});
  const auto x = raw - raw.mean(Axes{0});
  auto count = [](auto&&... arrays) {
    index_t total = 0;
    ComputeOptions o;
    o.on_progress = [&](const Progress& p) { total = p.blocks_total; };
    (void)compute(o, arrays...);
    return total;
  };
  const index_t apart = count(x.sum()) + count(x.max());
  const index_t together = count(x.sum(), x.max());
  EXPECT_GT(apart, 0);
  EXPECT_LT(together, apart) << "together " << together << " tasks, apart " << apart;
}

TEST_F(Compute, RechunkKeepsValues) {
  std::mt19937_64 rng(65);
  const auto ref = random_dense<std::int64_t>({7, 9}, rng);
  for (const auto& from : chunkings_for(ref.shape()))
    for (const auto& to : chunkings_for(ref.shape())) {
      SCOPED_TRACE(label(from) + " -> " + label(to));
      const auto r = make_array<Backend>(ref, from).rechunk(to);
      EXPECT_EQ(r.chunks(), ChunkGrid(Shape{7, 9}, to.lengths()));
      EXPECT_TRUE(matches(r.compute(), ref));
    }
  const auto a = make_array<Backend>(ref, Chunks{2, 2}).rechunk(Chunks::automatic());
  EXPECT_EQ(a.numblocks(), 1);
  EXPECT_TRUE(matches(a.compute(), ref));
}

TEST_F(Compute, AstypeConvertsLikeStaticCast) {
  const Dense<double> d({7}, {-2.7, -0.5, 0.0, 0.4, 2.9, 1e3 + 0.25, -7.0});
  const auto x = make_array<Backend>(d, Chunks{3});
  const auto i = x.astype<std::int32_t>();
  static_assert(std::is_same_v<decltype(i), const ChunkedArray<std::int32_t, Backend>>);
  EXPECT_TRUE(matches(i.compute(), Dense<std::int32_t>({7}, {-2, 0, 0, 0, 2, 1000, -7})));
  EXPECT_TRUE(matches(x.astype<bool>().compute(),
                      Dense<bool>({7}, {true, true, false, true, true, true, true})));
  EXPECT_TRUE(matches(x.astype<float>().compute(), cast<float>(d)));
  EXPECT_TRUE(matches(x.astype<bool>().astype<double>().compute(),
                      Dense<double>({7}, {1, 1, 0, 1, 1, 1, 1})));
  const Dense<std::int64_t> big(
      {3}, {(std::int64_t{1} << 32) + 5, -1, std::numeric_limits<std::int64_t>::min()});
  EXPECT_TRUE(matches(make_array<Backend>(big, Chunks{2}).astype<std::int32_t>().compute(),
                      Dense<std::int32_t>({3}, {5, -1, 0})))
      << "int64 -> int32 keeps the low 32 bits";
  EXPECT_TRUE(
      matches(make_array<Backend>(big, Chunks{2}).astype<double>().compute(), cast<double>(big)));
}

TEST_F(Compute, MovingBetweenBackendsKeepsValues) {
  std::mt19937_64 rng(66);
  const auto ref = random_dense<float>({5, 5}, rng);
  const auto x = make_array<Backend>(ref, Chunks{2, 3});
  const auto c = x.to<Cpu>();
  static_assert(std::is_same_v<decltype(c), const ChunkedArray<float, Cpu>>);
  EXPECT_TRUE(matches(c.compute(), ref));
  EXPECT_TRUE(
      matches((c + 1.0f).to<Backend>().compute(), map(ref, [](float v) { return v + 1.0f; })));
  EXPECT_TRUE(matches(x.to<Auto>().sum().compute(), ref_sum(ref), Tolerance{1e-5, 1e-4}));
  // A persisted array moves too.
  const auto p = (x * 2.0f).persist();
  EXPECT_TRUE(matches(p.to<Cpu>().compute(), map(ref, [](float v) { return v * 2.0f; })));
}

TEST_F(Compute, OptionsSchedulersAndProgress) {
  Generator g(67);
  const auto x = g.uniform<double, Backend>(Shape{50, 40}, Chunks{7, 6});
  const double want = x.sum().item(options_with(Scheduler::single_threaded));
  ComputeOptions threads;
  threads.num_threads = 3;
  EXPECT_EQ(x.sum().item(threads), want);
  std::atomic<int> calls{0};
  Progress last;
  ComputeOptions progress;
  progress.on_progress = [&](const Progress& p) {
    ++calls;
    last = p;
  };
  EXPECT_EQ(x.sum().item(progress), want);
  EXPECT_GE(calls.load(), 1);
  EXPECT_GT(last.blocks_total, 0);
  EXPECT_EQ(last.blocks_done, last.blocks_total) << "the final report has every block done";
  EXPECT_DOUBLE_EQ(last.fraction(), 1.0);
  EXPECT_GE(last.elapsed_seconds, 0.0);
}

TEST_F(Compute, FormattingShapesArraysAndSummaries) {
  EXPECT_EQ(fmt::format("{}", Shape{4, 5}), "(4, 5)");
  EXPECT_EQ(fmt::format("{}", Shape{3}), "(3,)");
  EXPECT_EQ(fmt::format("{}", Shape{}), "()");
  EXPECT_EQ(fmt::format("{}", Chunks{2, 3}), "(2, 3)");
  EXPECT_EQ(fmt::format("{}", NDArray<std::int32_t>(Shape{2, 3},
                                                    std::vector<std::int32_t>{1, 2, 3, 4, 5, 6})),
            "[[1, 2, 3],\n [4, 5, 6]]");
  const bool flags[] = {true, false};
  EXPECT_EQ(fmt::format("{}", NDArray<bool>(Shape{2}, std::span<const bool>(flags))),
            "[true, false]");
  EXPECT_EQ(fmt::format("{}", full<double, Backend>(Shape{}, Chunks{}, 2.5).compute()), "2.5");
  EXPECT_EQ(fmt::format("{}", arange<std::int64_t, Backend>(0, 2000, 1, 300).compute()),
            "[0, 1, 2, ..., 1997, 1998, 1999]");
  EXPECT_EQ(fmt::format("{}", zeros<double, Backend>(Shape{0, 3}, Chunks{1, 2}).compute()), "[]");
  // The summary of a huge array: formatting never computes.
  Generator g(1);
  const auto huge = g.normal<double, Backend>(Shape{1000000, 1000000}, Chunks{10000, 10000});
  const std::string s = fmt::format("{}", huge);
  const std::string prefix = std::string("ChunkedArray<float64, ") + backend_traits<Backend>::name +
                             ">(shape=(1000000, 1000000)";
  EXPECT_EQ(s.rfind(prefix, 0), 0u) << s;
  EXPECT_NE(s.find("blocks=10000"), std::string::npos) << s;
  EXPECT_NE(s.find("10000"), std::string::npos) << s;
  EXPECT_NE(fmt::format("{}", huge.chunks()).find("10000"), std::string::npos);
}

} // namespace
} // namespace chunked::test
