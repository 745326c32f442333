// SPDX-License-Identifier: Apache-2.0
// Planner tests: fusion, slice pushdown into generators, chunk alignment, reduction trees.
#include "plan/plan.hpp"
#include "support/plan_for.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

using namespace chunked;
using plan::LeafKind;
using plan::TaskKind;

using test::plan_for;

index_t count_tasks(const plan::Plan& p, TaskKind kind, std::uint32_t stage = ~0u) {
  index_t n = 0;
  for (const auto& t : p.tasks)
    if (t.kind == kind && (stage == ~0u || t.index == stage))
      ++n;
  return n;
}

// The seed benchmark: (x + 1)[::2, ::2].sum() over a random x lowers to one fused program per
// block that stores nothing and generates only the kept quarter of the elements.
TEST(Planner, SeedBenchmarkFusesAndGeneratesOnlyKeptElements) {
  Generator rng(42);
  auto x = rng.normal<double>(Shape{1000, 1000}, Chunks{100, 100}, 10.0, 1.0);
  auto s = (x + 1.0)(slice(none, none, 2), slice(none, none, 2)).sum();
  std::vector<double> out;
  const plan::Plan p = plan_for(s.node(), out);

  // One reducing stage (the fused program) and one copy of the scalar result.
  ASSERT_EQ(p.stages.size(), 2u);
  const plan::Stage& st = p.stages[0];
  EXPECT_EQ(st.program.sink.kind, plan::Sink::Kind::reduce);
  EXPECT_TRUE(st.stored_leaves.empty()) << "the fused program must not read stored data";
  EXPECT_EQ(count_tasks(p, TaskKind::gather), 0);

  // Leaves: the generator (read with stride 2 on both axes) and the constant 1.
  int normals = 0;
  for (const auto& leaf : st.program.leaves) {
    if (leaf.kind == LeafKind::normal) {
      ++normals;
      EXPECT_EQ(leaf.map.coef[0], 2 * 1000) << "rows: every second row of x";
      EXPECT_EQ(leaf.map.coef[1], 2) << "columns: every second column of x";
    } else {
      EXPECT_EQ(leaf.kind, LeafKind::constant);
    }
  }
  EXPECT_EQ(normals, 1);
  ASSERT_EQ(st.program.instrs.size(), 1u);
  EXPECT_EQ(st.program.instrs[0].op, plan::OpCode::add);

  // One program task per block of the sliced array, together covering a quarter of x.
  EXPECT_EQ(count_tasks(p, TaskKind::program, 0), 100);
  index_t generated = 0;
  plan::BlockProgram prog;
  for (plan::TaskId id = 0; id < p.tasks.size(); ++id)
    if (p.tasks[id].kind == TaskKind::program && p.tasks[id].index == 0) {
      p.instantiate(id, prog);
      generated += prog.size();
      EXPECT_EQ(p.tasks[id].output.kind, plan::Output::Kind::partial);
      EXPECT_EQ(p.tasks[id].output.elements, 1) << "a full reduction keeps one partial per block";
    }
  EXPECT_EQ(generated, 1000 * 1000 / 4);
}

// Block origins shift the generator's flat index: the block at rows [250, 300), columns
// [100, 150) of the slice reads x from (500, 200).
TEST(Planner, SliceOffsetsComposeIntoLeafMaps) {
  Generator rng(1);
  auto x = rng.uniform<double>(Shape{1000, 1000}, Chunks{100, 100});
  auto v = x(slice(none, none, 2), slice(none, none, 2));
  std::vector<double> out;
  const plan::Plan p = plan_for(v.node(), out);
  ASSERT_EQ(p.stages.size(), 1u);
  plan::BlockProgram prog;
  const index_t block = 5 * 10 + 2; // block (5, 2) of the 10 x 10 grid of 50 x 50 blocks
  p.instantiate(static_cast<plan::TaskId>(block), prog);
  EXPECT_EQ(prog.extent[0], 50);
  EXPECT_EQ(prog.leaves[0].map.base, 500 * 1000 + 200);
  EXPECT_EQ(prog.sink.map.base, 250 * 500 + 100);
}

// Reversed slices push negative strides into the leaves.
TEST(Planner, NegativeStepsBecomeNegativeStrides) {
  auto a = arange<double>(0, 100, 1, 7);
  auto v = a(slice(none, none, -3));
  std::vector<double> out;
  const plan::Plan p = plan_for(v.node(), out);
  plan::BlockProgram prog;
  p.instantiate(0, prog);
  EXPECT_EQ(prog.leaves[0].kind, LeafKind::arange);
  EXPECT_EQ(prog.leaves[0].map.coef[0], -3);
  EXPECT_EQ(prog.leaves[0].map.base, 99);
}

// A transposed, sliced random array lowers like a slice: one fused program per block, the
// transpose a permutation of the generator's coefficients, only the kept elements generated.
TEST(Planner, TransposesPermuteLeafMapsAndGenerateOnlyWhatIsRead) {
  Generator rng(3);
  auto x = rng.normal<double>(Shape{300, 200, 100}, Chunks{100, 50, 25});
  // t has shape (34, 300): t[i, j] = x[j, 5, 3 * i].
  auto t = transpose(x, {2, 0, 1})(slice(none, none, 3), all, 5);
  std::vector<double> out;
  const plan::Plan p = plan_for(t.sum().node(), out);
  ASSERT_EQ(p.stages.size(), 2u);
  const plan::Stage& st = p.stages[0];
  EXPECT_TRUE(st.stored_leaves.empty());
  EXPECT_EQ(count_tasks(p, TaskKind::gather), 0);
  ASSERT_EQ(st.program.leaves.size(), 1u);
  EXPECT_EQ(st.program.leaves[0].kind, LeafKind::normal);
  EXPECT_EQ(st.program.leaves[0].map.coef[0], 3) << "output axis 0 steps x's last axis by 3";
  EXPECT_EQ(st.program.leaves[0].map.coef[1], 200 * 100) << "output axis 1 is x's first axis";
  index_t generated = 0;
  plan::BlockProgram prog;
  for (plan::TaskId id = 0; id < p.tasks.size(); ++id)
    if (p.tasks[id].kind == TaskKind::program && p.tasks[id].index == 0) {
      p.instantiate(id, prog);
      generated += prog.size();
    }
  EXPECT_EQ(generated, 34 * 300);
  // The chunk grid is x's, permuted, then sliced.
  EXPECT_EQ(t.chunks().lengths(1), x.chunks().lengths(0));
}

// A transposed stored array reads each output block from one input block: no gathers.
TEST(Planner, TransposedStoredBlocksAreReadWithoutGathers) {
  std::vector<double> data(6 * 10 * 4);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<double>(i);
  auto a = from_host(std::span<const double>(data), Shape{6, 10, 4}, Chunks{4, 3, 3});
  auto t = moveaxis(a, 0, -1) * 2.0;
  std::vector<double> out;
  const plan::Plan p = plan_for(t.node(), out);
  EXPECT_EQ(count_tasks(p, TaskKind::gather), 0);
  EXPECT_EQ(count_tasks(p, TaskKind::program), a.numblocks());
  const auto r = t.compute();
  EXPECT_EQ(r(7, 2, 5), 2.0 * static_cast<double>((5 * 10 + 7) * 4 + 2));
}

// Operands stored with different chunk grids are aligned by gathers, never by the user.
TEST(Planner, MisalignedStoredOperandsAreGathered) {
  std::vector<double> data(60);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<double>(i);
  auto a = from_host(std::span<const double>(data), Shape{6, 10}, Chunks{4, 4});
  auto b = from_host(std::span<const double>(data), Shape{6, 10}, Chunks{3, 5});
  auto c = a + b;
  std::vector<double> out;
  const plan::Plan p = plan_for(c.node(), out);
  EXPECT_GT(count_tasks(p, TaskKind::gather), 0);
  const auto r = c.compute();
  for (index_t i = 0; i < 60; ++i)
    EXPECT_EQ(r.data()[i], 2.0 * static_cast<double>(i));
}

// A full reduction over many blocks combines partials in a fixed tree of bounded fan-in.
TEST(Planner, ReductionTreeHasBoundedFanIn) {
  auto z = ones<double>(Shape{1000}, Chunks{1});
  auto s = z.sum();
  std::vector<double> out;
  const plan::Plan p = plan_for(s.node(), out);
  EXPECT_EQ(count_tasks(p, TaskKind::program, 0), 1000);
  for (const auto& t : p.tasks) {
    if (t.kind == TaskKind::combine) {
      EXPECT_LE(t.inputs_end - t.inputs_begin, 8u);
    }
  }
  EXPECT_EQ(s.item(), 1000.0);
}

// A block alone along the reduced axes finalizes its own partials: a task per block and no
// combine. Blocks cut along those axes still combine; both give the same values, whether
// computed into a caller's array, kept as blocks or read by a later program.
TEST(Planner, BlocksAloneAlongTheReducedAxesFinalizeThemselves) {
  std::vector<double> data(40 * 12);
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<double>((i * 7) % 23); // small integers: every sum is exact
  const auto cols = from_host(std::span<const double>(data), Shape{40, 12}, Chunks{40, 5});
  const auto cut = from_host(std::span<const double>(data), Shape{40, 12}, Chunks{16, 5});
  std::vector<double> out;
  const plan::Plan p = plan_for(cols.mean(Axes{0}).node(), out);
  EXPECT_EQ(count_tasks(p, TaskKind::combine), 0) << p.describe();
  EXPECT_EQ(count_tasks(p, TaskKind::program, 0), 3);
  EXPECT_GE(p.stages[0].finalize, 0);
  const plan::Plan q = plan_for(cut.mean(Axes{0}).node(), out);
  EXPECT_EQ(count_tasks(q, TaskKind::combine), 3) << q.describe();
  EXPECT_LT(q.stages[0].finalize, 0);

  std::vector<double> sums(12, 0.0);
  for (std::size_t i = 0; i < data.size(); ++i)
    sums[i % 12] += data[i];
  const auto mean = cols.mean(Axes{0}).compute();
  const auto kept = cols.sum(Axes{0}).persist();
  const auto twice = (kept * 2.0).compute();
  const auto from_cut = cut.mean(Axes{0}).compute();
  const auto max_cols = cols.max(Axes{0}).compute(), max_cut = cut.max(Axes{0}).compute();
  const auto arg_cols = cols.argmax(0).compute(), arg_cut = cut.argmax(0).compute();
  for (index_t j = 0; j < 12; ++j) {
    SCOPED_TRACE(j);
    EXPECT_EQ(mean.data()[j], sums[static_cast<std::size_t>(j)] / 40.0);
    EXPECT_EQ(mean.data()[j], from_cut.data()[j]);
    EXPECT_EQ(kept.compute().data()[j], sums[static_cast<std::size_t>(j)]);
    EXPECT_EQ(twice.data()[j], 2.0 * sums[static_cast<std::size_t>(j)]);
    EXPECT_EQ(max_cols.data()[j], max_cut.data()[j]);
    EXPECT_EQ(arg_cols.data()[j], arg_cut.data()[j]);
  }
}

// Programs past the instruction cap are split with a stored intermediate.
TEST(Planner, LongChainsAreSplitAtTheCap) {
  auto x = arange<double>(0, 64, 1, 16);
  auto y = x;
  for (int i = 0; i < 3 * plan::max_program_instrs; ++i)
    y = y + 1.0;
  std::vector<double> out;
  const plan::Plan p = plan_for(y.node(), out);
  EXPECT_GT(p.stages.size(), 1u);
  for (const auto& st : p.stages)
    EXPECT_LE(st.program.instrs.size(), static_cast<std::size_t>(plan::max_program_instrs));
  const auto r = y.compute();
  for (index_t i = 0; i < 64; ++i)
    EXPECT_EQ(r.data()[i], static_cast<double>(i + 3 * plan::max_program_instrs));
}

// Equal constants share a leaf; constants that differ in dtype or in bits (0.0 and -0.0) do not.
TEST(Planner, EqualConstantsShareALeaf) {
  auto x = arange<double>(0, 64, 1, 16);
  auto y = ((x + 1.0) * 1.0 + 0.0) * -0.0 + 1.0;
  std::vector<double> out;
  const plan::Plan p = plan_for(y.node(), out);
  ASSERT_EQ(p.stages.size(), 1u);
  std::vector<double> constants;
  for (const auto& leaf : p.stages[0].program.leaves)
    if (leaf.kind == LeafKind::constant)
      constants.push_back(leaf.a.f);
  ASSERT_EQ(constants.size(), 3u) << p.describe();
  EXPECT_EQ(constants[0], 1.0);
  EXPECT_FALSE(std::signbit(constants[1]));
  EXPECT_TRUE(std::signbit(constants[2]));
  const auto r = y.compute();
  for (index_t i = 0; i < 64; ++i)
    EXPECT_EQ(r.data()[i], 1.0);

  auto i64 = arange<std::int64_t>(0, 64, 1, 16);
  auto z = (i64 + std::int64_t{2}).astype<double>() * 2.0;
  const plan::Plan q = plan_for(z.node(), out);
  int leaves = 0;
  for (const auto& leaf : q.stages[0].program.leaves)
    leaves += leaf.kind == LeafKind::constant;
  EXPECT_EQ(leaves, 2) << "an int64 2 and a float64 2 are different leaves";
  const auto rz = z.compute();
  for (index_t i = 0; i < 64; ++i)
    EXPECT_EQ(rz.data()[i], 2.0 * static_cast<double>(i + 2));
}

// A chain with a distinct constant per operation stays one program up to the leaf cap, and past
// it is split with a stored intermediate, each part within the cap.
TEST(Planner, ChainsOfDistinctConstantsAreSplitAtTheLeafCap) {
  for (const int ops : {plan::max_program_leaves - 1, 2 * plan::max_program_leaves}) {
    auto x = arange<double>(0, 64, 1, 16);
    auto y = x;
    double expect_shift = 0;
    for (int i = 0; i < ops; ++i) {
      y = y + static_cast<double>(i + 1);
      expect_shift += i + 1;
    }
    std::vector<double> out;
    const plan::Plan p = plan_for(y.node(), out);
    if (ops < plan::max_program_leaves)
      EXPECT_EQ(p.stages.size(), 1u) << ops << " operations: " << p.describe();
    else
      EXPECT_GT(p.stages.size(), 1u) << ops << " operations";
    for (const auto& st : p.stages)
      EXPECT_LE(st.program.leaves.size(), static_cast<std::size_t>(plan::max_program_leaves));
    const auto r = y.compute();
    for (index_t i = 0; i < 64; ++i)
      EXPECT_EQ(r.data()[i], static_cast<double>(i) + expect_shift);
  }
}

// Work shared by several requested arrays is planned once.
TEST(Planner, SharedReductionIsComputedOnce) {
  auto a = arange<double>(0, 100, 1, 10);
  auto total = a.sum();
  auto normalised = a / total;
  std::vector<double> o1(1), o2(100);
  plan::Request r1, r2;
  r1.node = total.node();
  r1.destination = plan::Destination{o1.data(), DType::float64, total.shape(), MemorySpace{}, {}};
  r2.node = normalised.node();
  r2.destination =
      plan::Destination{o2.data(), DType::float64, normalised.shape(), MemorySpace{}, {}};
  const plan::Plan p = plan::make_plan({r1, r2});
  index_t reduce_stages = 0;
  for (const auto& st : p.stages)
    reduce_stages += st.program.sink.kind == plan::Sink::Kind::reduce;
  EXPECT_EQ(reduce_stages, 1);
  auto [t, n] = chunked::compute(ComputeOptions{}, total, normalised);
  EXPECT_EQ(t.item(), 4950.0);
  EXPECT_DOUBLE_EQ(n(99), 99.0 / 4950.0);
}

// mean and std of one input over the same axes read it once: one moments pass, finalized twice.
// A sum beside them keeps its own pass (its partials are not moments), as do other axes.
TEST(Planner, MeanAndStdShareOneMomentsPass) {
  std::vector<double> values(60);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<double>(i);
  const auto x = from_host(values, Shape{6, 10}, Chunks{4, 3}); // x(i, j) = 10 i + j
  auto standardized = (x - x.mean(Axes{0})) / x.std(Axes{0});
  std::vector<double> out;
  auto reduce_ops = [](const plan::Plan& p) {
    std::vector<plan::ReduceOp> ops;
    for (const auto& st : p.stages)
      if (st.program.sink.kind == plan::Sink::Kind::reduce)
        ops.push_back(st.program.sink.op);
    return ops;
  };
  const plan::Plan p = plan_for(standardized.node(), out);
  EXPECT_EQ(reduce_ops(p), std::vector<plan::ReduceOp>{plan::ReduceOp::var});
  std::vector<plan::ReduceOp> results;
  for (const auto& c : p.combines)
    if (c.result != c.op)
      results.push_back(c.result);
  EXPECT_EQ(results, (std::vector<plan::ReduceOp>{plan::ReduceOp::mean, plan::ReduceOp::std}));

  const auto alone = plan_for((x - x.mean(Axes{0})).node(), out);
  EXPECT_EQ(reduce_ops(alone), std::vector<plan::ReduceOp>{plan::ReduceOp::mean});
  const auto other_axes = plan_for((x.mean(Axes{1}, true) + x.std(Axes{0})).node(), out);
  EXPECT_EQ(reduce_ops(other_axes).size(), 2u);
  const auto with_sum = plan_for((x.sum(Axes{0}) + x.var(Axes{0}) + x.mean(Axes{0})).node(), out);
  EXPECT_EQ(reduce_ops(with_sum),
            (std::vector<plan::ReduceOp>{plan::ReduceOp::sum, plan::ReduceOp::var}));

  const auto z = standardized.compute();
  for (index_t j = 0; j < 10; ++j)
    for (index_t i = 0; i < 6; ++i)
      EXPECT_NEAR(z(i, j), (10.0 * i - 25.0) / std::sqrt(1750.0 / 6.0), 1e-12);
}

} // namespace

// A user function is one instruction of the block program that reads its operands, fused with
// the operators around it: (f(x, y) + 1).sum() is one program per block and stores nothing. Its
// key enters the program's structure key, so two functions with the same name and different
// bodies never share a compiled kernel.
TEST(Planner, ElementwiseFunctionFusesIntoTheBlockProgram) {
  const auto make = [](const char* body) {
    return ElementwiseFunction<double(double, double)>{
        "f", body, [](double* out, const double* a, const double* b, index_t n) {
          for (index_t j = 0; j < n; ++j)
            out[j] = a[j] * b[j];
        }};
  };
  Generator rng(3);
  auto x = rng.uniform<double>(Shape{40, 30}, Chunks{20, 10});
  auto y = rng.uniform<double>(Shape{30}, Chunks{10});
  const auto f = make("return a * b;");
  const auto g = make("return b * a;");
  std::vector<double> out;
  const plan::Plan p = plan_for((f(x, y) + 1.0).sum().node(), out);
  ASSERT_FALSE(p.stages.empty());
  const plan::BlockProgram& prog = p.stages[0].program;
  EXPECT_NE(p.describe().find("call f float64 (v0, v1)"), std::string::npos) << p.describe();
  ASSERT_EQ(prog.functions.size(), 1u);
  ASSERT_EQ(prog.instrs.size(), 2u) << p.describe();
  EXPECT_EQ(prog.instrs[0].call, 0);
  EXPECT_EQ(prog.instrs[0].arity(), 2);
  EXPECT_EQ(prog.instrs[1].op, plan::OpCode::add);
  EXPECT_EQ(count_tasks(p, TaskKind::program, 0), 6);

  const plan::Plan q = plan_for((g(x, y) + 1.0).sum().node(), out);
  EXPECT_NE(prog.structure_key(), q.stages[0].program.structure_key());
  const plan::Plan same = plan_for((f(y, x) + 1.0).sum().node(), out);
  EXPECT_EQ(same.stages[0].program.functions.size(), 1u);
}
