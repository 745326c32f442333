// SPDX-License-Identifier: Apache-2.0
// Determinism suite: one program gives bitwise identical results whatever the thread count or
// scheduler, run after run (reductions combine partials in a fixed order).
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"

#include <tuple>
#include <utility>
#include <vector>

namespace chunked::test {
namespace {

using Determinism = BackendTest;

std::vector<ComputeOptions> schedules() {
  std::vector<ComputeOptions> out;
  for (int n : {1, 2, 8}) {
    ComputeOptions o;
    o.num_threads = n;
    out.push_back(o);
  }
  ComputeOptions single;
  single.scheduler = Scheduler::single_threaded;
  out.push_back(single);
  out.push_back(ComputeOptions{}); // all hardware threads
  return out;
}

template <class Tuple, std::size_t... I>
void expect_tuples_bitwise_equal(const Tuple& got, const Tuple& want, std::index_sequence<I...>) {
  const ::testing::AssertionResult results[] = {
      bitwise_equal(std::get<I>(got), std::get<I>(want))...};
  for (std::size_t k = 0; k < sizeof...(I); ++k)
    EXPECT_TRUE(results[k]) << "result " << k;
}

/// Every schedule, three times each, gives the same bits as the first run.
template <class... A> void expect_same_bits_everywhere(const A&... arrays) {
  const auto first = compute(options_with(Scheduler::single_threaded), arrays...);
  for (const auto& o : schedules()) {
    for (int run = 0; run < 3; ++run) {
      SCOPED_TRACE("num_threads " + std::to_string(o.num_threads) +
                   (o.scheduler == Scheduler::single_threaded ? " single_threaded" : "") + " run " +
                   std::to_string(run));
      expect_tuples_bitwise_equal(compute(o, arrays...), first, std::index_sequence_for<A...>{});
    }
  }
}

TEST_F(Determinism, FloatingReductionsOverManyBlocks) {
  Generator g(71);
  const auto x = g.normal<double, Backend>(Shape{300, 200}, Chunks{17, 23}, 1.0, 3.0);
  const auto f = g.uniform<float, Backend>(Shape{500, 130}, Chunks{31, 7}, -1.0f, 1.0f);
  expect_same_bits_everywhere(x.sum(), x.mean(Axes{0}), (x * x).sum(Axes{1}), x.var(),
                              x.std(Axes{0}, 1), f.sum(), f.mean(Axes{1}),
                              (f - f.mean()).prod(Axes{0}));
}

TEST_F(Determinism, ViewsRechunksAndArgReductions) {
  Generator g(72);
  const auto x = g.normal<double, Backend>(Shape{257, 129}, Chunks{16, 16});
  const auto y = (x + 1.0)(slice(none, none, 2), slice(none, none, -3)).rechunk(Chunks{9, 5});
  expect_same_bits_everywhere(y.sum(), y.argmax(), y.argmin(0), y.max(Axes{1}),
                              (y / y.sum(Axes{0})).sum(Axes{1}));
}

TEST_F(Determinism, HostDataSumsAcrossSchedules) {
  std::mt19937_64 rng(73);
  const auto ref = random_dense<float>({1000, 40}, rng);
  const auto x = make_array<Backend>(ref, Chunks{37, 11});
  expect_same_bits_everywhere(x.sum(), x.sum(Axes{0}), x.astype<double>().var(Axes{1}), x.mean());
  // And the float sum is close to the exact one.
  EXPECT_TRUE(matches(x.sum().compute(), ref_sum(ref), Tolerance{1e-5, 1e-2}));
}

} // namespace
} // namespace chunked::test
