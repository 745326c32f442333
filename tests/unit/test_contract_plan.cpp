// SPDX-License-Identifier: Apache-2.0
// Plans of products of blocks: a chain of terms per output block, in the order of the contracted
// blocks, operands read where they are or computed per term, and no chain running ahead of its
// terms (what bounds a product's live memory by a few blocks per chain).
#include "plan/plan.hpp"
#include "support/plan_for.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {

using namespace chunked;
using plan::TaskKind;

using test::plan_for;

/// The product tasks of `p`, by output block, each chain in order.
std::vector<std::vector<plan::TaskId>> chains(const plan::Plan& p) {
  std::vector<std::vector<plan::TaskId>> out;
  for (plan::TaskId t = 0; t < p.tasks.size(); ++t) {
    const plan::Task& task = p.tasks[t];
    if (task.kind != TaskKind::product)
      continue;
    if (out.size() <= static_cast<std::size_t>(task.block))
      out.resize(static_cast<std::size_t>(task.block) + 1);
    out[static_cast<std::size_t>(task.block)].push_back(t);
  }
  return out;
}

TEST(ContractPlan, EachOutputBlockIsAChainOverTheContractedBlocksInOrder) {
  Generator g(1);
  const auto a = g.normal<double>(Shape{20, 30}, Chunks{10, 7}, 0.0, 1.0).persist();
  const auto b = g.normal<double>(Shape{30, 12}, Chunks{7, 5}, 0.0, 1.0).persist();
  std::vector<double> out;
  const plan::Plan p = plan_for(matmul(a, b).node(), out);
  const auto c = chains(p);
  ASSERT_EQ(c.size(), 2u * 3u); // (2 x 3) output blocks
  for (const auto& chain : c) {
    ASSERT_EQ(chain.size(), 5u); // 30 in blocks of 7
    for (std::size_t t = 0; t < chain.size(); ++t) {
      const plan::Task& task = p.tasks[chain[t]];
      const plan::ProductShape s = plan::product_shape(p, task);
      EXPECT_EQ(s.accumulate, t > 0);
      EXPECT_EQ(s.k, t + 1 < chain.size() ? 7 : 2);
      // Term t reads term t - 1's output, and its operands as stored blocks (no program).
      const plan::TaskInput* in = &p.inputs[task.inputs_begin];
      EXPECT_EQ(in[0].ref.kind, plan::InputRef::Kind::stored);
      EXPECT_EQ(in[1].ref.kind, plan::InputRef::Kind::stored);
      if (t > 0) {
        EXPECT_EQ(in[2].ref.task, chain[t - 1]);
      }
      EXPECT_EQ(p.product_terms[task.index].a_block % 5, static_cast<index_t>(t));
    }
  }
  for (const plan::Task& task : p.tasks)
    EXPECT_TRUE(task.kind != TaskKind::program ||
                task.output.kind == plan::Output::Kind::destination);
}

TEST(ContractPlan, ComputedOperandsAreComputedPerTermAndWaitForTheTermBeforeLast) {
  Generator g(2);
  const auto a = g.normal<double>(Shape{40, 64}, Chunks{10, 8}, 0.0, 1.0);
  const auto b = g.normal<double>(Shape{64, 40}, Chunks{8, 10}, 0.0, 1.0);
  std::vector<double> out;
  const plan::Plan p = plan_for(matmul(a * 2.0, b).node(), out);
  const auto c = chains(p);
  ASSERT_EQ(c.size(), 16u);
  for (const auto& chain : c) {
    ASSERT_EQ(chain.size(), 8u);
    for (std::size_t t = 0; t < chain.size(); ++t) {
      const plan::Task& task = p.tasks[chain[t]];
      for (int j = 0; j < 2; ++j) {
        const plan::InputRef& ref = p.inputs[task.inputs_begin + j].ref;
        ASSERT_EQ(ref.kind, plan::InputRef::Kind::task);
        ASSERT_EQ(p.tasks[ref.task].kind, TaskKind::program);
        // Read by this term alone: computed for it, freed after it.
        index_t readers = 0;
        for (plan::TaskId u = 0; u < p.tasks.size(); ++u)
          readers += std::count(p.deps[u].begin(), p.deps[u].end(), ref.task);
        EXPECT_EQ(readers, 1);
        const auto& deps = p.deps[ref.task];
        EXPECT_EQ(std::find(deps.begin(), deps.end(), t >= 2 ? chain[t - 2] : ~0u) != deps.end(),
                  t >= 2);
      }
    }
  }
}

} // namespace
