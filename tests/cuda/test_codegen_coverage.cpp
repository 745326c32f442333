// SPDX-License-Identifier: Apache-2.0
// Every OpCode on every dtype it accepts, every cast, every leaf kind and every reduction in the
// generated CUDA source compiles with NVRTC. Needs the NVRTC library but no GPU, so it runs on
// machines without one and catches code-generation gaps that the GPU tests' programs miss.
#include "backend/cuda/codegen.hpp"
#include "backend/cuda/compiler.hpp"
#include "plan/op_types.hpp"
#include "plan/partial.hpp"
#include "support/program_builders.hpp"
#include <chunked/ops/op_code.hpp>

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace chunked;
using plan::OpCode;

constexpr DType all_dtypes[] = {DType::bool_, DType::int32, DType::int64, DType::float32,
                                DType::float64};

/// A stored leaf over the 2-D boxes of these tests (strides 3 and 1).
plan::Leaf stored_leaf(DType t, int input) {
  plan::Leaf leaf = test::stored_leaf(t, input);
  leaf.map.coef = {3, 1};
  return leaf;
}

/// A 2-D program over `leaves` whose instructions are `instrs`, stored or reduced over axis 1.
plan::BlockProgram program(std::vector<plan::Leaf> leaves, std::vector<plan::Instr> instrs,
                           plan::Sink::Kind sink = plan::Sink::Kind::store,
                           plan::ReduceOp op = plan::ReduceOp::sum) {
  plan::BlockProgram p;
  p.ndim = 2;
  p.extent = {2, 3};
  p.leaves = std::move(leaves);
  p.instrs = std::move(instrs);
  p.sink.kind = sink;
  p.sink.map.coef = {3, 1};
  if (sink == plan::Sink::Kind::reduce) {
    p.sink.op = op;
    p.sink.reduced_axes = 0b10;
    p.sink.map.coef = {1, 0};
    p.sink.num_partials = 2;
    p.sink.index_map.coef = {0, 1};
  }
  return p;
}

/// Compiles the program's kernel set for its box, and for reductions along some axes the other
/// set of that kind as well (boxes with few reduced positions take the wide one).
void expect_compiles(const plan::BlockProgram& p) {
  using cuda::KernelSet;
  std::vector<KernelSet> sets{cuda::kernel_set(p)};
  if (sets[0] == KernelSet::reduce_axes_wide || sets[0] == KernelSet::reduce_axes_narrow)
    sets = {KernelSet::reduce_axes_wide, KernelSet::reduce_axes_narrow};
  if ((sets[0] == KernelSet::store || sets[0] == KernelSet::store_tiled) && p.ndim >= 2)
    sets = {KernelSet::store, KernelSet::store_tiled};
  for (const KernelSet set : sets) {
    const std::string source = cuda::generate_source(p, set);
    std::vector<char> cubin;
    EXPECT_NO_THROW(cubin = cuda::compile_to_cubin(cuda::module_key(p, set), source, "sm_90"))
        << p.describe() << "\n"
        << source;
  }
}

/// The instruction of `op` on operands of dtype t over stored leaves, as a one-instruction program.
plan::BlockProgram single_op_program(OpCode op, DType t) {
  test::SingleOp s = test::single_op(op, t);
  for (plan::Leaf& leaf : s.leaves)
    leaf.map.coef = stored_leaf(leaf.dtype, leaf.input).map.coef;
  return program(std::move(s.leaves), {s.instr});
}

// Generated code spells every operation as scalar::op_<its table name>, on its operand type:
// nothing in the generator lists operations one by one. Needs no NVRTC.
TEST(CudaCodegenCoverage, EveryOperationIsSpelledByItsTableName) {
  const std::pair<DType, const char*> c_types[] = {{DType::bool_, "bool"},
                                                   {DType::int32, "int"},
                                                   {DType::int64, "long long"},
                                                   {DType::float32, "float"},
                                                   {DType::float64, "double"}};
  int spelled = 0;
  for (int code = 0; code < ops::num_opcodes; ++code) {
    const auto op = static_cast<OpCode>(code);
    if (op == OpCode::cast)
      continue;
    for (const auto& [t, c_type] : c_types) {
      if (!plan::op_accepts(op, t))
        continue;
      const std::string source =
          cuda::generate_source(single_op_program(op, t), cuda::KernelSet::store);
      const std::string call = "op_" + std::string(ops::op_name(op)) + "<" + c_type + ">(";
      EXPECT_NE(source.find(call), std::string::npos) << call << " missing from\n" << source;
      ++spelled;
    }
  }
  EXPECT_GT(spelled, 2 * ops::num_opcodes);
}

TEST(CudaCodegenCoverage, EveryOpOnEveryAcceptedDtype) {
  int programs = 0;
  for (int code = 0; code < ops::num_opcodes; ++code) {
    const auto op = static_cast<OpCode>(code);
    if (op == OpCode::cast)
      continue;
    for (DType t : all_dtypes) {
      if (!plan::op_accepts(op, t))
        continue;
      expect_compiles(single_op_program(op, t));
      ++programs;
    }
  }
  EXPECT_GT(programs, 100);
}

TEST(CudaCodegenCoverage, EveryCast) {
  for (DType from : all_dtypes)
    for (DType to : all_dtypes) {
      if (from == to)
        continue;
      plan::Instr ins;
      ins.op = OpCode::cast;
      ins.dtype = to;
      ins.args = {0, -1, -1};
      expect_compiles(program({stored_leaf(from, 0)}, {ins}));
    }
}

TEST(CudaCodegenCoverage, EveryLeafKind) {
  for (DType t : all_dtypes) {
    std::vector<plan::LeafKind> kinds{plan::LeafKind::constant, plan::LeafKind::stored};
    if (t != DType::bool_)
      kinds.push_back(plan::LeafKind::arange);
    if (is_floating(t)) {
      kinds.push_back(plan::LeafKind::normal);
      kinds.push_back(plan::LeafKind::uniform);
    }
    if (is_integral(t))
      kinds.push_back(plan::LeafKind::integers);
    for (auto kind : kinds) {
      plan::Leaf leaf = stored_leaf(t, 0);
      leaf.kind = kind;
      if (kind != plan::LeafKind::stored)
        leaf.input = -1;
      expect_compiles(program({leaf}, {}));
    }
  }
}

TEST(CudaCodegenCoverage, EveryReductionOverAllAndSomeAxes) {
  for (int code = 0; code < ops::num_reduce_ops; ++code) {
    const auto op = static_cast<plan::ReduceOp>(code);
    const bool exact = op == plan::ReduceOp::exact_sum || op == plan::ReduceOp::exact_mean;
    for (DType t : all_dtypes) {
      if (exact && !is_floating(t))
        continue; // exact_sums plans them for floating values only
      plan::BlockProgram some = program({stored_leaf(t, 0)}, {}, plan::Sink::Kind::reduce, op);
      expect_compiles(some);
      plan::BlockProgram every = some;
      every.sink.reduced_axes = 0b11;
      every.sink.map.coef = {0, 0};
      every.sink.num_partials = 1;
      every.sink.index_map.coef = {3, 1};
      expect_compiles(every);
    }
  }
}

} // namespace

namespace {

/// A 2-D box of `extent` whose one stored leaf has strides `coef`, stored or reduced over `axes`.
plan::BlockProgram strided_program(std::array<index_t, 2> extent, std::array<index_t, 2> coef,
                                   unsigned reduced_axes = 0) {
  plan::Leaf leaf = stored_leaf(DType::float64, 0);
  leaf.map.coef = {coef[0], coef[1]};
  plan::BlockProgram p =
      program({leaf}, {}, reduced_axes ? plan::Sink::Kind::reduce : plan::Sink::Kind::store);
  p.extent = {extent[0], extent[1]};
  p.sink.map.coef = {extent[1], 1};
  if (reduced_axes) {
    const bool first = reduced_axes == 0b01u;
    p.sink.reduced_axes = reduced_axes;
    p.sink.map.coef = {};
    p.sink.map.coef[first ? 1 : 0] = 1;
    p.sink.num_partials = first ? extent[1] : extent[0];
  }
  return p;
}

} // namespace

// A transposed read (the stored leaf contiguous along axis 0, the output along axis 1) is stored
// through tiles, and its reduction along the contiguous axis lets lanes run along it; reads that
// are already contiguous along the innermost axis keep the plain kernels.
TEST(CudaCodegenCoverage, TransposedReadsPickTheKernelsThatCoalesce) {
  using cuda::KernelSet;
  EXPECT_EQ(cuda::kernel_set(strided_program({100, 70}, {1, 100})), KernelSet::store_tiled);
  EXPECT_EQ(cuda::transposed_axis(strided_program({100, 70}, {1, 100})), 0);
  EXPECT_EQ(cuda::kernel_set(strided_program({100, 70}, {70, 1})), KernelSet::store);
  EXPECT_EQ(cuda::kernel_set(strided_program({100, 1}, {1, 100})), KernelSet::store);
  EXPECT_EQ(cuda::kernel_set(strided_program({100, 70}, {1, 100}, 0b01u)),
            KernelSet::reduce_axes_narrow);
  EXPECT_EQ(cuda::kernel_set(strided_program({100, 70}, {70, 1}, 0b01u)),
            KernelSet::reduce_axes_wide);
  expect_compiles(strided_program({100, 70}, {1, 100}));
}
