// SPDX-License-Identifier: Apache-2.0
// Code generation checks of the CUDA backend that need only NVRTC, no device.
#include "backend/cuda/codegen.hpp"
#include "backend/cuda/compiler.hpp"
#include "plan/block_program.hpp"
#include <chunked/core/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace chunked {
namespace {

plan::BlockProgram sample_program(plan::Sink::Kind sink) {
  using namespace plan;
  BlockProgram p;
  p.ndim = 2;
  p.extent = {3, 5};
  auto leaf = [](LeafKind kind, DType dtype, index_t row, double a, double b, int input) {
    Leaf l;
    l.kind = kind;
    l.dtype = dtype;
    l.map.coef[0] = row;
    l.map.coef[1] = row == 0 ? 0 : 1;
    l.a.f = a;
    l.b.f = b;
    l.input = input;
    return l;
  };
  p.leaves = {leaf(LeafKind::normal, DType::float64, 5, 10.0, 1.0, -1),
              leaf(LeafKind::constant, DType::float64, 0, 1.0, 0.0, -1),
              leaf(LeafKind::stored, DType::int32, 5, 0.0, 0.0, 0)};
  p.instrs = {
      {OpCode::add, DType::float64, {0, 1, -1}},  {OpCode::cast, DType::float64, {2, -1, -1}},
      {OpCode::mod, DType::float64, {3, 4, -1}},  {OpCode::gt, DType::bool_, {5, 1, -1}},
      {OpCode::where, DType::float64, {6, 5, 3}}, {OpCode::tanh, DType::float64, {7, -1, -1}}};
  p.sink.kind = sink;
  p.sink.map = {0, {5, 1}};
  if (sink == Sink::Kind::reduce) {
    p.sink.op = ReduceOp::var;
    p.sink.reduced_axes = 1u;
    p.sink.map = {0, {0, 1}};
    p.sink.num_partials = 5;
  }
  return p;
}

TEST(CudaCodegen, GeneratedKernelsCompileWithNvrtc) {
  using cuda::KernelSet;
  for (auto kind : {plan::Sink::Kind::store, plan::Sink::Kind::reduce}) {
    const plan::BlockProgram p = sample_program(kind);
    const auto sets =
        kind == plan::Sink::Kind::store
            ? std::vector<KernelSet>{KernelSet::store}
            : std::vector<KernelSet>{KernelSet::reduce_all, KernelSet::reduce_axes_wide,
                                     KernelSet::reduce_axes_narrow};
    for (const KernelSet set : sets) {
      const std::string source = cuda::generate_source(p, set);
      std::vector<char> cubin;
      ASSERT_NO_THROW(cubin = cuda::compile_to_cubin(cuda::module_key(p, set), source, "sm_90"))
          << source;
      EXPECT_GT(cubin.size(), 1000u);
    }
  }
}

TEST(CudaCodegen, SourceDependsOnStructureAndKernelSetOnly) {
  using cuda::KernelSet;
  plan::BlockProgram a = sample_program(plan::Sink::Kind::store);
  plan::BlockProgram b = a;
  b.extent = {7, 9};
  b.leaves[0].seed = 99;
  b.leaves[0].map.base = 12345;
  EXPECT_EQ(cuda::generate_source(a, KernelSet::store), cuda::generate_source(b, KernelSet::store));
  b.instrs[5].op = plan::OpCode::sin;
  EXPECT_NE(cuda::generate_source(a, KernelSet::store), cuda::generate_source(b, KernelSet::store));
  const plan::BlockProgram r = sample_program(plan::Sink::Kind::reduce);
  EXPECT_NE(cuda::generate_source(r, KernelSet::reduce_axes_wide),
            cuda::generate_source(r, KernelSet::reduce_axes_narrow));
  EXPECT_NE(cuda::module_key(r, KernelSet::reduce_axes_wide),
            cuda::module_key(r, KernelSet::reduce_axes_narrow));
  EXPECT_THROW(cuda::generate_source(a, KernelSet::reduce_all), ValueError);
  EXPECT_THROW(cuda::generate_source(r, KernelSet::store), ValueError);
}

// A block's kernel set follows from its box: every axis reduced (or one kept position), the
// innermost axis kept or few positions reduced (32 kept positions per CUDA block), else one.
TEST(CudaCodegen, KernelSetFollowsTheBox) {
  using cuda::KernelSet;
  plan::BlockProgram p = sample_program(plan::Sink::Kind::store);
  EXPECT_EQ(cuda::kernel_set(p), KernelSet::store);
  p.sink.kind = plan::Sink::Kind::reduce;
  p.extent = {100, 200};
  p.sink.reduced_axes = 0b11;
  EXPECT_EQ(cuda::kernel_set(p), KernelSet::reduce_all);
  p.sink.reduced_axes = 0b01;
  EXPECT_EQ(cuda::kernel_set(p), KernelSet::reduce_axes_wide);
  p.sink.reduced_axes = 0b10;
  EXPECT_EQ(cuda::kernel_set(p), KernelSet::reduce_axes_narrow);
  p.extent = {100, 63};
  EXPECT_EQ(cuda::kernel_set(p), KernelSet::reduce_axes_wide);
  p.extent = {1, 200};
  EXPECT_EQ(cuda::kernel_set(p), KernelSet::reduce_all);
}

TEST(CudaCodegen, LoadsFirstOnlyForArithmeticWithASlowPath) {
  using plan::OpCode;
  plan::BlockProgram p = sample_program(plan::Sink::Kind::store); // has mod and tanh
  EXPECT_TRUE(cuda::loads_first(p));
  p.instrs = {{OpCode::add, DType::float64, {0, 1, -1}}, {OpCode::mul, DType::float64, {3, 3, -1}}};
  EXPECT_FALSE(cuda::loads_first(p));
  const std::string plain = cuda::generate_source(p, cuda::KernelSet::store);
  EXPECT_NE(plain.find("loads_first = false"), std::string::npos);
  for (const OpCode slow : {OpCode::div, OpCode::sqrt, OpCode::exp, OpCode::pow}) {
    p.instrs[1].op = slow;
    p.instrs[1].args = {3, static_cast<std::int16_t>(plan::opcode_arity(slow) == 1 ? -1 : 3), -1};
    EXPECT_TRUE(cuda::loads_first(p)) << static_cast<int>(slow);
    EXPECT_NE(cuda::generate_source(p, cuda::KernelSet::store).find("loads_first = true"),
              std::string::npos);
  }
}

} // namespace
} // namespace chunked
