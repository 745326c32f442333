// SPDX-License-Identifier: Apache-2.0
// The CPU interpreter's cache of compiled programs: keyed by what compile() reads, never by the
// per-block values run() reads, so blocks that share a structure and differ in bases, constants,
// seeds or inputs each get their own results; per thread, bounded.
#include <gtest/gtest.h>

#include "backend/cpu/interpreter.hpp"
#include "plan/block_program.hpp"
#include <chunked/random/distributions.hpp>

#include "backend/cpu/program_cache.hpp"
#include "backend/cpu/tile_program.hpp"

#include <thread>
#include <vector>

namespace {

using namespace chunked;
using namespace chunked::plan;

AffineMap map2(index_t base, index_t row, index_t col) {
  AffineMap m;
  m.base = base;
  m.coef[0] = row;
  m.coef[1] = col;
  return m;
}

/// out = (x - m) * c + r over a rows x cols block: x stored (rows `pitch` apart, from `x_base`),
/// m a row of means repeated down the block (an invariant leaf), c a constant, r normal random
/// numbers of (seed, stream) at flat index r_base + i * cols + j.
BlockProgram program(index_t rows, index_t cols, index_t pitch, index_t x_base, double c,
                     std::uint64_t seed, index_t r_base) {
  BlockProgram p;
  p.ndim = 2;
  p.extent[0] = rows;
  p.extent[1] = cols;
  Leaf x;
  x.kind = LeafKind::stored;
  x.map = map2(x_base, pitch, 1);
  x.input = 0;
  Leaf m = x;
  m.map = map2(x_base % pitch, 0, 1);
  m.input = 1;
  Leaf k;
  k.kind = LeafKind::constant;
  k.a.f = c;
  Leaf r;
  r.kind = LeafKind::normal;
  r.map = map2(r_base, cols, 1);
  r.a.f = 0.0;
  r.b.f = 1.0;
  r.seed = seed;
  r.stream = 3;
  p.leaves = {x, m, k, r};
  p.instrs = {{OpCode::sub, DType::float64, {0, 1, -1}},
              {OpCode::mul, DType::float64, {4, 2, -1}},
              {OpCode::add, DType::float64, {5, 3, -1}}};
  p.sink.map = map2(0, cols, 1);
  return p;
}

std::vector<double> inputs_x(index_t n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < v.size(); ++k)
    v[k] = static_cast<double>(k % 97) * 0.25;
  return v;
}

/// Runs `p` through the cache and checks every element against the formula.
void run_and_check(const BlockProgram& p, const std::vector<double>& x,
                   const std::vector<double>& means) {
  const index_t rows = p.extent[0], cols = p.extent[1];
  std::vector<double> out(static_cast<std::size_t>(rows * cols));
  const void* in[] = {x.data(), means.data()};
  cpu::run_program(p, in, out.data());
  const Leaf& xl = p.leaves[0];
  const Leaf& ml = p.leaves[1];
  const Leaf& r = p.leaves[3];
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) {
      const double xv = x[static_cast<std::size_t>(xl.map.base + i * xl.map.coef[0] + j)];
      const double mv = means[static_cast<std::size_t>(ml.map.base + j)];
      const double rv = random::normal_at(r.seed, r.stream, r.map.base + i * cols + j, 0.0, 1.0);
      ASSERT_EQ(out[static_cast<std::size_t>(i * cols + j)], (xv - mv) * p.leaves[2].a.f + rv)
          << i << ", " << j;
    }
}

TEST(CpuProgramCache, KeyIgnoresPerBlockValues) {
  std::vector<index_t> a, b;
  cpu::tile_program_key(program(5, 7, 9, 0, 1.0, 1, 0), a);
  cpu::tile_program_key(program(5, 7, 9, 18, 2.0, 2, 35), b);
  EXPECT_EQ(a, b);
  BlockProgram other_input = program(5, 7, 9, 0, 1.0, 1, 0);
  other_input.leaves[0].input = 2;
  cpu::tile_program_key(other_input, b);
  EXPECT_EQ(a, b);
}

TEST(CpuProgramCache, KeyNamesWhatCompileReads) {
  std::vector<index_t> a, b;
  const BlockProgram p = program(5, 7, 9, 0, 1.0, 1, 0);
  cpu::tile_program_key(p, a);
  auto differs = [&](const BlockProgram& q) {
    cpu::tile_program_key(q, b);
    return a != b;
  };
  EXPECT_TRUE(differs(program(6, 7, 9, 0, 1.0, 1, 0))); // extent
  EXPECT_TRUE(differs(program(5, 7, 8, 0, 1.0, 1, 0))); // a coefficient
  BlockProgram q = p;
  q.instrs[1].op = OpCode::div;
  EXPECT_TRUE(differs(q));
  q = p;
  q.leaves[2].kind = LeafKind::arange;
  EXPECT_TRUE(differs(q));
  q = p;
  q.instrs[2].args[1] = 2;
  EXPECT_TRUE(differs(q));
  q = p;
  q.sink.map.coef[1] = 2;
  EXPECT_TRUE(differs(q));
  q = p;
  q.sink.kind = Sink::Kind::reduce;
  q.sink.num_partials = 1;
  q.sink.map = AffineMap{};
  EXPECT_TRUE(differs(q));
}

TEST(CpuProgramCache, BlocksOfOneStructureKeepTheirOwnValues) {
  const index_t rows = 6, cols = 301, pitch = 400;
  const std::vector<double> x = inputs_x(4 * rows * pitch);
  const std::vector<double> means = inputs_x(2 * pitch);
  // The same structure at other bases, constants and seeds: each block its own values.
  for (int block = 0; block < 4; ++block)
    run_and_check(program(rows, cols, pitch, block * rows * pitch + block, 1.0 + block,
                          static_cast<std::uint64_t>(block), block * rows * cols),
                  x, means);
}

TEST(CpuProgramCache, EvictedProgramsCompileAgain) {
  const std::vector<double> x = inputs_x(20000);
  const std::vector<double> means = inputs_x(200);
  // More structures than one thread keeps, then the first again.
  for (index_t cols = 1; cols <= static_cast<index_t>(cpu::cached_programs) + 8; ++cols)
    run_and_check(program(3, cols, 100, 0, 0.5, 7, 0), x, means);
  run_and_check(program(3, 1, 100, 0, 0.5, 7, 0), x, means);
}

TEST(CpuProgramCache, ThreadsRunBlocksConcurrently) {
  const std::vector<double> x = inputs_x(40000);
  const std::vector<double> means = inputs_x(300);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 30; ++k)
        run_and_check(
            program(5 + k % 3, 50 + t, 250, k, 1.0 + t, static_cast<std::uint64_t>(k), k * 7), x,
            means);
    });
  for (std::thread& t : threads)
    t.join();
}

} // namespace
