// SPDX-License-Identifier: Apache-2.0
// The order of a plan's tasks: each result right after its inputs, ids still topological.
#include "backend/cpu/executor.hpp"
#include "plan/plan.hpp"
#include "plan/task_order.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

using namespace chunked;
using plan::TaskKind;

plan::Plan plan_blocks(const graph::NodePtr& node) {
  plan::Request r;
  r.node = node;
  r.kind = plan::Request::Kind::blocks;
  return plan::make_plan({r});
}

void expect_topological(const plan::Plan& p) {
  for (std::size_t t = 0; t < p.tasks.size(); ++t)
    for (const plan::TaskId d : p.deps[t])
      ASSERT_LT(d, t) << "task " << t << " reads a later task";
}

/// Ids of the program tasks of `stage`, in id order.
std::vector<plan::TaskId> stage_tasks(const plan::Plan& p, std::uint32_t stage) {
  std::vector<plan::TaskId> ids;
  for (std::size_t t = 0; t < p.tasks.size(); ++t)
    if (p.tasks[t].kind == TaskKind::program && p.tasks[t].index == stage)
      ids.push_back(static_cast<plan::TaskId>(t));
  return ids;
}

// Over column blocks, a standardize's moments, combines and result of one block come before the
// next block's moments: the result reads the block while it is in the caches.
TEST(TaskOrder, ColumnBlocksRunMomentsThenResultBlockByBlock) {
  Generator rng(3);
  const auto x = rng.normal<double>(Shape{50, 40}, Chunks{50, 8}).persist();
  const auto standardized = (x - x.mean(Axes{0})) / x.std(Axes{0});
  const plan::Plan p = plan_blocks(standardized.node());
  expect_topological(p);
  ASSERT_EQ(p.stages.size(), 2u);
  const auto moments = stage_tasks(p, 0), results = stage_tasks(p, 1);
  ASSERT_EQ(moments.size(), 5u);
  ASSERT_EQ(results.size(), 5u);
  for (std::size_t b = 0; b + 1 < results.size(); ++b) {
    EXPECT_LT(moments[b], results[b]);
    EXPECT_LT(results[b], moments[b + 1])
        << "block " << b << "'s result before block " << b + 1 << "'s moments";
  }
  for (std::size_t b = 0; b < results.size(); ++b)
    EXPECT_EQ(p.result_blocks[0][b], results[b]) << "the persisted blocks follow the renumbering";
  // And the values: each column standardized.
  const auto got = standardized.compute();
  const auto host = x.compute();
  for (index_t c = 0; c < 40; ++c) {
    double mean = 0, m2 = 0;
    for (index_t r = 0; r < 50; ++r)
      mean += host(r, c) / 50;
    for (index_t r = 0; r < 50; ++r)
      m2 += (host(r, c) - mean) * (host(r, c) - mean);
    const double sd = std::sqrt(m2 / 50);
    for (index_t r = 0; r < 50; ++r)
      EXPECT_NEAR(got(r, c), (host(r, c) - mean) / sd, 1e-12);
  }
}

// Over row blocks every result needs every block's moments: the plan keeps its order, all
// moments first.
TEST(TaskOrder, RowBlocksKeepAllMomentsFirst) {
  Generator rng(4);
  const auto x = rng.normal<double>(Shape{50, 40}, Chunks{10, 40}).persist();
  const plan::Plan p = plan_blocks(((x - x.mean(Axes{0})) / x.std(Axes{0})).node());
  expect_topological(p);
  const auto moments = stage_tasks(p, 0), results = stage_tasks(p, 1);
  ASSERT_FALSE(results.empty());
  EXPECT_LT(moments.back(), results.front());
}

// Several requested arrays, gathers, combine trees and pieces of blocks: references to tasks
// everywhere in the plan are renumbered consistently (the CPU backend computes the same values
// as with the plan in the planner's order).
TEST(TaskOrder, RenumberedPlansComputeTheSameValues) {
  Generator rng(8);
  const auto x = rng.normal<double>(Shape{64, 48}, Chunks{64, 7});
  const auto y = x.rechunk(Chunks{64, 5}) * 2.0;
  const auto s = (y - y.mean(Axes{0})).persist();
  const auto t = (x + y).sum(Axes{0});
  const auto [a, b] = compute(ComputeOptions{}, s, t);
  const auto hx = x.compute();
  for (index_t c = 0; c < 48; ++c) {
    double mean = 0, sum = 0;
    for (index_t r = 0; r < 64; ++r)
      mean += 2.0 * hx(r, c) / 64;
    for (index_t r = 0; r < 64; ++r) {
      EXPECT_NEAR(a(r, c), 2.0 * hx(r, c) - mean, 1e-12);
      sum += 3.0 * hx(r, c);
    }
    EXPECT_NEAR(b(c), sum, 1e-10);
  }
}

} // namespace
