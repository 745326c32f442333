// SPDX-License-Identifier: Apache-2.0
// explain() and to_dot(): the programs with their leaves by API name and the slices pushed into
// them, task and block counts worked out by hand, intermediates with their reasons, bytes, and a
// Graphviz graph whose size depends on the stages, not the blocks.
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

using namespace chunked;

/// Passes when `text` holds `what`; a failure shows both.
::testing::AssertionResult contains(const std::string& text, const std::string& what) {
  if (text.find(what) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected\n  " << what << "\nin\n" << text;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// The example of DESIGN 5: the slice is pushed into the generator, so the program generates only
// the kept quarter and stores nothing. 16 blocks of (125, 125) after the slice, each too small
// for the CPU's split (2^16 elements a task), so 16 partial tasks; 16 partials fold in a tree of
// fan-in 8: two combines and a root; one program copies the root into the destination.
TEST(Explain, SlicedNormalSumNamesTheLeafThePushedSliceAndTheCounts) {
  Generator g(42);
  const auto s = g.normal<double, Cpu>(Shape{1000, 1000}, Chunks{250, 250})(slice(none, none, 2),
                                                                            slice(none, none, 2))
                     .sum();
  const std::string e = s.explain();
  EXPECT_TRUE(contains(e, "explain: float64 array of shape () in 1 block, planned for the Cpu"));
  EXPECT_TRUE(contains(e, "20 tasks: 17 program, 3 combine\n"));
  EXPECT_TRUE(contains(e, "program 0: 16 tasks over (500, 500) in 4x4 = 16 blocks of (125, 125)"));
  EXPECT_TRUE(contains(e, "v0 = normal float64 (mean 0, stddev 1, seed 42, stream 0) of shape "
                          "(1000, 1000), index map 0+2000*i0+2*i1"));
  EXPECT_TRUE(contains(e, "slice pushed into leaf: reads normal[::2, ::2] (every 2nd element "
                          "along axis 0, every 2nd element along axis 1)"));
  EXPECT_TRUE(contains(e, "sink: sum over axes (0, 1) into partial states, read by combine 0 "
                          "(sum)"));
  EXPECT_TRUE(contains(e, "combine 0 (sum): 3 tasks folding 16 partial states into 1 result "
                          "block"));
  EXPECT_TRUE(contains(e, "result: 1 block, written by 1 task into the destination"));
  EXPECT_TRUE(contains(e, "bytes read: 0 B from arrays in memory, 0 B from storage"));
  EXPECT_TRUE(contains(e, "bytes written: 8 B into the destination"));
  // The reduction's result is the one intermediate: 8 bytes, stored because it spans blocks.
  EXPECT_TRUE(contains(e, "combine 0 (sum): 1 block, 8 B; why: a reduction across blocks"));
  EXPECT_EQ(e, s.explain()) << "explain() must be deterministic";
}

// 4x3 blocks of 100x100 summed along axis 0: 12 partial tasks, one combine per column of blocks
// (4 partials each, under the fan-in), 3 destination blocks of 100 elements.
TEST(Explain, AxisSumShowsTheFusedAddAndOneCombinePerOutputBlock) {
  Generator g(7);
  const auto x = g.normal<double, Cpu>(Shape{400, 300}, Chunks{100, 100});
  const std::string e = (x + 1.0).sum(Axes{0}).explain();
  EXPECT_TRUE(contains(e, "explain: float64 array of shape (300,) in 3 blocks of (100,)"));
  EXPECT_TRUE(contains(e, "18 tasks: 15 program, 3 combine\n"));
  EXPECT_TRUE(contains(e, "program 0: 12 tasks over (400, 300) in 4x3 = 12 blocks of (100, 100)"));
  EXPECT_TRUE(contains(e, "v1 = constant float64 1\n"));
  EXPECT_TRUE(contains(e, "v2 = add float64 (v0, v1)"));
  EXPECT_TRUE(contains(e, "sink: sum over axes (0,) into partial states, read by combine 0"));
  EXPECT_TRUE(contains(e, "combine 0 (sum): 3 tasks folding 12 partial states into 3 result "
                          "blocks"));
  EXPECT_TRUE(contains(e, "program 1: 3 tasks over (300,) in 3 blocks of (100,)"));
  // The normal leaf is read whole, in place: no slice to report.
  EXPECT_EQ(count_of(e, "slice pushed"), 0u);
}

std::vector<double> iota(std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<double>(i);
  return v;
}

TEST(Explain, FromHostIsAStoredLeafAndCountsTheBytesItReads) {
  const auto data = iota(100 * 100);
  const auto a = from_host<Cpu>(data, Shape{100, 100}, Chunks{50, 50});
  const std::string e = (a * 2.0).explain();
  EXPECT_TRUE(contains(e, "4 tasks: 4 program\n"));
  EXPECT_TRUE(contains(e, "v0 = stored float64 of shape (100, 100), stored array 1 (from_host or "
                          "persist), index map 0+50*i0+1*i1"));
  EXPECT_TRUE(contains(e, "v2 = mul float64 (v0, v1)"));
  EXPECT_TRUE(contains(e, "bytes read: 80 kB from arrays in memory"));
  EXPECT_TRUE(contains(e, "bytes written: 80 kB into the destination"));
  EXPECT_TRUE(contains(e, "intermediates stored: none"));

  // A slice of stored blocks is a map into the block it starts in, spelt over the whole array.
  const std::string v = a(slice(10, 60), slice(none, none, -1)).explain();
  EXPECT_TRUE(contains(v, "slice pushed into leaf: reads stored[10:60, ::-1] (elements 10 to 59 "
                          "along axis 0, reversed along axis 1)"));
}

// Rechunking 2x2 blocks of 50 into blocks of 30: along each axis the block [30, 60) spans two
// source blocks, so 16 - 3*3 = 7 of the 16 new blocks are gathered first.
TEST(Explain, RechunkGathersTheBlocksThatSpanSourceBlocksAndSaysWhy) {
  const auto data = iota(100 * 100);
  const auto a = from_host<Cpu>(data, Shape{100, 100}, Chunks{50, 50}).rechunk(Chunks{30, 30});
  const std::string e = a.explain();
  EXPECT_TRUE(contains(e, "23 tasks: 16 program, 7 gather\n"));
  EXPECT_TRUE(contains(e, "; 7 of its 16 tasks read it through gathers"));
  EXPECT_TRUE(contains(e, "gathers from stored array 1 (from_host or persist): 7 tasks making 7 "
                          "blocks"));
  EXPECT_TRUE(contains(e, "why: the reads of program 0 span several blocks (a rechunk, or a "
                          "slice across block boundaries)"));
}

TEST(Explain, MapOverlapGathersHalosForTheUserFunction) {
  const auto data = iota(40 * 40);
  const auto x = from_host<Cpu>(data, Shape{40, 40}, Chunks{20, 20});
  const auto noop = [](const BlockInfo&, BlockView<double>, BlockView<const double>) {};
  const std::string e = map_overlap<double>(noop, x, 1, Boundary::periodic).explain();
  EXPECT_TRUE(contains(e, " 4 user"));
  EXPECT_TRUE(contains(e, "map_overlap/map_blocks reads each block with its halo"));
  EXPECT_TRUE(contains(e, "a user function computes whole blocks in memory; read by program 0"));
}

// One block of 10^6 elements is cut into pieces for the CPU's cores (at least 2^16 elements
// each); a user function needs the block whole, so a join holds it once its pieces are written.
TEST(Explain, BlocksWrittenInPiecesAreJoinedForAUserFunction) {
  Generator g(9);
  const auto x = g.normal<double, Cpu>(Shape{1000, 1000}, Chunks{1000, 1000});
  const auto same = [](const BlockInfo&, BlockView<double> out, BlockView<const double> in) {
    std::copy(in.data, in.data + in.size(), out.data);
  };
  const std::string e = map_blocks<double>(same, x + 1.0).explain();
  EXPECT_TRUE(contains(e, "sink: store pieces of blocks into their block's buffer, read by joins "
                          "of program 0"));
  EXPECT_TRUE(contains(e, "joins of program 0: 1 block, 8 MB; why: program 0 cuts each block "
                          "into pieces"));
  EXPECT_TRUE(contains(e, " 1 join, "));
}

// (x - mean) / std: the moments pass over x is one reduction across blocks, finalized into the
// mean and the std, which every block of the result reads; x itself is regenerated, not stored.
TEST(Explain, StandardizeStoresTheReductionsThatTheElementwiseProgramReads) {
  Generator g(3);
  const auto x = g.normal<double, Cpu>(Shape{1000, 100}, Chunks{100, 100});
  const std::string e = ((x - x.mean()) / x.std()).explain();
  EXPECT_TRUE(contains(e, "into partial states, read by combine"));
  EXPECT_TRUE(contains(e, "mean from the var moments pass"));
  EXPECT_TRUE(contains(e, "std from the var moments pass"));
  EXPECT_TRUE(contains(e, "intermediates stored (materialised):\n"));
  EXPECT_GE(count_of(e, "why: a reduction across blocks"), 1u);
  EXPECT_TRUE(contains(e, "v1 = blocks of combine"));
  EXPECT_TRUE(contains(e, "v3 = sub float64"));
  EXPECT_TRUE(contains(e, "v4 = div float64"));
}

TEST(Explain, LazyLeafIsNamedByItsLoaderAndSlicesLoadOnlyTheirBlocks) {
  const auto dir = std::filesystem::temp_directory_path() / "chunked_explain \"q\" \\";
  std::filesystem::create_directories(dir);
  const auto path = dir / "x.npy";
  const auto data = iota(40 * 40);
  save_npy(path, from_host<Cpu>(data, Shape{40, 40}, Chunks{40, 40}));
  const auto x = load_npy<double>(path, Chunks{20, 20});
  const auto part = x(slice(0, 10), slice(0, 10));
  const std::string e = part.explain();
  EXPECT_TRUE(contains(e, "load_npy float64 of shape (40, 40), npy file"));
  EXPECT_TRUE(contains(e, "1 of its 4 blocks"));
  EXPECT_TRUE(contains(e, "bytes read: 0 B from arrays in memory, 3.2 kB from storage"));
  EXPECT_TRUE(contains(e, "slice pushed into leaf: reads load_npy[:10, :10]"));
  // Quotes and backslashes of the path are escaped in the graph's labels.
  const std::string d = part.to_dot();
  EXPECT_TRUE(contains(d, "chunked_explain \\\"q\\\" \\\\"));
  std::filesystem::remove_all(dir);
}

bool balanced(const std::string& dot) {
  long depth = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < dot.size(); ++i) {
    if (quoted && dot[i] == '\\') {
      ++i;
      continue;
    }
    if (dot[i] == '"')
      quoted = !quoted;
    else if (!quoted && (dot[i] == '{' || dot[i] == '}'))
      depth += dot[i] == '{' ? 1 : -1;
    if (depth < 0)
      return false;
  }
  return depth == 0 && !quoted;
}

TEST(Explain, ToDotIsABalancedDigraphWithEdgesAndStaysSmallForManyBlocks) {
  Generator g(42);
  const auto s = g.normal<double, Cpu>(Shape{1000, 1000}, Chunks{250, 250})(slice(none, none, 2),
                                                                            slice(none, none, 2))
                     .sum();
  const std::string d = s.to_dot();
  EXPECT_EQ(d.rfind("digraph chunked {", 0), 0u) << d;
  EXPECT_TRUE(balanced(d)) << d;
  EXPECT_TRUE(contains(d, "g0 -> g1 [label=\"16\"]"));
  EXPECT_TRUE(contains(d, "-> destination"));
  EXPECT_TRUE(contains(d, "normal[::2, ::2]"));

  // 10,000 blocks, 10,000 partial tasks and their combine tree: still a handful of nodes.
  const auto big = g.normal<double, Cpu>(Shape{10000, 10000}, Chunks{100, 100});
  const std::string b = ((big + 1.0).sum(Axes{0}) * 2.0).to_dot();
  EXPECT_TRUE(balanced(b)) << b;
  EXPECT_LT(count_of(b, "\n"), 50u) << b;
  EXPECT_TRUE(contains(b, "10000 tasks"));
  const std::string e = ((big + 1.0).sum(Axes{0}) * 2.0).explain();
  EXPECT_LT(count_of(e, "\n"), 50u) << e;
}

TEST(Explain, CudaAndAutoArraysAreExplainedWhereverTheyRun) {
  Generator g(1);
  const std::string cuda = g.normal<float, Cuda>(Shape{100, 100}, Chunks{50, 50}).sum().explain();
  EXPECT_TRUE(contains(cuda, "planned for the Cuda backend"));
  // The CUDA split keeps one task per block: 4 partials, 1 combine, 1 copy.
  EXPECT_TRUE(contains(cuda, "6 tasks: 5 program, 1 combine"));
  const std::string automatic = g.normal<float, Auto>(Shape{100, 100}, Chunks{50, 50}).explain();
  EXPECT_TRUE(contains(automatic, "(Auto: "));
  EXPECT_TRUE(contains(automatic, "program 0"));
}

TEST(Explain, EmptyArraysHaveNothingToCompute) {
  const auto e = zeros<double, Cpu>(Shape{0, 5}, Chunks{1, 5});
  EXPECT_TRUE(contains(e.explain(), "empty, nothing to compute (0 tasks, 0 blocks"));
  EXPECT_TRUE(balanced(e.to_dot()));
}

// Graphviz itself reads the graph, where it is installed.
TEST(Explain, DotAcceptsTheGraph) {
  if (std::system("command -v dot > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "graphviz's dot is not installed";
  Generator g(5);
  const auto x = g.normal<double, Cpu>(Shape{300, 300}, Chunks{100, 100});
  const auto data = iota(300 * 300);
  const auto y = from_host<Cpu>(data, Shape{300, 300}, Chunks{70, 70});
  const auto path = std::filesystem::temp_directory_path() / "chunked_explain_test.dot";
  {
    std::ofstream out(path);
    out << ((x - x.mean()) / x.std() + y).to_dot();
  }
  const std::string command = "dot -Tsvg '" + path.string() + "' -o /dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0);
  std::filesystem::remove(path);
}

} // namespace
