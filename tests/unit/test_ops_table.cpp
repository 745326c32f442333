// SPDX-License-Identifier: Apache-2.0
// The operation vocabulary (chunked/ops): every row of the elementwise and reduction tables is
// complete, and the CPU's loop for every (operation, accepted dtype) computes what the row's
// scalar definition does, bit for bit.
#include "backend/cpu/interpreter.hpp"
#include "plan/block_program.hpp"
#include "plan/partial.hpp"
#include <chunked/ops/op_code.hpp>
#include <chunked/ops/reduce_op.hpp>
#include <chunked/ops/scalar.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace chunked;
using ops::OpCode;

constexpr DType all_dtypes[] = {DType::bool_, DType::int32, DType::int64, DType::float32,
                                DType::float64};

bool is_identifier(std::string_view s) {
  if (s.empty() || !(s[0] >= 'a' && s[0] <= 'z'))
    return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

TEST(OpsTable, EveryElementwiseRowHasANameAnArityAndADtype) {
  std::set<std::string_view> names;
  int accepting = 0;
  for (int code = 0; code < ops::num_opcodes; ++code) {
    const auto op = static_cast<OpCode>(code);
    const std::string_view name = ops::op_name(op);
    EXPECT_TRUE(is_identifier(name)) << code << ": '" << name << "'";
    EXPECT_TRUE(names.insert(name).second) << name << " is in the table twice";
    const int arity = ops::op_arity(op);
    EXPECT_TRUE(arity >= 1 && arity <= 3) << name << " has arity " << arity;
    EXPECT_EQ(arity == 3, op == OpCode::where) << name;
    EXPECT_EQ(ops::op_info(op).result == ops::ResultRule::target, op == OpCode::cast) << name;
    bool some = false;
    for (DType t : all_dtypes)
      some = some || ops::op_accepts(op, t);
    EXPECT_TRUE(some) << name << " accepts no dtype";
    accepting += some;
  }
  EXPECT_EQ(accepting, ops::num_opcodes);
  // Values past the table are no operation, and say so.
  const auto past = static_cast<OpCode>(ops::num_opcodes);
  EXPECT_FALSE(ops::is_opcode(past));
  EXPECT_EQ(ops::op_name(past), "unknown_op");
  EXPECT_EQ(ops::op_arity(past), 0);
  for (DType t : all_dtypes)
    EXPECT_FALSE(ops::op_accepts(past, t));
}

TEST(OpsTable, ResultAndComputeDtypesFollowTheRows) {
  EXPECT_EQ(ops::op_result_dtype(OpCode::lt, DType::float32), DType::bool_);
  EXPECT_EQ(ops::op_result_dtype(OpCode::add, DType::int32), DType::int32);
  EXPECT_EQ(ops::op_compute_dtype(OpCode::sqrt, DType::int32), DType::float64);
  EXPECT_EQ(ops::op_compute_dtype(OpCode::sqrt, DType::bool_), DType::float64);
  EXPECT_EQ(ops::op_compute_dtype(OpCode::sqrt, DType::float32), DType::float32);
  EXPECT_EQ(ops::op_compute_dtype(OpCode::add, DType::int32), DType::int32);
  EXPECT_FALSE(ops::op_accepts(OpCode::sub, DType::bool_));
  EXPECT_TRUE(ops::op_accepts(OpCode::bit_and, DType::bool_));
  EXPECT_FALSE(ops::op_accepts(OpCode::bit_and, DType::float64));
  EXPECT_TRUE(ops::op_calls_library(OpCode::exp, DType::float64));
  EXPECT_TRUE(ops::op_calls_library(OpCode::pow, DType::float32));
  EXPECT_FALSE(ops::op_calls_library(OpCode::pow, DType::int64));
  EXPECT_FALSE(ops::op_calls_library(OpCode::sqrt, DType::float64));
  EXPECT_TRUE(ops::op_has_slow_path(OpCode::div));
  EXPECT_FALSE(ops::op_has_slow_path(OpCode::mul));
}

TEST(OpsTable, EveryReductionRowHasANameAndAStateLayout) {
  std::set<std::string_view> names;
  for (int code = 0; code < ops::num_reduce_ops; ++code) {
    const auto op = static_cast<ops::ReduceOp>(code);
    const std::string_view name = ops::reduce_op_name(op);
    EXPECT_TRUE(is_identifier(name)) << code;
    EXPECT_TRUE(names.insert(name).second) << name;
    for (DType t : all_dtypes) {
      const plan::PartialLayout layout = plan::partial_layout(op, t);
      EXPECT_GE(layout.words, 1) << name;
      // At most three words, but the exact accumulator of exact_sums (75).
      const bool exact = ops::reduce_accumulator(op) == ops::Accumulator::exact;
      EXPECT_EQ(layout.words <= 3, !exact) << name;
      // The one run-time choice of an accumulator agrees with the layout's word count.
      const int words = ops::visit_accumulator(
          op, [](auto kind) { return ops::accumulator_words(decltype(kind)::value); });
      EXPECT_EQ(words, layout.words) << name;
    }
  }
  EXPECT_EQ(ops::reduce_result_dtype(ops::ReduceOp::sum, DType::bool_), DType::int64);
  EXPECT_EQ(ops::reduce_result_dtype(ops::ReduceOp::mean, DType::int32), DType::float64);
  EXPECT_EQ(ops::reduce_result_dtype(ops::ReduceOp::var, DType::float32), DType::float32);
  EXPECT_EQ(ops::reduce_result_dtype(ops::ReduceOp::argmax, DType::float32), DType::int64);
  EXPECT_EQ(ops::reduce_result_dtype(ops::ReduceOp::any, DType::float64), DType::bool_);
  EXPECT_TRUE(ops::reduce_needs_elements(ops::ReduceOp::argmin));
  EXPECT_FALSE(ops::reduce_needs_elements(ops::ReduceOp::prod));
  EXPECT_THROW(ops::visit_accumulator(static_cast<ops::ReduceOp>(ops::num_reduce_ops),
                                      [](auto) { return 0; }),
               ValueError);
}

// ---- The CPU loop of every row against its scalar definition ----------------------------------

/// Values that take every branch of the scalar definitions: signed zeros, ties of rounding,
/// integer extremes, NaNs of both signs, infinities, subnormals.
template <class T> std::vector<T> edge_values() {
  if constexpr (std::is_same_v<T, bool>) {
    return {false, true};
  } else if constexpr (std::is_integral_v<T>) {
    using L = std::numeric_limits<T>;
    return {T(0),  T(1),   T(-1),    T(2),     T(-2),          T(3),
            T(-7), T(100), L::max(), L::min(), T(L::min() + 1)};
  } else {
    using L = std::numeric_limits<T>;
    return {
        T(0),           T(-0.0),        T(0.5),         T(-0.5),  T(1.5),          T(-2.5),
        T(1),           T(-1),          T(0.3),         T(-0.7),  T(3.75),         T(1e30),
        T(-1e30),       L::max(),       L::lowest(),    L::min(), L::denorm_min(), L::infinity(),
        -L::infinity(), L::quiet_NaN(), -L::quiet_NaN()};
  }
}

template <class R> bool same_bits(R a, R b) {
  if constexpr (std::is_floating_point_v<R>)
    if (std::isnan(a) && std::isnan(b))
      return true; // which NaN a loop gives may depend on operand order
  return std::memcmp(&a, &b, sizeof(R)) == 0;
}

/// Runs `op` over every ordered pair of edge values (unary: every value) in rows long enough for
/// the widest vectors and a tail, and compares each element with scalar::apply<Op>.
template <OpCode Op, class T> void check_loop() {
  const std::vector<T> edge = edge_values<T>();
  const auto m = static_cast<index_t>(edge.size());
  const index_t len = 4 * m + 67;
  // Arrays rather than vectors: std::vector<bool> has no data().
  const auto values = std::make_unique<T[]>(static_cast<std::size_t>(len));
  for (index_t k = 0; k < len; ++k)
    values[static_cast<std::size_t>(k)] = edge[static_cast<std::size_t>(k % m)];
  std::vector<std::uint8_t> cond(static_cast<std::size_t>(len));
  for (index_t k = 0; k < len; ++k)
    cond[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k % 3 == 1);

  constexpr int arity = ops::op_arity(Op);
  constexpr DType t = dtype_v<T>;
  using R = dtype_type_t<ops::op_result_dtype(Op, t)>;
  plan::BlockProgram p;
  p.ndim = 2;
  p.extent = {arity == 1 ? 1 : m, len};
  auto leaf = [&](DType dt, int input, index_t c0, index_t c1) {
    plan::Leaf l;
    l.kind = ops::LeafKind::stored;
    l.dtype = dt;
    l.input = input;
    l.map.coef = {c0, c1};
    return l;
  };
  if constexpr (Op == OpCode::where)
    p.leaves = {leaf(DType::bool_, 1, 0, 1), leaf(t, 0, 1, 0), leaf(t, 0, 0, 1)};
  else if constexpr (arity == 2)
    p.leaves = {leaf(t, 0, 1, 0), leaf(t, 0, 0, 1)};
  else
    p.leaves = {leaf(t, 0, 0, 1)};
  plan::Instr in;
  in.op = Op;
  in.dtype = ops::op_result_dtype(Op, t);
  for (int a = 0; a < arity; ++a)
    in.args[static_cast<std::size_t>(a)] = static_cast<std::int16_t>(a);
  p.instrs = {in};
  p.sink.map.coef = {len, 1};

  const auto out = std::make_unique<R[]>(static_cast<std::size_t>(p.size()));
  const void* inputs[] = {values.get(), cond.data()};
  cpu::run_program(p, inputs, out.get());
  index_t bad = 0;
  for (index_t i = 0; i < p.extent[0]; ++i)
    for (index_t j = 0; j < len; ++j) {
      const T a = values[static_cast<std::size_t>(i)], b = values[static_cast<std::size_t>(j)];
      R want;
      if constexpr (Op == OpCode::where)
        want = scalar::apply<Op>(cond[static_cast<std::size_t>(j)] != 0, a, b);
      else if constexpr (arity == 2)
        want = scalar::apply<Op>(a, b);
      else
        want = scalar::apply<Op>(b);
      const R got = out[static_cast<std::size_t>(i * len + j)];
      if (!same_bits(got, want) && bad++ < 3)
        ADD_FAILURE() << ops::op_name(Op) << " on " << dtype_name(t) << " at (" << i << ", " << j
                      << "): got " << +got << ", want " << +want;
    }
  EXPECT_EQ(bad, 0) << ops::op_name(Op) << " on " << dtype_name(t);
}

template <OpCode Op> int check_row() {
  int checked = 0;
  if constexpr (Op != OpCode::cast) {
    for (DType t : all_dtypes)
      visit_dtype(t, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (ops::op_accepts(Op, dtype_v<T>)) {
          SCOPED_TRACE(std::string(ops::op_name(Op)) + " " + std::string(dtype_name(t)));
          check_loop<Op, T>();
          ++checked;
        }
      });
  }
  return checked;
}

template <std::size_t... I> int check_rows(std::index_sequence<I...>) {
  return (check_row<static_cast<OpCode>(I)>() + ...);
}

// Named CpuInterpreter.* so that ctest runs it on each instruction set's loops too.
TEST(CpuInterpreter, EveryRowOfTheTableMatchesItsScalarDefinition) {
  const int checked =
      check_rows(std::make_index_sequence<static_cast<std::size_t>(ops::num_opcodes)>{});
  EXPECT_GT(checked, 2 * ops::num_opcodes);
}

} // namespace
