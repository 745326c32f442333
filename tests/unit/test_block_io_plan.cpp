// SPDX-License-Identifier: Apache-2.0
// Planner tests of blocks outside memory: a lazy leaf's load tasks are made only for the blocks
// some task reads, once each; a persist keeps the loaded buffers; write tasks read each block
// once and are its last readers; describe() names the loads and the source.
#include "plan/plan.hpp"
#include "support/fake_block_io.hpp"
#include "support/plan_for.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace chunked;
using plan::TaskKind;
using test::FakeSource;

ChunkedArray<double> lazy(const std::vector<index_t>& shape, const Chunks& chunks) {
  index_t n = 1;
  for (index_t e : shape)
    n *= e;
  auto src = std::make_shared<FakeSource<double>>(shape, std::vector<double>(n, 1.0));
  return test::lazy_array<double, Cpu>(src, shape, chunks);
}

using test::plan_for;

/// The blocks (numbers in the load grid) that the plan's load tasks read; fails on duplicates.
std::vector<index_t> loaded_blocks(const plan::Plan& p) {
  std::vector<index_t> blocks;
  for (const auto& t : p.tasks)
    if (t.kind == TaskKind::load)
      blocks.push_back(t.block);
  std::sort(blocks.begin(), blocks.end());
  EXPECT_EQ(std::adjacent_find(blocks.begin(), blocks.end()), blocks.end())
      << "a block loaded twice";
  return blocks;
}

TEST(BlockIoPlan, SlicesLoadOnlyTheBlocksTheyTouch) {
  const auto x = lazy({10, 6}, Chunks{2, 3}); // 5 x 2 blocks
  std::vector<double> out;
  // Rows 3..4, columns 4..5: blocks (1, 1) and (2, 1), numbers 3 and 5.
  const plan::Plan p = plan_for((x(slice(3, 5), slice(4, 6)) * 2.0).node(), out);
  EXPECT_EQ(loaded_blocks(p), (std::vector<index_t>{3, 5}));
  ASSERT_EQ(p.loads.size(), 1u);
  EXPECT_EQ(p.loads[0].grid.numblocks(), 10);
  for (const auto& t : p.tasks) {
    if (t.kind == TaskKind::load) {
      EXPECT_EQ(t.output.elements, 6);
    }
  }
  const std::string d = p.describe();
  EXPECT_NE(d.find("load 0: 2 of 10 blocks from fake source 'memory'"), std::string::npos) << d;
}

TEST(BlockIoPlan, EveryReaderOfABlockInOnePassSharesOneLoad) {
  const auto x = lazy({9, 4}, Chunks{2, 4});
  std::vector<double> out;
  // Misaligned views gather across blocks; the rechunked view reads every block again.
  const auto y = x(slice(1, none)) + x(slice(none, -1)) + x.rechunk(Chunks{3, 1})(slice(1, none));
  const plan::Plan p = plan_for(y.node(), out);
  EXPECT_EQ(loaded_blocks(p), (std::vector<index_t>{0, 1, 2, 3, 4}));
  // A reduction whose every result reads one block is no pass of its own.
  const plan::Plan q = plan_for((x - x.mean(Axes{1}, true)).node(), out);
  EXPECT_EQ(loaded_blocks(q), (std::vector<index_t>{0, 1, 2, 3, 4}));
}

/// The blocks the plan's load tasks read, each as often as it is loaded.
std::vector<index_t> load_counts(const plan::Plan& p, index_t blocks) {
  std::vector<index_t> counts(static_cast<std::size_t>(blocks), 0);
  for (const auto& t : p.tasks)
    if (t.kind == TaskKind::load)
      ++counts.at(static_cast<std::size_t>(t.block));
  return counts;
}

TEST(BlockIoPlan, AReductionAcrossBlocksEndsAPassAndLaterReadsLoadAgain) {
  // A standardize reads every block for its moments, then again for its result: sharing the
  // loads would hold the whole array until the moments are known.
  const auto x = lazy({9, 4}, Chunks{2, 4});
  std::vector<double> out;
  const plan::Plan p = plan_for(((x - x.mean(Axes{0})) / x.std(Axes{0})).node(), out);
  EXPECT_EQ(load_counts(p, 5), (std::vector<index_t>{2, 2, 2, 2, 2}));
  // x.sum() + x: the same.
  EXPECT_EQ(load_counts(plan_for((x + x.sum()).node(), out), 5),
            (std::vector<index_t>{2, 2, 2, 2, 2}));
}

TEST(BlockIoPlan, EmptyReadsLoadNothing) {
  const auto x = lazy({6}, Chunks{2});
  std::vector<double> out;
  const plan::Plan p = plan_for(concatenate({x(slice(2, 2)), x(slice(0, 1))}, 0).node(), out);
  EXPECT_EQ(loaded_blocks(p), (std::vector<index_t>{0}));
}

TEST(BlockIoPlan, PersistKeepsTheLoadedBuffers) {
  const auto x = lazy({7, 3}, Chunks{3, 2});
  plan::Request r;
  r.node = x.node();
  r.kind = plan::Request::Kind::blocks;
  const plan::Plan p = plan::make_plan({r});
  ASSERT_EQ(p.result_blocks.size(), 1u);
  ASSERT_EQ(p.result_blocks[0].size(), 6u);
  for (plan::TaskId id : p.result_blocks[0])
    EXPECT_EQ(p.tasks[id].kind, TaskKind::load);
  EXPECT_EQ(p.tasks.size(), 6u) << "no copies";
}

TEST(BlockIoPlan, WriteTasksReadEachBlockOnceAndFollowIt) {
  const auto x = lazy({8}, Chunks{3});
  test::FakeSink<double> sink({8});
  plan::Request r;
  r.node = (x * 2.0).node();
  r.kind = plan::Request::Kind::write;
  r.sink = &sink;
  const plan::Plan p = plan::make_plan({r}, plan::TaskSplit{});
  ASSERT_EQ(p.writes.size(), 1u);
  EXPECT_EQ(p.writes[0].sink, &sink);
  EXPECT_TRUE(p.result_blocks[0].empty()) << "written blocks are not kept";
  std::set<index_t> written;
  for (std::size_t t = 0; t < p.tasks.size(); ++t) {
    const plan::Task& task = p.tasks[t];
    if (task.kind != TaskKind::write)
      continue;
    written.insert(task.block);
    ASSERT_EQ(task.inputs_end - task.inputs_begin, 1u);
    const plan::InputRef& in = p.inputs[task.inputs_begin].ref;
    ASSERT_EQ(in.kind, plan::InputRef::Kind::task);
    EXPECT_EQ(p.deps[t], std::vector<plan::TaskId>{in.task});
    // Each block is written right after it is computed: its write is the next result.
    EXPECT_EQ(p.tasks[in.task].kind, TaskKind::program);
  }
  EXPECT_EQ(written, (std::set<index_t>{0, 1, 2}));
  EXPECT_NE(p.describe().find("writes: 3 blocks to 1 sink(s)"), std::string::npos);
}

TEST(BlockIoPlan, MakeSourceChecksItsSource) {
  EXPECT_THROW(
      graph::make_source(DType::float64, ChunkGrid(Shape{4}, std::vector<index_t>{2}), nullptr),
      ValueError);
  const auto x = lazy({4, 5}, Chunks{3, 5});
  EXPECT_EQ(x.node()->kind, graph::NodeKind::source);
  EXPECT_EQ(x.shape(), Shape({4, 5}));
  EXPECT_EQ(x.numblocks(), 2);
}

} // namespace
