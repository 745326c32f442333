// SPDX-License-Identifier: Apache-2.0
// The shape of a reduction's combine tree (src/plan/reduction_tree.hpp) for given partial counts
// and fan-ins: every partial once and in order, each combine after its inputs, bounded fan-in,
// the least depth, and the exact trees of a few counts.
#include "plan/reduction_tree.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using chunked::index_t;
using chunked::plan::detail::build_combine_tree;

/// A tree written out: partials as their member numbers, combines as [parts].
struct Recorded {
  std::vector<std::string> text; ///< per id
  std::vector<int> depth;        ///< per id: combine levels at and below it
  std::vector<index_t> partials; ///< member numbers in the order made
  int roots = 0;
  bool root_last = true;
  bool inputs_first = true;
  std::size_t widest = 0, narrowest = ~std::size_t{0};

  int build(index_t members, index_t fanin) {
    return build_combine_tree(
        members, fanin,
        [&](index_t m) {
          partials.push_back(m);
          text.push_back(std::to_string(m));
          depth.push_back(0);
          return static_cast<int>(text.size()) - 1;
        },
        [&](const std::vector<int>& parts, bool root) {
          std::string s = "[";
          int d = 0;
          for (const int p : parts) {
            s += (s.size() > 1 ? " " : "") + text[static_cast<std::size_t>(p)];
            d = std::max(d, depth[static_cast<std::size_t>(p)]);
            inputs_first = inputs_first && p < static_cast<int>(text.size());
          }
          root_last = root_last && roots == 0;
          roots += root ? 1 : 0;
          widest = std::max(widest, parts.size());
          narrowest = std::min(narrowest, parts.size());
          text.push_back(s + "]");
          depth.push_back(d + 1);
          return static_cast<int>(text.size()) - 1;
        });
  }
};

/// Combine levels a tree of fan-in f needs over n partials: the least d with f^d >= n (1 for n
/// of 1 or less, as every partial goes through one combine).
int least_depth(index_t n, index_t f) {
  int d = 1;
  for (index_t cap = f; cap < n; cap *= f)
    ++d;
  return d;
}

TEST(ReductionTree, EveryPartialOnceInOrderUnderBoundedCombines) {
  for (const index_t fanin : {2, 3, 8}) {
    for (index_t n = 1; n <= 600; ++n) {
      Recorded r;
      const int root = r.build(n, fanin);
      ASSERT_EQ(r.partials.size(), static_cast<std::size_t>(n));
      for (index_t m = 0; m < n; ++m)
        ASSERT_EQ(r.partials[static_cast<std::size_t>(m)], m);
      EXPECT_EQ(root, static_cast<int>(r.text.size()) - 1) << "the root is made last";
      EXPECT_EQ(r.roots, 1);
      EXPECT_TRUE(r.inputs_first);
      EXPECT_LE(r.widest, static_cast<std::size_t>(fanin));
      EXPECT_GE(r.narrowest, 1u);
      EXPECT_EQ(r.depth[static_cast<std::size_t>(root)], least_depth(n, fanin))
          << "n " << n << " fanin " << fanin;
    }
  }
}

TEST(ReductionTree, ShapeDependsOnlyOnTheCount) {
  Recorded a, b;
  a.build(1000, 8);
  b.build(1000, 8);
  EXPECT_EQ(a.text, b.text);
}

TEST(ReductionTree, ExactTreesOfSmallCounts) {
  auto tree = [](index_t n, index_t f) {
    Recorded r;
    return r.text[static_cast<std::size_t>(r.build(n, f))];
  };
  EXPECT_EQ(tree(1, 8), "[0]");
  EXPECT_EQ(tree(8, 8), "[0 1 2 3 4 5 6 7]");
  EXPECT_EQ(tree(9, 8), "[[0 1 2 3 4 5 6 7] [8]]");
  EXPECT_EQ(tree(5, 2), "[[[0 1] [2 3]] [4]]");
  EXPECT_EQ(tree(7, 3), "[[0 1 2] [3 4 5] [6]]");
  EXPECT_EQ(tree(10, 3), "[[[0 1 2] [3 4 5] [6 7 8]] [9]]");
  // 65 partials of fan-in 8: a full subtree of 64 (8 combines of 8), then one of the last.
  Recorded r;
  const int root = r.build(65, 8);
  EXPECT_EQ(r.text.size(), 65u + 8u + 1u + 1u + 1u);
  EXPECT_EQ(r.depth[static_cast<std::size_t>(root)], 3);
}

TEST(ReductionTree, NoPartialsIsOneEmptyCombine) {
  Recorded r;
  EXPECT_EQ(r.text[static_cast<std::size_t>(r.build(0, 8))], "[]");
  EXPECT_EQ(r.roots, 1);
}

} // namespace
