// SPDX-License-Identifier: Apache-2.0
// Planner tests for user block functions: one user task per output block, blocks read in place
// where no halo is needed, halos gathered from exactly the neighbouring blocks they span with
// copy maps of step 1 (inside, periodic), -1 (reflect), 0 (nearest) or a constant leaf.
#include "plan/plan.hpp"
#include "support/plan_for.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace {

using namespace chunked;
using plan::TaskKind;

using test::plan_for;

index_t count_tasks(const plan::Plan& p, TaskKind kind) {
  index_t n = 0;
  for (const auto& t : p.tasks)
    n += t.kind == kind ? 1 : 0;
  return n;
}

/// The user task of output block `block`.
const plan::Task& user_task(const plan::Plan& p, index_t block) {
  for (const auto& t : p.tasks)
    if (t.kind == TaskKind::user && t.block == block)
      return t;
  throw std::logic_error("no user task for the block");
}

/// The gather pieces of a user task's only input.
const std::vector<plan::GatherPiece>& halo_pieces(const plan::Plan& p, index_t block) {
  const plan::Task& t = user_task(p, block);
  EXPECT_EQ(t.inputs_end - t.inputs_begin, 1u);
  const plan::InputRef& ref = p.inputs[t.inputs_begin].ref;
  EXPECT_EQ(ref.kind, plan::InputRef::Kind::task);
  const plan::Task& g = p.tasks[ref.task];
  EXPECT_EQ(g.kind, TaskKind::gather);
  return p.gathers[g.index];
}

const auto noop = [](const BlockInfo&, BlockView<double>, BlockView<const double>) {};

TEST(UserPlan, MapBlocksReadsStoredBlocksInPlaceOneTaskPerBlock) {
  const std::vector<double> v(12, 1.0);
  const auto x = from_host(v, Shape{3, 4}, Chunks{2, 3});
  const auto y = map_blocks<double>(noop, x);
  std::vector<double> out;
  const plan::Plan p = plan_for(y.node(), out);
  EXPECT_EQ(count_tasks(p, TaskKind::user), 4);
  EXPECT_EQ(count_tasks(p, TaskKind::gather), 0);
  ASSERT_EQ(p.users.size(), 1u);
  for (index_t b = 0; b < 4; ++b) {
    const plan::Task& t = user_task(p, b);
    ASSERT_EQ(t.inputs_end - t.inputs_begin, 1u);
    EXPECT_EQ(p.inputs[t.inputs_begin].ref.kind, plan::InputRef::Kind::stored);
    EXPECT_EQ(t.output.elements,
              p.users[0].grid.block_shape(p.users[0].grid.block_index(b)).size());
  }
  EXPECT_NE(p.describe().find("user tasks: 4"), std::string::npos) << p.describe();
}

TEST(UserPlan, AUserResultReadTwiceIsComputedOnce) {
  const auto x = arange<double>(0.0, 10.0, 1.0, 5);
  const auto y = map_blocks<double>(noop, x);
  const auto z = (y + y * 2.0).sum() + y.sum();
  std::vector<double> out;
  const plan::Plan p = plan_for(z.node(), out);
  EXPECT_EQ(count_tasks(p, TaskKind::user), 2);
}

TEST(UserPlan, PeriodicHalosWrapToTheFarBlocks) {
  const auto x = arange<double>(0.0, 10.0, 1.0, 5);
  const auto y = map_overlap<double>(noop, x, 1, Boundary::periodic);
  std::vector<double> out;
  const plan::Plan p = plan_for(y.node(), out);
  EXPECT_EQ(count_tasks(p, TaskKind::gather), 2);
  const auto& pieces = halo_pieces(p, 0);
  ASSERT_EQ(pieces.size(), 3u); // x[9], x[0:5], x[5]
  EXPECT_EQ(pieces[0].program.extent[0], 1);
  EXPECT_EQ(pieces[0].program.leaves[0].map.base, 4); // element 4 of block 1
  EXPECT_EQ(pieces[0].program.sink.map.base, 0);
  EXPECT_EQ(pieces[1].program.extent[0], 5);
  EXPECT_EQ(pieces[1].program.sink.map.base, 1);
  EXPECT_EQ(pieces[2].program.leaves[0].map.base, 0); // element 0 of block 1
  EXPECT_EQ(pieces[2].program.sink.map.base, 6);
  EXPECT_NE(pieces[0].source.task, pieces[1].source.task);
}

TEST(UserPlan, ReflectMirrorsNearestRepeatsConstantPads) {
  const auto x = arange<double>(0.0, 10.0, 1.0, 5);
  std::vector<double> out;
  {
    const auto y = map_overlap<double>(noop, x, 2, Boundary::reflect);
    const plan::Plan p = plan_for(y.node(), out);
    const auto& left = halo_pieces(p, 0)[0].program;
    EXPECT_EQ(left.extent[0], 2);
    EXPECT_EQ(left.leaves[0].map.base, 1); // x[1], x[0]
    EXPECT_EQ(left.leaves[0].map.coef[0], -1);
  }
  {
    const auto y = map_overlap<double>(noop, x, 2, Boundary::nearest);
    const plan::Plan p = plan_for(y.node(), out);
    const auto& right = halo_pieces(p, 1).back().program;
    EXPECT_EQ(right.leaves[0].map.base, 4); // x[9] = element 4 of block 1, repeated
    EXPECT_EQ(right.leaves[0].map.coef[0], 0);
  }
  {
    const auto y = map_overlap<double>(noop, x, 2, Boundary::constant(3.0));
    const plan::Plan p = plan_for(y.node(), out);
    int constants = 0;
    for (const auto& piece : halo_pieces(p, 0))
      if (piece.program.leaves[0].kind == plan::LeafKind::constant) {
        ++constants;
        EXPECT_EQ(piece.program.leaves[0].a.f, 3.0);
      }
    EXPECT_EQ(constants, 1);
  }
  {
    const auto y = map_overlap<double>(noop, x, 2, Boundary::none);
    const plan::Plan p = plan_for(y.node(), out);
    EXPECT_EQ(halo_pieces(p, 0).size(), 2u); // the block and 2 elements of block 1 only
    EXPECT_EQ(p.users[0].input_shape(0), (Shape{7}));
    EXPECT_EQ(p.users[0].input_shape(1), (Shape{7}));
  }
}

TEST(UserPlan, DeepHalosSpanSeveralNeighbours) {
  const auto x = arange<double>(0.0, 10.0, 1.0, 1);
  const auto y = map_overlap<double>(noop, x, 3, Boundary::periodic);
  std::vector<double> out;
  const plan::Plan p = plan_for(y.node(), out);
  const auto& pieces = halo_pieces(p, 5);
  EXPECT_EQ(pieces.size(), 7u);
  std::set<const void*> sources;
  for (const auto& piece : pieces)
    sources.insert(piece.source.kind == plan::InputRef::Kind::task
                       ? static_cast<const void*>(&p.tasks[piece.source.task])
                       : static_cast<const void*>(piece.source.stored));
  EXPECT_EQ(sources.size(), 7u) << "one piece from each of blocks 2 to 8";
  EXPECT_EQ(p.users[0].input_shape(5), (Shape{7}));
}

TEST(UserPlan, ZeroDepthNeedsNoGather) {
  const std::vector<double> v(12, 1.0);
  const auto x = from_host(v, Shape{3, 4}, Chunks{2, 3});
  const auto y = map_overlap<double>(noop, x, {0, 0}, Boundary::periodic);
  std::vector<double> out;
  const plan::Plan p = plan_for(y.node(), out);
  EXPECT_EQ(count_tasks(p, TaskKind::gather), 0);
  EXPECT_EQ(count_tasks(p, TaskKind::user), 4);
}

TEST(UserPlan, PersistKeepsTheUserTasksBuffersWithoutACopy) {
  const auto x = arange<double>(0.0, 10.0, 1.0, 5);
  const auto y = map_overlap<double>(noop, x, 1, Boundary::nearest);
  plan::Request r;
  r.node = y.node();
  r.kind = plan::Request::Kind::blocks;
  const plan::Plan p = plan::make_plan({r});
  EXPECT_EQ(count_tasks(p, TaskKind::program), 2); // arange's blocks, read by the gathers
  ASSERT_EQ(p.result_blocks.size(), 1u);
  ASSERT_EQ(p.result_blocks[0].size(), 2u);
  for (plan::TaskId id : p.result_blocks[0])
    EXPECT_EQ(p.tasks[id].kind, TaskKind::user);
}

} // namespace
