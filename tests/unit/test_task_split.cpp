// SPDX-License-Identifier: Apache-2.0
// Splitting large blocks into several tasks: the grids it makes, and that plans cut that way
// compute what the block-per-task plans compute, deterministically.
#include "backend/cpu/executor.hpp"
#include "plan/plan.hpp"
#include "plan/task_split.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace {

using namespace chunked;
using plan::TaskKind;
using plan::TaskSplit;

std::vector<index_t> all_lengths(const ChunkGrid& g, index_t axis) { return g.lengths(axis); }

TEST(TaskSplit, GridsWithEnoughBlocksAreKept) {
  const ChunkGrid g(Shape{1000, 1000}, std::vector<index_t>{100, 100});
  EXPECT_EQ(plan::split_for_tasks(g, 0b11, TaskSplit{64, 1, 1}), g);
  EXPECT_EQ(plan::split_for_tasks(g, 0b11, TaskSplit{}), g) << "min_tasks 1 never splits";
}

TEST(TaskSplit, OuterAllowedAxisIsCutFirstIntoNearEqualPiecesInsideEachBlock) {
  // Blocks of 10 and 7 rows, 5 and 5 columns: 4 blocks; 16 tasks wanted, columns only.
  const ChunkGrid g(std::vector<std::vector<index_t>>{{10, 7}, {5, 5}});
  const ChunkGrid cols = plan::split_for_tasks(g, 0b10, TaskSplit{16, 1, 1});
  EXPECT_EQ(all_lengths(cols, 0), (std::vector<index_t>{10, 7})) << "axis 0 is not allowed";
  EXPECT_EQ(all_lengths(cols, 1), (std::vector<index_t>{2, 1, 1, 1, 2, 1, 1, 1}));
  // Both axes allowed: rows first (10 -> 4 pieces, 7 -> 4), which already gives 16 tasks.
  const ChunkGrid both = plan::split_for_tasks(g, 0b11, TaskSplit{16, 1, 1});
  EXPECT_EQ(all_lengths(both, 0), (std::vector<index_t>{3, 3, 2, 2, 2, 2, 2, 1}));
  EXPECT_EQ(all_lengths(both, 1), (std::vector<index_t>{5, 5}));
  // Rows cannot make 64 tasks alone (at most 10 pieces of a block): columns are cut next.
  const ChunkGrid more = plan::split_for_tasks(g, 0b11, TaskSplit{64, 1, 1});
  EXPECT_EQ(all_lengths(more, 0).size(), 17u) << "every row its own piece";
  EXPECT_EQ(all_lengths(more, 1), (std::vector<index_t>{3, 2, 3, 2}));
  EXPECT_EQ(more.shape(), g.shape());
}

TEST(TaskSplit, PiecesKeepTheSmallestTaskSize) {
  const ChunkGrid g(Shape{1000, 100}, std::vector<index_t>{1000, 100});
  // 100 000 elements, at least 30 000 per task: 3 pieces, not 64.
  const ChunkGrid s = plan::split_for_tasks(g, 0b11, TaskSplit{64, 30000});
  EXPECT_EQ(all_lengths(s, 0), (std::vector<index_t>{334, 333, 333}));
  EXPECT_EQ(all_lengths(s, 1), (std::vector<index_t>{100}));
  // Blocks already at the size bound are not cut at all.
  EXPECT_EQ(plan::split_for_tasks(g, 0b11, TaskSplit{64, 100000}), g);
}

// A ragged last block takes fewer pieces and the others make up for it, so the inner axis is
// not cut: 4 blocks of 100 rows and one of 3, 10 columns, 64 tasks wanted.
TEST(TaskSplit, OtherBlocksMakeUpForARaggedLastOne) {
  const ChunkGrid g(std::vector<std::vector<index_t>>{{100, 100, 100, 100, 3}, {10}});
  const ChunkGrid s = plan::split_for_tasks(g, 0b11, TaskSplit{64, 1, 1});
  EXPECT_EQ(all_lengths(s, 1), (std::vector<index_t>{10})) << "columns kept whole";
  ASSERT_EQ(all_lengths(s, 0).size(), 4u * 16u + 3u);
  EXPECT_EQ(all_lengths(s, 0).front(), 7);
  EXPECT_EQ(s.shape(), g.shape());
}

// Pieces keep contiguous runs of at least min_run_elements: a block of 4 rows of 1000 is cut
// into its rows, not into short pieces of rows; rows of 100000 may be cut.
TEST(TaskSplit, InnerAxesAreNotCutIntoShortRuns) {
  const ChunkGrid g(Shape{4, 1000}, std::vector<index_t>{4, 1000});
  const ChunkGrid s = plan::split_for_tasks(g, 0b11, TaskSplit{64, 1, 512});
  EXPECT_EQ(all_lengths(s, 0), (std::vector<index_t>{1, 1, 1, 1}));
  EXPECT_EQ(all_lengths(s, 1), (std::vector<index_t>{1000}));
  const ChunkGrid wide(Shape{4, 100000}, std::vector<index_t>{4, 100000});
  const ChunkGrid w = plan::split_for_tasks(wide, 0b11, TaskSplit{64, 1, 512});
  EXPECT_EQ(all_lengths(w, 0).size(), 4u);
  EXPECT_EQ(all_lengths(w, 1).size(), 16u) << "pieces of 6250 elements";
}

TEST(TaskSplit, EmptyAndScalarGridsAreKept) {
  const ChunkGrid empty(Shape{0, 50}, std::vector<index_t>{4, 50});
  EXPECT_EQ(plan::split_for_tasks(empty, 0b11, TaskSplit{64, 1, 1}), empty);
  const ChunkGrid scalar(Shape{}, std::vector<index_t>{});
  EXPECT_EQ(plan::split_for_tasks(scalar, 0, TaskSplit{64, 1, 1}), scalar);
}

/// Runs a plan of `node` into a host buffer of its shape on the CPU backend.
std::vector<std::byte> run(const graph::NodePtr& node, const TaskSplit& split, int threads,
                           index_t* program_tasks = nullptr) {
  std::vector<std::byte> out(static_cast<std::size_t>(node->shape.size()) *
                             dtype_size(node->dtype));
  plan::Request r;
  r.node = node;
  r.destination = plan::Destination{out.data(), node->dtype, node->shape, MemorySpace{}, {}};
  const plan::Plan p = plan::make_plan({r}, split);
  if (program_tasks) {
    *program_tasks = 0;
    for (const auto& t : p.tasks)
      *program_tasks += t.kind == TaskKind::program ? 1 : 0;
  }
  ComputeOptions options;
  options.num_threads = threads;
  cpu::execute(p, options);
  return out;
}

std::vector<double> as_doubles(const std::vector<std::byte>& bytes, DType dtype) {
  std::vector<double> v;
  if (dtype == DType::float64) {
    v.resize(bytes.size() / 8);
    std::memcpy(v.data(), bytes.data(), bytes.size());
  } else if (dtype == DType::float32) {
    std::vector<float> f(bytes.size() / 4);
    std::memcpy(f.data(), bytes.data(), bytes.size());
    v.assign(f.begin(), f.end());
  }
  return v;
}

// Elementwise results written into a caller's array do not depend on how the boxes are cut:
// random leaves, slices with negative steps and stored operands read the same positions.
TEST(TaskSplit, ElementwiseResultsAreBitwiseTheSameUnderEverySplit) {
  Generator rng(7);
  const auto x = rng.normal<double>(Shape{37, 23, 5}, Chunks{37, 23, 5});
  const auto u = rng.uniform<float>(Shape{40, 23, 5}, Chunks{13, 9, 5});
  std::vector<double> host(37 * 23 * 5);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<double>(i % 11) - 3.5;
  const auto s = from_host(host, Shape{37, 23, 5}, Chunks{20, 23, 2});
  const auto program = x * 2.0 + u(slice(3, none), slice(none, none, -1), all).astype<double>() - s;
  const auto base = run(program.node(), TaskSplit{}, 1);
  for (const index_t tasks : {2, 7, 64, 100000}) {
    index_t made = 0;
    EXPECT_EQ(run(program.node(), TaskSplit{tasks, 1, 1}, 3, &made), base) << tasks << " tasks";
    EXPECT_GE(made, std::min<index_t>(tasks, 37 * 23 * 5));
  }
}

/// Runs a plan that materialises the blocks of `node` (persist) on the CPU backend; returns the
/// blocks' bytes, one after another.
std::vector<std::byte> run_blocks(const graph::NodePtr& node, const TaskSplit& split, int threads,
                                  index_t* joins = nullptr) {
  plan::Request r;
  r.node = node;
  r.kind = plan::Request::Kind::blocks;
  const plan::Plan p = plan::make_plan({r}, split);
  if (joins) {
    *joins = 0;
    for (const auto& t : p.tasks)
      *joins += t.kind == TaskKind::join ? 1 : 0;
  }
  ComputeOptions options;
  options.num_threads = threads;
  const auto outputs = cpu::execute(p, options);
  std::vector<std::byte> all;
  const std::size_t esize = dtype_size(node->dtype);
  for (index_t b = 0; b < node->grid.numblocks(); ++b) {
    const auto& buffer = outputs[p.result_blocks[0][static_cast<std::size_t>(b)]];
    EXPECT_NE(buffer, nullptr);
    if (!buffer)
      return {};
    const auto bytes =
        static_cast<std::size_t>(node->grid.block_shape(node->grid.block_index(b)).size()) * esize;
    EXPECT_EQ(buffer->bytes(), bytes) << "block " << b;
    const auto* data = static_cast<const std::byte*>(buffer->data());
    all.insert(all.end(), data, data + bytes);
  }
  return all;
}

// Materialised blocks cut into pieces hold the same bits as blocks computed by one task each:
// persisted blocks, and intermediates stored because a program passed the size cap and then
// read through slices by the next stage.
TEST(TaskSplit, BlocksCutIntoPiecesHoldTheSameBits) {
  Generator rng(5);
  const auto x = rng.normal<double>(Shape{45, 31, 3}, Chunks{45, 20, 3});
  const auto u = rng.uniform<double>(Shape{45, 31, 3}, Chunks{45, 31, 3});
  const auto persisted = x(slice(none, none, -1), all, all) * 3.0 + u;
  const auto base = run_blocks(persisted.node(), TaskSplit{}, 1);
  for (const index_t tasks : {3, 16, 64, 100000}) {
    index_t joins = 0;
    EXPECT_EQ(run_blocks(persisted.node(), TaskSplit{tasks, 1, 1}, 1, &joins), base) << tasks;
    EXPECT_EQ(joins, 2) << "one join per block";
    EXPECT_EQ(run_blocks(persisted.node(), TaskSplit{tasks, 1, 1}, 4), base)
        << tasks << ", 4 threads";
  }
  auto chain = x * 0.5 + u;
  for (int i = 0; i < 2 * plan::max_program_instrs; ++i)
    chain = chain * 1.0001 + 0.25;
  const auto read =
      chain(slice(2, -3), slice(none, none, -2), all) - x(slice(2, -3), slice(none, none, -2), all);
  const auto want = run(read.node(), TaskSplit{}, 1);
  for (const index_t tasks : {5, 64})
    for (const int threads : {1, 3})
      EXPECT_EQ(run(read.node(), TaskSplit{tasks, 1, 1}, threads), want) << tasks;
}

// Reductions cut into more tasks fold the same values in another grouping: exact for integers,
// extrema and arg-extrema, within rounding for floating sums and moments; and for a given split
// the bits do not depend on the thread count.
TEST(TaskSplit, ReductionsUnderEverySplitMatchOneTaskPerBlock) {
  Generator rng(11);
  const auto x = rng.normal<double>(Shape{61, 47}, Chunks{61, 47}, 3.0, 2.0);
  const auto k = rng.integers<std::int64_t>(Shape{61, 47}, Chunks{30, 47}, -1000, 1000);
  struct Case {
    const char* name;
    graph::NodePtr node;
    bool exact;
  };
  std::vector<Case> cases;
  for (const Axes& axes : {Axes{}, Axes{0}, Axes{1}}) {
    cases.push_back({"sum", x.sum(axes).node(), false});
    cases.push_back({"mean", x.mean(axes).node(), false});
    cases.push_back({"std", x.std(axes, 1).node(), false});
    cases.push_back({"max", x.max(axes).node(), true});
    cases.push_back({"min", (x * -1.0).min(axes).node(), true});
    cases.push_back({"isum", k.sum(axes).node(), true});
    cases.push_back({"any", (k > 998).any(axes).node(), true});
    cases.push_back({"all", (k > -1000).all(axes).node(), true});
  }
  cases.push_back({"argmax", x.argmax().node(), true});
  cases.push_back({"argmin axis 0", x.argmin(0).node(), true});
  cases.push_back({"argmax axis 1", k.argmax(1).node(), true});
  cases.push_back({"standardize", ((x - x.mean(Axes{0})) / x.std(Axes{0})).node(), false});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto base = run(c.node, TaskSplit{}, 1);
    for (const index_t tasks : {4, 16, 64}) {
      index_t made = 0, unsplit = 0;
      run(c.node, TaskSplit{}, 1, &unsplit);
      const auto split = run(c.node, TaskSplit{tasks, 1, 1}, 1, &made);
      EXPECT_GT(made, unsplit) << tasks << " tasks";
      for (const int threads : {2, 5})
        EXPECT_EQ(run(c.node, TaskSplit{tasks, 1, 1}, threads), split)
            << tasks << " tasks on " << threads << " threads";
      if (c.exact) {
        EXPECT_EQ(split, base) << tasks << " tasks";
        continue;
      }
      const auto want = as_doubles(base, c.node->dtype);
      const auto got = as_doubles(split, c.node->dtype);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-12 * (1.0 + std::abs(want[i])))
            << tasks << " tasks, element " << i;
    }
  }
}

/// The column reduction `op` of a 16384 x 512 float64 array of one block.
graph::NodePtr column_reduction(std::uint64_t seed, plan::ReduceOp op) {
  Generator rng(seed);
  const auto x = rng.normal<double>(Shape{16384, 512}, Chunks{16384, 512}, 3.0, 2.0);
  graph::ReduceParams p;
  p.axes = {0};
  p.op = op;
  return graph::make_reduce(x.node(), p);
}

// An exact sum's partial is 75 words per kept element: its tasks fold at least 32 values per
// word of it, so a column sum is cut into far fewer tasks than a plain one, with the same bits.
TEST(TaskSplit, ExactSumsKeepTasksLargeForTheirPartials) {
  const graph::NodePtr plain = column_reduction(12, plan::ReduceOp::sum);
  const graph::NodePtr exact = column_reduction(12, plan::ReduceOp::exact_sum);
  index_t plain_tasks = 0, exact_tasks = 0, one = 0;
  run(plain, TaskSplit{64, 1, 1}, 1, &plain_tasks);
  const auto split = run(exact, TaskSplit{64, 1, 1}, 2, &exact_tasks);
  // Both plans also copy the result into the destination in the same number of tasks: the
  // plain sum folds in 64 tasks, the exact one in 6 pieces of 2730 or 2731 rows.
  EXPECT_EQ(plain_tasks - exact_tasks, 64 - 16384 * 512 / (512 * 75 * 32));
  EXPECT_EQ(split, run(exact, TaskSplit{}, 1, &one));
  EXPECT_LT(one, exact_tasks);
}

// Where the plan knows its threads (TaskSplit::workers), an exact sum with fewer tasks than
// threads is cut down to a task per thread, but no task folds fewer than 8 values per word of
// its partial; the bits stay those of one task per block.
TEST(TaskSplit, ExactSumsGiveEveryKnownThreadATask) {
  const graph::NodePtr exact = column_reduction(13, plan::ReduceOp::exact_sum);
  index_t unknown = 0, one = 0;
  const auto want = run(exact, TaskSplit{}, 1, &one);
  EXPECT_EQ(run(exact, TaskSplit{64, 1, 1}, 2, &unknown), want);
  // 16384 rows: 6 tasks of at least 32 values per word (512 columns of 75 words) without the
  // threads; 16 of 1024 rows for 16 threads; 27 of at least 8 values per word for 64.
  for (const auto& [workers, folds] : {std::pair<index_t, index_t>{2, 6}, {16, 16}, {64, 27}}) {
    index_t tasks = 0;
    EXPECT_EQ(run(exact, TaskSplit{64, 1, 1, workers}, 3, &tasks), want) << workers;
    EXPECT_EQ(tasks - unknown, folds - 6) << workers << " workers";
  }
}

// Through the public API: the CPU backend cuts an array of one large block into many tasks,
// and the results are the naive ones.
TEST(TaskSplit, CpuBackendComputesOneLargeBlockCorrectly) {
  const index_t rows = 700, cols = 600;
  std::vector<double> host(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = std::sin(static_cast<double>(i) * 0.37) * 10.0 + static_cast<double>(i % 13);
  const auto x = from_host(host, Shape{rows, cols}, Chunks{rows, cols});
  std::vector<double> col_sum(static_cast<std::size_t>(cols), 0.0),
      row_max(static_cast<std::size_t>(rows), -1e300);
  double total = 0;
  for (index_t r = 0; r < rows; ++r)
    for (index_t c = 0; c < cols; ++c) {
      const double v = host[static_cast<std::size_t>(r * cols + c)];
      col_sum[static_cast<std::size_t>(c)] += v;
      row_max[static_cast<std::size_t>(r)] = std::max(row_max[static_cast<std::size_t>(r)], v);
      total += v;
    }
  const auto sums = x.sum(Axes{0}).compute();
  const auto maxima = x.max(Axes{1}).compute();
  for (index_t c = 0; c < cols; ++c)
    EXPECT_NEAR(sums(c), col_sum[static_cast<std::size_t>(c)], 1e-9);
  for (index_t r = 0; r < rows; ++r)
    EXPECT_EQ(maxima(r), row_max[static_cast<std::size_t>(r)]);
  EXPECT_NEAR(x.sum().item(), total, 1e-6);
  std::vector<double> doubled(host.size()), kept(host.size());
  (x * 2.0).to_host(std::span<double>(doubled));
  for (std::size_t i = 0; i < host.size(); ++i)
    ASSERT_EQ(doubled[i], host[i] * 2.0);
  const auto stored = (x * 2.0).persist();
  EXPECT_EQ(stored.chunks(), x.chunks()) << "a persisted block stays one block";
  stored.to_host(std::span<double>(kept));
  EXPECT_EQ(kept, doubled);
  // Many tasks, one answer: the same bits whatever the thread count.
  ComputeOptions one, many;
  one.num_threads = 1;
  many.num_threads = 7;
  const auto a = x.std(Axes{0}).compute(one), b = x.std(Axes{0}).compute(many);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
}

} // namespace
