// SPDX-License-Identifier: Apache-2.0
// The CPU tile interpreter against naive per-element references: every opcode and its edge values.

#include <gtest/gtest.h>

#include "unit/cpu_interpreter_support.hpp"

namespace chunked::test::interp {
namespace {

// ---- Tests: every opcode on every dtype it accepts
// ------------------------------------------------

TEST(CpuInterpreter, EveryOpcodeOnEveryDtypeMatchesTheScalarSemantics) {
  int programs = 0;
  for (DType t : all_dtypes) {
    const auto edge = edge_values(t);
    const index_t m = static_cast<index_t>(edge.size());
    // All ordered pairs of edge values, in a 2-D box: a varies along axis 0, b along axis 1,
    // whose rows repeat the edge values to a length past a few of the widest vectors (64 bytes),
    // so that every loop runs its vector body and its tail.
    const index_t len = 4 * m + 67;
    Buffer values(t, len);
    for (index_t k = 0; k < len; ++k)
      values.set(k, edge[static_cast<std::size_t>(k % m)]);
    for (OpCode op : all_opcodes) {
      if (!cpu::op_accepts(op, t))
        continue;
      BlockProgram p = box_program({m, len});
      p.leaves = {stored_leaf(t, 0, amap(0, {1, 0})), stored_leaf(t, 0, amap(0, {0, 1}))};
      const DType rt = cpu::op_result_dtype(op, t);
      if (opcode_arity(op) == 1)
        p.instrs = {instr(op, rt, 0)};
      else
        p.instrs = {instr(op, rt, 0, 1)};
      check_store(p, {&values}, m * len);
      ++programs;
    }
    // cast to every dtype
    for (DType to : all_dtypes) {
      BlockProgram p = box_program({len});
      p.leaves = {stored_leaf(t, 0, amap(0, {1}))};
      p.instrs = {instr(OpCode::cast, to, 0)};
      check_store(p, {&values}, len);
    }
    // where(a < b, a, b)
    BlockProgram p = box_program({m, len});
    p.leaves = {stored_leaf(t, 0, amap(0, {1, 0})), stored_leaf(t, 0, amap(0, {0, 1}))};
    p.instrs = {instr(OpCode::lt, DType::bool_, 0, 1), instr(OpCode::where, t, 2, 0, 1)};
    check_store(p, {&values}, m * len);
  }
  EXPECT_GT(programs, 90);
}

/// Hand-checked values of the semantics that NumPy defines and C++ leaves undefined or different.
TEST(CpuInterpreter, EdgeValuesOfIntegerAndFloatOps) {
  auto run2 = [](OpCode op, DType t, Value a, Value b) {
    BlockProgram p = box_program({1});
    p.leaves = {stored_leaf(t, 0, amap(0, {0})), stored_leaf(t, 1, amap(0, {0}))};
    p.instrs = {instr(op, cpu::op_result_dtype(op, t), 0, 1)};
    Buffer x(t, 1), y(t, 1), out(p.result_dtype(), 1);
    x.set(0, a);
    y.set(0, b);
    const void* in[] = {x.data(), y.data()};
    run_program(p, in, out.data());
    return out.get(0);
  };
  using I64 = std::int64_t;
  using I32 = std::int32_t;
  // Remainders take the sign of the divisor; x % 0 == 0; INT_MIN % -1 == 0.
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::int64, I64{-7}, I64{3}), I64{2}));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::int64, I64{7}, I64{-3}), I64{-2}));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::int64, I64{-6}, I64{3}), I64{0}));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::int64, I64{5}, I64{0}), I64{0}));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::int64, i64_min, I64{-1}), I64{0}));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::int32, i32_min, I32{7}), I32{5}));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::float64, -7.0, 3.0), 2.0));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::float64, 7.5, -2.0), -0.5));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::float64, 6.0, -3.0), -0.0));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::float64, -6.0, 3.0), 0.0));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::float64, 1.0, 0.0), nan_v));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::float64, -1.0, inf_v), inf_v));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::float64, 1.0, inf_v), 1.0));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::float64, inf_v, 2.0), nan_v));
  EXPECT_TRUE(same_value(run2(OpCode::mod, DType::float32, -1.5f, 1.0f), 0.5f));
  // Integer powers wrap; negative exponents truncate 1/x^n.
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int64, I64{2}, I64{63}), i64_min));
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int64, I64{2}, I64{64}), I64{0}));
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int64, I64{3}, I64{40}),
                         static_cast<I64>(12157665459056928801ull)));
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int32, I32{3}, I32{21}), I32{1870418611}));
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int64, I64{0}, I64{0}), I64{1}));
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int64, I64{-2}, I64{3}), I64{-8}));
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int64, I64{2}, I64{-1}), I64{0}));
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int64, I64{0}, I64{-1}), I64{0}));
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int64, I64{1}, I64{-5}), I64{1}));
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int64, I64{-1}, I64{-5}), I64{-1}));
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int64, I64{-1}, I64{-4}), I64{1}));
  EXPECT_TRUE(same_value(run2(OpCode::pow, DType::int64, I64{-1}, i64_max), I64{-1}));
  // Wrapping arithmetic.
  EXPECT_TRUE(same_value(run2(OpCode::add, DType::int64, i64_max, I64{1}), i64_min));
  EXPECT_TRUE(same_value(run2(OpCode::sub, DType::int32, i32_min, I32{1}), i32_max));
  EXPECT_TRUE(same_value(run2(OpCode::mul, DType::int64, i64_min, I64{-1}), i64_min));
  EXPECT_TRUE(same_value(run2(OpCode::mul, DType::int32, I32{65536}, I32{65536}), I32{0}));
  // NaN-propagating minimum/maximum, either side.
  EXPECT_TRUE(same_value(run2(OpCode::minimum, DType::float64, nan_v, 1.0), nan_v));
  EXPECT_TRUE(same_value(run2(OpCode::minimum, DType::float64, 1.0, nan_v), nan_v));
  EXPECT_TRUE(same_value(
      run2(OpCode::maximum, DType::float32, 1.0f, std::numeric_limits<float>::quiet_NaN()),
      std::numeric_limits<float>::quiet_NaN()));
  EXPECT_TRUE(same_value(run2(OpCode::maximum, DType::int64, I64{-3}, I64{2}), I64{2}));
  // Logical bit ops and arithmetic on bool.
  EXPECT_TRUE(same_value(run2(OpCode::bit_xor, DType::bool_, true, true), false));
  EXPECT_TRUE(same_value(run2(OpCode::add, DType::bool_, true, true), true));
  EXPECT_TRUE(same_value(run2(OpCode::mul, DType::bool_, true, false), false));
  EXPECT_TRUE(same_value(run2(OpCode::lt, DType::float64, nan_v, 1.0), false));
  EXPECT_TRUE(same_value(run2(OpCode::ne, DType::float64, nan_v, nan_v), true));
}

TEST(CpuInterpreter, EdgeValuesOfUnaryOpsAndCasts) {
  auto run1 = [](OpCode op, DType t, DType rt, Value a) {
    BlockProgram p = box_program({1});
    p.leaves = {stored_leaf(t, 0, amap(0, {0}))};
    p.instrs = {instr(op, rt, 0)};
    Buffer x(t, 1), out(rt, 1);
    x.set(0, a);
    const void* in[] = {x.data()};
    run_program(p, in, out.data());
    return out.get(0);
  };
  using I64 = std::int64_t;
  using I32 = std::int32_t;
  EXPECT_TRUE(same_value(run1(OpCode::neg, DType::int64, DType::int64, i64_min), i64_min));
  EXPECT_TRUE(same_value(run1(OpCode::abs, DType::int32, DType::int32, i32_min), i32_min));
  EXPECT_TRUE(same_value(run1(OpCode::abs, DType::float64, DType::float64, -0.0), 0.0));
  EXPECT_TRUE(same_value(run1(OpCode::bit_not, DType::bool_, DType::bool_, true), false));
  EXPECT_TRUE(same_value(run1(OpCode::bit_not, DType::int32, DType::int32, I32{0}), I32{-1}));
  EXPECT_TRUE(same_value(run1(OpCode::isnan, DType::int64, DType::bool_, i64_min), false));
  EXPECT_TRUE(same_value(run1(OpCode::isfinite, DType::int64, DType::bool_, i64_max), true));
  EXPECT_TRUE(same_value(run1(OpCode::isfinite, DType::float64, DType::bool_, -inf_v), false));
  EXPECT_TRUE(same_value(run1(OpCode::isfinite, DType::float64, DType::bool_, nan_v), false));
  EXPECT_TRUE(same_value(run1(OpCode::isfinite, DType::float32, DType::bool_, 3e38f), true));
  EXPECT_TRUE(same_value(
      run1(OpCode::isnan, DType::float32, DType::bool_, std::numeric_limits<float>::quiet_NaN()),
      true));
  // float -> int truncates toward zero; NaN and out-of-range give the minimum, never UB.
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::float64, DType::int64, -2.9), I64{-2}));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::float64, DType::int32, 2147483647.9), i32_max));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::float64, DType::int32, -2147483648.9), i32_min));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::float64, DType::int32, 2147483648.0), i32_min));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::float64, DType::int32, nan_v), i32_min));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::float64, DType::int64, 9.3e18), i64_min));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::float64, DType::int64, -inf_v), i64_min));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::float32, DType::int64, -9.2e18f),
                         I64{-9200000267938955264}));
  EXPECT_TRUE(
      same_value(run1(OpCode::cast, DType::int64, DType::int32, I64{0x1'0000'0005}), I32{5}));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::float64, DType::bool_, nan_v), true));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::float64, DType::bool_, -0.0), false));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::int32, DType::bool_, I32{-4}), true));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::bool_, DType::float32, true), 1.0f));
  EXPECT_TRUE(same_value(run1(OpCode::cast, DType::float64, DType::float32, 1e300),
                         std::numeric_limits<float>::infinity()));
}

} // namespace
} // namespace chunked::test::interp
