// SPDX-License-Identifier: Apache-2.0
// The assemble planner pass (src/plan/assemble.cpp): the copy lists of reshape and concatenate
// blocks, their coverage of every output element, blocks passed through without a copy, and the
// live blocks of a sequential run of the plan.
#include "plan/assemble.hpp"
#include "plan/plan.hpp"
#include "support/plan_for.hpp"
#include <chunked/chunked.hpp>
#include <chunked/graph/assemble.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace {

using namespace chunked;
using plan::TaskKind;
using plan::detail::assemble_pieces;
using plan::detail::CopyPiece;

graph::NodePtr stored(const Shape& shape, const std::vector<index_t>& chunks) {
  return from_host<Cpu>(NDArray<double>(shape), Chunks(chunks)).node();
}

using test::plan_for;

index_t count_tasks(const plan::Plan& p, TaskKind kind) {
  return std::count_if(p.tasks.begin(), p.tasks.end(),
                       [&](const plan::Task& t) { return t.kind == kind; });
}

/// Checks that the pieces of every block of assemble node `n` write each element of the block
/// exactly once, from the input element that C order (reshape) or the shift along the axis
/// (concatenate) puts there.
void expect_exact_cover(const graph::Node& n) {
  const auto& ps = n.as<graph::AssembleParams>();
  for (index_t b = 0; b < n.grid.numblocks(); ++b) {
    const auto bi = n.grid.block_index(b);
    const auto boff = n.grid.block_offset(bi);
    const Shape bshape = n.grid.block_shape(bi);
    std::vector<int> written(static_cast<std::size_t>(bshape.size()), 0);
    for (const CopyPiece& p : assemble_pieces(n, b)) {
      const graph::Node& in = *n.inputs[static_cast<std::size_t>(p.operand)];
      const auto ibi = in.grid.block_index(p.block);
      const auto ioff = in.grid.block_offset(ibi);
      const Shape ishape = in.grid.block_shape(ibi);
      std::vector<index_t> i(static_cast<std::size_t>(p.ndim), 0);
      for (index_t e = 0; e < p.elements(); ++e) {
        index_t rest = e, src = p.src, dst = p.dst;
        for (int k = p.ndim; k-- > 0;) {
          const index_t ik = rest % p.extent[k];
          rest /= p.extent[k];
          src += ik * p.src_stride[k];
          dst += ik * p.dst_stride[k];
        }
        ASSERT_GE(dst, 0);
        ASSERT_LT(dst, bshape.size());
        ASSERT_GE(src, 0);
        ASSERT_LT(src, ishape.size());
        ++written[static_cast<std::size_t>(dst)];
        // Global positions of both ends.
        std::vector<index_t> out_idx(boff.size()), in_idx(ioff.size());
        index_t r = dst;
        for (std::size_t k = boff.size(); k-- > 0;) {
          out_idx[k] = boff[k] + r % bshape[static_cast<index_t>(k)];
          r /= bshape[static_cast<index_t>(k)];
        }
        r = src;
        for (std::size_t k = ioff.size(); k-- > 0;) {
          in_idx[k] = ioff[k] + r % ishape[static_cast<index_t>(k)];
          r /= ishape[static_cast<index_t>(k)];
        }
        if (ps.kind == graph::AssembleParams::Kind::reshape) {
          index_t fo = 0, fi = 0;
          for (std::size_t k = 0; k < out_idx.size(); ++k)
            fo += out_idx[k] * n.shape.strides()[k];
          for (std::size_t k = 0; k < in_idx.size(); ++k)
            fi += in_idx[k] * in.shape.strides()[k];
          ASSERT_EQ(fo, fi) << "block " << b;
        } else {
          index_t shift = 0;
          for (int j = 0; j < p.operand; ++j)
            shift += n.inputs[static_cast<std::size_t>(j)]->shape[ps.axis];
          in_idx[static_cast<std::size_t>(ps.axis)] += shift;
          ASSERT_EQ(out_idx, in_idx) << "block " << b;
        }
      }
    }
    for (int w : written)
      ASSERT_EQ(w, 1) << "block " << b << " of " << n.grid.to_string();
  }
}

TEST(ReshapePlan, RowsOfOneInputBlockMergeIntoOneBoxPerInputBlock) {
  // (4, 6) in (2, 3) blocks read as (24,) in blocks of 12: output block 0 is input rows 0 and 1,
  // two rows of three from each of input blocks (0, 0) and (0, 1).
  const auto r = graph::make_reshape(stored(Shape{4, 6}, {2, 3}), {24}, std::vector<index_t>{12});
  ASSERT_EQ(r->kind, graph::NodeKind::assemble);
  const auto pieces = assemble_pieces(*r, 0);
  ASSERT_EQ(pieces.size(), 2u);
  for (std::size_t j = 0; j < 2; ++j) {
    const CopyPiece& p = pieces[j];
    EXPECT_EQ(p.block, static_cast<index_t>(j));
    ASSERT_EQ(p.ndim, 2);
    EXPECT_EQ(p.extent[0], 2);
    EXPECT_EQ(p.extent[1], 3);
    EXPECT_EQ(p.src, 0);
    EXPECT_EQ(p.src_stride[0], 3);
    EXPECT_EQ(p.src_stride[1], 1);
    EXPECT_EQ(p.dst, static_cast<index_t>(3 * j));
    EXPECT_EQ(p.dst_stride[0], 6);
    EXPECT_EQ(p.dst_stride[1], 1);
  }
  expect_exact_cover(*r);
}

TEST(ReshapePlan, CompatibleGridsPassBlocksThroughWithoutCopies) {
  // (24,) in blocks of 6 as (4, 6): each output block is one input block in its own layout.
  const auto x = stored(Shape{24}, {6});
  const auto r = graph::make_reshape(x, {4, -1}, std::nullopt);
  for (index_t b = 0; b < 4; ++b) {
    const auto pieces = assemble_pieces(*r, b);
    ASSERT_EQ(pieces.size(), 1u);
    EXPECT_TRUE(plan::detail::is_whole_block(pieces, 6, *r));
  }
  std::vector<double> out;
  const auto p = plan_for(r, out);
  EXPECT_EQ(count_tasks(p, TaskKind::assemble), 0) << p.describe();
  // A grid that is not compatible copies: (24,) in 5s as (4, 6).
  const auto q = graph::make_reshape(stored(Shape{24}, {5}), {4, 6}, std::vector<index_t>{1, 6});
  const auto pq = plan_for(q, out);
  EXPECT_EQ(count_tasks(pq, TaskKind::assemble), 4);
  EXPECT_NE(pq.describe().find("assembles: 4"), std::string::npos);
}

TEST(ReshapePlan, EveryElementIsWrittenOnceUnderRandomShapesAndChunks) {
  std::mt19937_64 rng(17);
  const std::vector<std::pair<Shape, std::vector<index_t>>> cases = {
      {Shape{12}, {3, 4}},          {Shape{3, 4}, {2, 6}},     {Shape{2, 3, 4}, {4, 6}},
      {Shape{6, 10}, {4, 15}},      {Shape{5, 1, 6}, {2, 15}}, {Shape{8, 9}, {3, 4, 6}},
      {Shape{2, 2, 3, 5}, {6, 10}}, {Shape{30}, {2, 3, 5}},    {Shape{7, 11}, {11, 7}},
  };
  for (const auto& [from, to] : cases)
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<index_t> ci, co;
      for (index_t e : from.extents())
        ci.push_back(1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(e)));
      for (index_t e : to)
        co.push_back(1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(e)));
      SCOPED_TRACE(from.to_string() + " -> " + Shape(to).to_string());
      const auto x = stored(from, ci);
      const auto given = graph::make_reshape(x, to, co);
      if (given->kind == graph::NodeKind::assemble)
        expect_exact_cover(*given);
      const auto chosen = graph::make_reshape(x, to, std::nullopt);
      if (chosen->kind == graph::NodeKind::assemble)
        expect_exact_cover(*chosen);
    }
}

TEST(ReshapePlan, ConcatenatedBlocksEachReadOneInputBlock) {
  const auto a = stored(Shape{3, 7}, {2, 3}), b = stored(Shape{4, 7}, {4, 2});
  const auto c = graph::make_concatenate({a, b}, 0);
  EXPECT_EQ(c->grid.lengths(0), (std::vector<index_t>{2, 1, 4}));
  EXPECT_EQ(c->grid.lengths(1), (std::vector<index_t>{2, 1, 1, 2, 1})); // cuts of 2, 3, 4, 6
  for (index_t blk = 0; blk < c->grid.numblocks(); ++blk)
    EXPECT_EQ(assemble_pieces(*c, blk).size(), 1u);
  expect_exact_cover(*c);
  // Operands of one grid off the axis: every block is an operand's block, nothing is copied.
  const auto d = graph::make_concatenate({a, a, stored(Shape{5, 7}, {3, 3})}, 0);
  std::vector<double> out;
  EXPECT_EQ(count_tasks(plan_for(d, out), TaskKind::assemble), 0);
}

/// The most blocks (outputs of program and assemble tasks; not reduction partials) alive at once
/// when `p` runs one task at a time in id order: a block lives from its task until the last
/// task that reads it.
std::size_t peak_live_blocks(const plan::Plan& p) {
  std::vector<plan::TaskId> last(p.tasks.size(), 0);
  for (std::size_t t = 0; t < p.tasks.size(); ++t)
    for (plan::TaskId d : p.deps[t])
      last[d] = std::max<plan::TaskId>(last[d], static_cast<plan::TaskId>(t));
  auto is_block = [&](std::size_t t) {
    const plan::Task& task = p.tasks[t];
    return task.output.kind == plan::Output::Kind::buffer &&
           (task.kind == TaskKind::program || task.kind == TaskKind::assemble);
  };
  std::size_t live = 0, peak = 0;
  std::vector<std::size_t> ending(p.tasks.size(), 0);
  for (std::size_t t = 0; t < p.tasks.size(); ++t)
    if (is_block(t) && last[t] > t)
      ++ending[last[t]];
  for (std::size_t t = 0; t < p.tasks.size(); ++t) {
    if (is_block(t) && last[t] > t)
      ++live;
    peak = std::max(peak, live);
    live -= ending[t];
  }
  return peak;
}

TEST(ReshapePlan, LiveBlocksStayBoundedByTheBlocksBeingAssembled) {
  // A computed (random) input of 16 x 16 blocks, so that its blocks are task outputs.
  Generator gen(1);
  const auto x = gen.normal<double>(Shape{256, 256}, Chunks{16, 16});
  std::vector<double> out;
  // Each output block reads one row of 16 input blocks: about one block row is live at a time.
  const auto flat = reshape(x, {65536}, Chunks{4096});
  const auto pf = plan_for(flat.node(), out);
  EXPECT_EQ(count_tasks(pf, TaskKind::assemble), 16);
  EXPECT_LE(peak_live_blocks(pf), 2u * 16u + 2u) << "of " << pf.tasks.size() << " tasks";
  // A split of each row: output blocks of a row's input blocks.
  const auto split = reshape(x, {256, 16, 16});
  const auto ps = plan_for(split.node(), out);
  EXPECT_LE(peak_live_blocks(ps), 2u * 16u + 2u) << "of " << ps.tasks.size() << " tasks";
  // The same through a sum whose blocks span whole rows: the partials and the order of the
  // reduction tree keep no more input blocks alive. (A grid whose blocks cut the rows, where every
  // result needs every input block, is ordered by the reduction's results, not bounded here.)
  const auto summed = reshape(x, {128, 512}, Chunks{8, 512}).sum(Axes{0});
  const auto pr = plan_for(summed.node(), out);
  EXPECT_LE(peak_live_blocks(pr), 2u * 16u + 2u) << "of " << pr.tasks.size() << " tasks";
}

TEST(ReshapePlan, EmptyBlocksHaveNoPieces) {
  const auto r = graph::make_reshape(stored(Shape{0, 4}, {1, 2}), {4, 0}, std::nullopt);
  ASSERT_EQ(r->kind, graph::NodeKind::assemble);
  for (index_t b = 0; b < r->grid.numblocks(); ++b)
    EXPECT_TRUE(assemble_pieces(*r, b).empty());
}

} // namespace
