// SPDX-License-Identifier: Apache-2.0
// The CPU interpreter's fast paths (src/backend/cpu/strategies): each is chosen where expected and
// gives the same bits as the general tile loop (the same program compiled without strategies) and
// the values of a naive reference, on ragged, tiny and padded blocks.
#include <gtest/gtest.h>

#include "backend/cpu/interpreter.hpp"
#include "plan/block_program.hpp"
#include "plan/partial.hpp"

#include "backend/cpu/interpreter_simd.hpp"
#include "backend/cpu/tile_program.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using namespace chunked;
using namespace chunked::plan;
using cpu::Strategy;

/// Whether the wide loops run (CHUNKED_SIMD and the CPU): the strategies built on them need them.
bool wide() { return cpu::detail::interpreter_kernels() != nullptr; }

struct Box {
  index_t rows, cols;
};

AffineMap map2(index_t base, index_t row, index_t col) {
  AffineMap m;
  m.base = base;
  m.coef[0] = row;
  m.coef[1] = col;
  return m;
}

Leaf stored(int input, AffineMap map) {
  Leaf l;
  l.kind = LeafKind::stored;
  l.dtype = DType::float64;
  l.map = map;
  l.input = input;
  return l;
}

Leaf constant(double v) {
  Leaf l;
  l.kind = LeafKind::constant;
  l.a.f = v;
  return l;
}

BlockProgram box_program(Box b) {
  BlockProgram p;
  p.ndim = 2;
  p.extent[0] = b.rows;
  p.extent[1] = b.cols;
  return p;
}

/// A reduction over axis 0 into one entry per column (the last axis kept).
void reduce_columns(BlockProgram& p, ReduceOp op) {
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = op;
  p.sink.map = map2(0, 0, 1);
  p.sink.reduced_axes = 1;
  p.sink.num_partials = p.extent[1];
}

/// Values with some spread, a few negative, none special.
std::vector<double> data(std::size_t n, double scale = 1.0) {
  std::vector<double> v(n);
  for (std::size_t k = 0; k < n; ++k)
    v[k] = scale * (static_cast<double>((k * 7919) % 1009) / 101.0 - 3.0);
  return v;
}

/// Runs `p` through run_program and through the general tile loop; expects the same bytes.
template <class Out>
std::vector<Out> run_both(const BlockProgram& p, const std::vector<const void*>& inputs,
                          std::size_t out_size) {
  std::vector<Out> fast(out_size), general(out_size);
  cpu::run_program(p, inputs, fast.data());
  const cpu::TileProgram tp = cpu::compile(p, {.strategies = false});
  EXPECT_EQ(tp.strategies, 0u);
  cpu::run(tp, p, inputs, general.data());
  EXPECT_EQ(std::memcmp(fast.data(), general.data(), out_size * sizeof(Out)), 0)
      << "strategies and the general tile loop differ for\n"
      << p.describe();
  return fast;
}

std::size_t words(const BlockProgram& p) {
  return static_cast<std::size_t>(p.sink.num_partials) *
         static_cast<std::size_t>(partial_layout(p.sink.op, p.result_dtype()).words);
}

// The blocks every case runs on: tiny, ragged against the tile (2048) and against rows_at_once
// (8), one row, one column.
const Box boxes[] = {{1, 1}, {3, 5}, {9, 7}, {17, 2049}, {1, 3000}, {2100, 1}, {64, 64}};

// ---- copy_runs ---------------------------------------------------------------------------------

TEST(CpuStrategy, CopyRunsCopiesAStoredLeafRunByRun) {
  for (Box b : boxes) {
    // A slice: every other row of a padded input, columns reversed, into a padded output.
    const index_t in_pitch = b.cols + 3, out_pitch = b.cols + 2;
    const std::vector<double> x = data(static_cast<std::size_t>(2 * b.rows * in_pitch));
    BlockProgram p = box_program(b);
    p.leaves = {stored(0, map2(b.cols - 1, 2 * in_pitch, -1))};
    p.sink.map = map2(1, out_pitch, 1);
    // A block of one column is a padded column in the output, not runs.
    EXPECT_EQ(cpu::compile(p).has(Strategy::copy_runs), b.cols > 1) << p.describe();
    const auto out =
        run_both<double>(p, {x.data()}, static_cast<std::size_t>(b.rows * out_pitch + 1));
    for (index_t i = 0; i < b.rows; ++i)
      for (index_t j = 0; j < b.cols; ++j)
        ASSERT_EQ(out[1 + i * out_pitch + j], x[2 * i * in_pitch + b.cols - 1 - j]);
  }
}

TEST(CpuStrategy, CopyRunsIsNotChosenForAComputedResult) {
  BlockProgram p = box_program({4, 4});
  p.leaves = {stored(0, map2(0, 4, 1)), constant(1.0)};
  p.instrs = {{OpCode::add, DType::float64, {0, 1, -1}}};
  p.sink.map = map2(0, 4, 1);
  EXPECT_FALSE(cpu::compile(p).has(Strategy::copy_runs));
}

// ---- direct_store and stream_store -------------------------------------------------------------

/// out = x * 2 + y over the box, out rows `out_pitch` apart.
BlockProgram affine_store(Box b, index_t out_pitch) {
  BlockProgram p = box_program(b);
  p.leaves = {stored(0, map2(0, b.cols, 1)), constant(2.0), stored(1, map2(0, b.cols, 1))};
  p.instrs = {{OpCode::mul, DType::float64, {0, 1, -1}}, {OpCode::add, DType::float64, {3, 2, -1}}};
  p.sink.map = map2(0, out_pitch, 1);
  return p;
}

void check_affine_store(Box b, index_t out_pitch, Strategy expected, bool chosen) {
  // A block of one column stores runs only where the output is contiguous.
  chosen = chosen && (b.cols > 1 || (b.rows > 1 && out_pitch == 1));
  const std::size_t n = static_cast<std::size_t>(b.rows * b.cols);
  const std::vector<double> x = data(n), y = data(n, 0.5);
  const BlockProgram p = affine_store(b, out_pitch);
  const cpu::TileProgram tp = cpu::compile(p);
  EXPECT_EQ(tp.has(expected), chosen) << p.describe();
  const auto out = run_both<double>(p, {x.data(), y.data()},
                                    static_cast<std::size_t>((b.rows - 1) * out_pitch + b.cols));
  for (index_t i = 0; i < b.rows; ++i)
    for (index_t j = 0; j < b.cols; ++j) {
      const std::size_t k = static_cast<std::size_t>(i * b.cols + j);
      ASSERT_EQ(out[static_cast<std::size_t>(i * out_pitch + j)], x[k] * 2.0 + y[k]);
    }
}

TEST(CpuStrategy, DirectStoreWritesTheLastInstructionToTheOutput) {
  for (Box b : boxes) {
    check_affine_store(b, b.cols, Strategy::direct_store, true);
    // A padded output: tiles that cross a row are several runs, which go through the tile buffer.
    check_affine_store(b, b.cols + 5, Strategy::direct_store, true);
  }
}

TEST(CpuStrategy, StreamStoreTakesLargeContiguousStores) {
  // 4 MiB and more of output: non-temporal stores, where the wide loops run.
  const Box large[] = {{300, 2000}, {263, 2001}, {1, 600000}};
  for (Box b : large) {
    check_affine_store(b, b.cols, Strategy::stream_store, wide());
    check_affine_store(b, b.cols + 7, Strategy::stream_store, wide());
    EXPECT_NE(cpu::compile(affine_store(b, b.cols)).stream_result == nullptr, wide());
  }
  // Below 4 MiB the store stays direct.
  check_affine_store({100, 100}, 100, Strategy::stream_store, false);
}

TEST(CpuStrategy, StreamStoreCopiesALargeSlice) {
  const Box b{520, 1030};
  const std::vector<double> x = data(static_cast<std::size_t>(b.rows * (b.cols + 1)));
  BlockProgram p = box_program(b);
  p.leaves = {stored(0, map2(0, b.cols + 1, 1))};
  p.sink.map = map2(0, b.cols, 1);
  const cpu::TileProgram tp = cpu::compile(p);
  EXPECT_TRUE(tp.has(Strategy::copy_runs));
  EXPECT_EQ(tp.has(Strategy::stream_store), wide());
  const auto out = run_both<double>(p, {x.data()}, static_cast<std::size_t>(b.rows * b.cols));
  for (index_t i = 0; i < b.rows; ++i)
    for (index_t j = 0; j < b.cols; ++j)
      ASSERT_EQ(out[static_cast<std::size_t>(i * b.cols + j)],
                x[static_cast<std::size_t>(i * (b.cols + 1) + j)]);
}

// ---- sum_rows and row_block_fold ---------------------------------------------------------------

/// Column sums of `values(i, j)` with a relative tolerance: the strategies add in another order
/// than this reference (pairwise per tile against row by row), never in another order than the
/// general tile loop, which run_both compares bitwise.
template <class F> void expect_column_sums(const std::vector<PartialWord>& out, Box b, F values) {
  for (index_t j = 0; j < b.cols; ++j) {
    double s = 0;
    for (index_t i = 0; i < b.rows; ++i)
      s += values(i, j);
    ASSERT_NEAR(out[static_cast<std::size_t>(j)].f, s, 1e-9 * (1 + std::abs(s))) << j;
  }
}

TEST(CpuStrategy, SumRowsOfALeafFoldRowBlocks) {
  for (Box b : boxes) {
    const index_t pitch = b.cols + 1;
    const std::vector<double> x = data(static_cast<std::size_t>(b.rows * pitch));
    BlockProgram p = box_program(b);
    p.leaves = {stored(0, map2(0, pitch, 1))};
    reduce_columns(p, ReduceOp::sum);
    const cpu::TileProgram tp = cpu::compile(p);
    EXPECT_EQ(tp.has(Strategy::sum_rows), wide() && b.cols > 1) << p.describe();
    EXPECT_EQ(tp.has(Strategy::row_block_fold), wide() && b.cols > 1) << p.describe();
    const auto out = run_both<PartialWord>(p, {x.data()}, words(p));
    expect_column_sums(
        out, b, [&](index_t i, index_t j) { return x[static_cast<std::size_t>(i * pitch + j)]; });
  }
}

TEST(CpuStrategy, SumRowsFoldTheLastProductAndTakeOtherResults) {
  for (Box b : boxes) {
    const std::size_t n = static_cast<std::size_t>(b.rows * b.cols);
    const std::vector<double> x = data(n), y = data(n, 0.25);
    for (OpCode op : {OpCode::mul, OpCode::sqrt}) {
      BlockProgram p = box_program(b);
      p.leaves = {stored(0, map2(0, b.cols, 1)), stored(1, map2(0, b.cols, 1))};
      if (op == OpCode::mul)
        p.instrs = {{OpCode::mul, DType::float64, {0, 1, -1}}};
      else
        p.instrs = {{OpCode::abs, DType::float64, {0, -1, -1}},
                    {OpCode::sqrt, DType::float64, {2, -1, -1}}};
      reduce_columns(p, ReduceOp::mean);
      const cpu::TileProgram tp = cpu::compile(p);
      const bool expected = wide() && b.cols > 1;
      EXPECT_EQ(tp.has(Strategy::sum_rows), expected) << p.describe();
      EXPECT_EQ(tp.sum_binary_row != nullptr, expected && op == OpCode::mul);
      EXPECT_FALSE(tp.has(Strategy::row_block_fold));
      const auto out = run_both<PartialWord>(p, {x.data(), y.data()}, words(p));
      // A mean's partial is its sum (the count is the planner's).
      expect_column_sums(out, b, [&](index_t i, index_t j) {
        const std::size_t k = static_cast<std::size_t>(i * b.cols + j);
        return op == OpCode::mul ? x[k] * y[k] : std::sqrt(std::abs(x[k]));
      });
    }
  }
}

TEST(CpuStrategy, RowBlockFoldTakesColumnExtremes) {
  for (Box b : boxes) {
    std::vector<double> x = data(static_cast<std::size_t>(b.rows * b.cols));
    if (x.size() > 20)
      x[17] = std::numeric_limits<double>::quiet_NaN(); // the NaN reaches its column's entry
    for (ReduceOp op : {ReduceOp::max, ReduceOp::min}) {
      BlockProgram p = box_program(b);
      p.leaves = {stored(0, map2(0, b.cols, 1))};
      reduce_columns(p, op);
      EXPECT_EQ(cpu::compile(p).has(Strategy::row_block_fold), wide() && b.cols > 1);
      const auto out = run_both<PartialWord>(p, {x.data()}, words(p));
      for (index_t j = 0; j < b.cols; ++j) {
        double m = op == ReduceOp::max ? -INFINITY : INFINITY;
        for (index_t i = 0; i < b.rows; ++i) {
          const double v = x[static_cast<std::size_t>(i * b.cols + j)];
          m = std::isnan(m) || std::isnan(v)
                  ? NAN
                  : (op == ReduceOp::max ? std::max(m, v) : std::min(m, v));
        }
        const double got = out[static_cast<std::size_t>(j)].f;
        ASSERT_TRUE(std::isnan(m) ? std::isnan(got) : got == m) << j;
      }
    }
  }
}

// ---- moment_columns ----------------------------------------------------------------------------

void check_column_moments(Box b, bool through_instruction, bool with_nan) {
  std::vector<double> x = data(static_cast<std::size_t>(b.rows * b.cols));
  if (with_nan && x.size() > 40)
    x[x.size() / 2] = std::numeric_limits<double>::quiet_NaN();
  BlockProgram p = box_program(b);
  // The program's result is its last value: x itself, or x + 1.5.
  p.leaves = {stored(0, map2(0, b.cols, 1))};
  if (through_instruction) {
    p.leaves.push_back(constant(1.5));
    p.instrs = {{OpCode::add, DType::float64, {0, 1, -1}}};
  }
  reduce_columns(p, ReduceOp::var);
  const cpu::TileProgram tp = cpu::compile(p);
  // A block of one column reduces every axis it has: one entry, no columns.
  EXPECT_EQ(tp.has(Strategy::moment_columns), b.cols > 1) << p.describe();
  EXPECT_EQ(tp.has(Strategy::row_block_fold),
            wide() && !through_instruction && b.cols > 1 && tp.has(Strategy::moment_columns));
  const auto out = run_both<PartialWord>(p, {x.data()}, words(p));
  const double shift = through_instruction ? 1.5 : 0.0;
  for (index_t j = 0; j < b.cols; ++j) {
    double s = 0;
    for (index_t i = 0; i < b.rows; ++i)
      s += x[static_cast<std::size_t>(i * b.cols + j)] + shift;
    const double mean = s / static_cast<double>(b.rows);
    const PartialWord* e = &out[static_cast<std::size_t>(3 * j)];
    ASSERT_EQ(e[0].f, static_cast<double>(b.rows)) << j;
    if (std::isnan(mean))
      ASSERT_TRUE(std::isnan(e[1].f)) << j;
    else
      ASSERT_NEAR(e[1].f, mean, 1e-9 * (1 + std::abs(mean))) << j;
  }
}

TEST(CpuStrategy, NarrowRowsFoldEveryRowAsTheTileLoopDoes) {
  // Rows of 2 to 16 values (AVX2) or 64 (AVX-512) fold every row's moments with the state in
  // registers, checked every 64 rows, and rows of up to 48 or 128 values their sums: at every
  // width of vector, on either side of those limits and with padded rows, special values early,
  // late and in the rows after the last whole group of eight, the same bits as the general tile
  // loop.
  for (index_t cols :
       {2, 3, 4, 5, 7, 8, 10, 16, 17, 24, 31, 32, 33, 48, 49, 57, 64, 65, 128, 129}) {
    for (index_t rows : {8, 64, 203}) {
      for (index_t pad : {0, 3}) {
        for (int special = 0; special < 5; ++special) {
          const Box b{rows, cols};
          const index_t pitch = cols + pad;
          std::vector<double> x = data(static_cast<std::size_t>(rows * pitch));
          const index_t at_row[] = {0, 0, 5, 70, rows - 1};
          const std::size_t at =
              static_cast<std::size_t>(std::min(at_row[special], rows - 1) * pitch + cols / 2);
          if (special == 1)
            x[at] = 1e300; // m2 overflows: not finite after, though every value is
          else if (special > 1)
            x[at] = special == 3 ? std::numeric_limits<double>::infinity()
                                 : std::numeric_limits<double>::quiet_NaN();
          for (ReduceOp op : {ReduceOp::sum, ReduceOp::var}) {
            BlockProgram p = box_program(b);
            p.leaves = {stored(0, map2(0, pitch, 1))};
            reduce_columns(p, op);
            EXPECT_EQ(cpu::compile(p).has(Strategy::row_block_fold), wide()) << p.describe();
            const auto out = run_both<PartialWord>(p, {x.data()}, words(p));
            if (op == ReduceOp::var) {
              for (index_t j = 0; j < cols; ++j)
                ASSERT_EQ(out[static_cast<std::size_t>(3 * j)].f, static_cast<double>(rows));
            }
          }
        }
      }
    }
  }
}

TEST(CpuStrategy, MomentColumnsFoldKeptAxisVariances) {
  for (Box b : boxes)
    for (bool through_instruction : {false, true})
      for (bool with_nan : {false, true})
        check_column_moments(b, through_instruction, with_nan);
}

// ---- the general tile loop ---------------------------------------------------------------------

TEST(CpuStrategy, AllReducedSumsTakeNoStrategy) {
  const Box b{33, 65};
  const std::vector<double> x = data(static_cast<std::size_t>(b.rows * b.cols));
  BlockProgram p = box_program(b);
  p.leaves = {stored(0, map2(0, b.cols, 1))};
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = ReduceOp::sum;
  p.sink.reduced_axes = 3;
  p.sink.num_partials = 1;
  EXPECT_EQ(cpu::compile(p).strategies, 0u);
  const auto out = run_both<PartialWord>(p, {x.data()}, 1);
  double s = 0;
  for (double v : x)
    s += v;
  EXPECT_NEAR(out[0].f, s, 1e-9 * (1 + std::abs(s)));
}

} // namespace
