// SPDX-License-Identifier: Apache-2.0
// Deep graphs: chains of a million operations, tens of thousands of views, sums of thousands of
// arrays and chains of reductions plan, compute and are destroyed without deep recursion (the
// default 8 MiB stack, sanitizer frames included), with values checked against closed forms.
#include "plan/plan.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <thread>

#ifndef CHUNKED_DEEP_CHAIN_LENGTH
#define CHUNKED_DEEP_CHAIN_LENGTH 1000000
#endif

namespace {

using namespace chunked;
using A = ChunkedArray<double, Cpu>;

constexpr index_t chain_length = CHUNKED_DEEP_CHAIN_LENGTH;

// x = x + 1 a million times over ragged blocks: one graph node per operation (and a constant and
// its broadcast). Planning stores an intermediate wherever a program reaches its size cap.
TEST(DeepGraphs, MillionOperationChainComputesAndIsDestroyed) {
  A x = zeros<double, Cpu>(Shape{16}, Chunks{5});
  for (index_t i = 0; i < chain_length; ++i)
    x = x + 1.0;
  const NDArray<double> r = x.compute();
  for (index_t i = 0; i < 16; ++i)
    ASSERT_EQ(r.data()[i], static_cast<double>(chain_length));
  x = A(); // the whole chain goes with its last reference
}

// A chain whose top is released on another thread while this one still holds a node halfway down:
// the lower half survives and computes.
TEST(DeepGraphs, ChainReleasedOnAnotherThreadKeepsTheSharedPart) {
  constexpr index_t n = 200000;
  A x = arange<double, Cpu>(0.0, 16.0, 1.0, 6);
  A middle;
  for (index_t i = 0; i < n; ++i) {
    x = x - 1.0;
    if (i + 1 == n / 2)
      middle = x;
  }
  std::thread([top = std::move(x)]() mutable { top = A(); }).join();
  const NDArray<double> r = middle.compute();
  for (index_t i = 0; i < 16; ++i)
    ASSERT_EQ(r.data()[i], static_cast<double>(i - n / 2)) << "element " << i;
}

// Each view drops the first element: the last one reads elements 20000 .. 20015 of the base, across
// its ragged blocks.
TEST(DeepGraphs, TwentyThousandChainedViews) {
  constexpr index_t n = 20000;
  A x = arange<double, Cpu>(0.0, static_cast<double>(n + 16), 1.0, 997) + 0.5;
  for (index_t i = 0; i < n; ++i)
    x = x(slice(1, none));
  ASSERT_EQ(x.shape(), Shape{16});
  const NDArray<double> r = x.compute();
  for (index_t i = 0; i < 16; ++i)
    ASSERT_EQ(r.data()[i], static_cast<double>(n + i) + 0.5) << "element " << i;
}

// Ten thousand distinct arrays summed one after another: each is a leaf of its own, so the
// planner stores an intermediate every time a program reaches its leaf cap.
TEST(DeepGraphs, SumOfTenThousandArrays) {
  constexpr index_t n = 10000;
  A acc = zeros<double, Cpu>(Shape{16}, Chunks{6});
  for (index_t k = 0; k < n; ++k)
    acc = acc + arange<double, Cpu>(static_cast<double>(k), static_cast<double>(k + 16), 1.0, 6);
  const NDArray<double> r = acc.compute();
  // sum over k of (k + i), exact in doubles.
  for (index_t i = 0; i < 16; ++i)
    ASSERT_EQ(r.data()[i], static_cast<double>(n * (n - 1) / 2 + n * i)) << "element " << i;
}

// x <- x - sum(x) / 16 + 1: a reduction per level, each read by the next level and reducing the
// previous one. From arange, every level after the first is arange - 6.5 (exactly).
TEST(DeepGraphs, ChainOfReductions) {
  constexpr index_t n = 20000;
  A x = arange<double, Cpu>(0.0, 16.0, 1.0, 5);
  for (index_t k = 0; k < n; ++k)
    x = x - x.sum(Axes{0}, true) / 16.0 + 1.0;
  const NDArray<double> r = x.compute();
  for (index_t i = 0; i < 16; ++i)
    ASSERT_EQ(r.data()[i], static_cast<double>(i) - 6.5) << "element " << i;
}

// Rechunks between additions: the chunk lengths change at every step, so stored intermediates
// are read through gathers.
TEST(DeepGraphs, ChainOfRechunks) {
  constexpr index_t n = 20000;
  A x = arange<double, Cpu>(0.0, 16.0, 1.0, 4);
  const index_t lengths[] = {3, 5, 7, 16, 1};
  for (index_t k = 0; k < n; ++k) {
    x = x.rechunk(Chunks{lengths[k % 5]});
    if (k % 10 == 0)
      x = x + 1.0;
  }
  const NDArray<double> r = x.compute();
  for (index_t i = 0; i < 16; ++i)
    ASSERT_EQ(r.data()[i], static_cast<double>(i + n / 10)) << "element " << i;
}

// A program past the instruction cap is split near the cap, not into single operations: a chain
// of adds needs about one stage per max_program_instrs operations.
TEST(DeepGraphs, LongChainsSplitIntoFewFullPrograms) {
  constexpr index_t n = 10 * plan::max_program_instrs;
  A x = zeros<double, Cpu>(Shape{16}, Chunks{16});
  for (index_t i = 0; i < n; ++i)
    x = x + 1.0;
  plan::Request r;
  r.node = x.node();
  r.kind = plan::Request::Kind::blocks;
  const plan::Plan p = plan::make_plan({r});
  EXPECT_LE(p.stages.size(), 11u) << "stages of " << n << " chained additions";
  for (const auto& st : p.stages)
    EXPECT_LE(st.program.instrs.size(), static_cast<std::size_t>(plan::max_program_instrs));
}

} // namespace
