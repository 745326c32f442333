// SPDX-License-Identifier: Apache-2.0
// The planner's scan pass: one scan task per block, chained along the scanned axis only, each
// reading its block and the scan of the block before it along the axis.
#include "plan/plan.hpp"
#include "plan/scan_block.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace chunked::plan {
namespace {

Plan plan_of(const graph::NodePtr& node) {
  Request r;
  r.node = node;
  r.kind = Request::Kind::blocks;
  return make_plan({r});
}

std::vector<TaskId> scan_tasks(const Plan& p) {
  std::vector<TaskId> out;
  for (TaskId t = 0; t < p.tasks.size(); ++t)
    if (p.tasks[t].kind == TaskKind::scan)
      out.push_back(t);
  return out;
}

TEST(PlanScan, OneTaskPerBlockChainedAlongTheAxisOnly) {
  Generator g(1);
  const auto x = g.normal<double>(Shape{10, 7}, Chunks{3, 2}); // 4 x 4 blocks
  for (const index_t axis : {0, 1}) {
    const Plan p = plan_of(cumsum(x, axis).node());
    ASSERT_EQ(p.scans.size(), 1u);
    EXPECT_EQ(p.scans[0].axis, axis);
    EXPECT_EQ(p.scans[0].dtype, DType::float64);
    EXPECT_EQ(p.scans[0].grid, x.chunks());
    const auto tasks = scan_tasks(p);
    ASSERT_EQ(static_cast<index_t>(tasks.size()), x.numblocks());
    std::vector<TaskId> of_block(static_cast<std::size_t>(x.numblocks()));
    for (TaskId t : tasks)
      of_block[static_cast<std::size_t>(p.tasks[t].block)] = t;
    for (TaskId t : tasks) {
      const Task& task = p.tasks[t];
      const auto idx = x.chunks().block_index(task.block);
      const bool first = idx[static_cast<std::size_t>(axis)] == 0;
      ASSERT_EQ(task.inputs_end - task.inputs_begin, first ? 1u : 2u);
      // Its own block comes from a program task (the normal leaf's values) ...
      const InputRef& own = p.inputs[task.inputs_begin].ref;
      ASSERT_EQ(own.kind, InputRef::Kind::task);
      EXPECT_EQ(p.tasks[own.task].kind, TaskKind::program);
      // ... and its carry from the scan of the block before it along the axis.
      if (!first) {
        auto before = idx;
        --before[static_cast<std::size_t>(axis)];
        const InputRef& carry = p.inputs[task.inputs_begin + 1].ref;
        EXPECT_EQ(carry.task, of_block[static_cast<std::size_t>(x.chunks().block_number(before))]);
        EXPECT_EQ(scan_block(p, task).carry_length,
                  x.chunks().lengths(axis)[static_cast<std::size_t>(before[axis])]);
      } else {
        EXPECT_EQ(scan_block(p, task).carry_length, 0);
      }
    }
  }
}

TEST(PlanScan, BlockGeometryAroundTheAxis) {
  const auto x = zeros<float>(Shape{4, 6, 5}, Chunks{4, 4, 5});
  const Plan p = plan_of(cumsum(x, 1).node());
  const auto tasks = scan_tasks(p);
  ASSERT_EQ(tasks.size(), 2u);
  for (TaskId t : tasks) {
    const ScanBlock b = scan_block(p, p.tasks[t]);
    EXPECT_EQ(b.outer, 4);
    EXPECT_EQ(b.inner, 5);
    EXPECT_EQ(b.length, p.tasks[t].block == 0 ? 4 : 2);
  }
}

TEST(PlanScan, IntegersAndBoolsScanInInt64AfterAFusedCast) {
  const auto x = ones<std::int32_t>(Shape{8}, Chunks{3});
  const auto c = cumsum(x, 0);
  EXPECT_EQ(c.dtype(), DType::int64);
  const Plan p = plan_of(c.node());
  EXPECT_EQ(p.scans[0].dtype, DType::int64);
  EXPECT_EQ(scan_tasks(p).size(), 3u);
  EXPECT_EQ(cumsum(ones<bool>(Shape{8}, Chunks{3}), 0).dtype(), DType::int64);
  // The graph node itself scans only the accumulation dtypes; the API casts before it.
  EXPECT_THROW(graph::make_scan(x.node(), graph::ScanParams{}), ValueError);
  EXPECT_THROW(graph::make_scan(x.astype<std::int64_t>().node(), graph::ScanParams{{}, 1}),
               IndexError);
}

TEST(PlanScan, StoredBlocksAreScannedWhereTheyAre) {
  const std::vector<double> values{1, 2, 3, 4, 5};
  const auto x = from_host(std::span<const double>(values), Shape{5}, Chunks{2});
  const Plan p = plan_of(cumsum(x, 0).node());
  for (TaskId t : scan_tasks(p))
    EXPECT_EQ(p.inputs[p.tasks[t].inputs_begin].ref.kind, InputRef::Kind::stored);
}

TEST(PlanScan, AScanReadByAReductionIsMaterialisedOnce) {
  Generator g(2);
  const auto x = g.uniform<double>(Shape{12, 5}, Chunks{4, 5});
  const Plan p = plan_of((cumsum(x, 0) + 1.0).sum(Axes{1}, true).node());
  EXPECT_EQ(scan_tasks(p).size(), 3u);
  EXPECT_NE(p.describe().find("scans: 3"), std::string::npos);
}

TEST(PlanScan, APersistedScanKeepsItsScanBuffersAsItsBlocks) {
  const std::vector<double> values{1, 2, 3, 4, 5};
  const auto x = from_host(std::span<const double>(values), Shape{5}, Chunks{2});
  const Plan p = plan_of(cumsum(x, 0).node());
  // No copy program after the scans: the result blocks are the scan tasks, in block order, although
  // the next scan task reads each of them for its carry.
  ASSERT_EQ(p.result_blocks.size(), 1u);
  EXPECT_EQ(p.result_blocks[0], scan_tasks(p));
  EXPECT_EQ(p.tasks.size(), 3u);
}

} // namespace
} // namespace chunked::plan
