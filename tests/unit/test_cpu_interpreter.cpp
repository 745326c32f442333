// SPDX-License-Identifier: Apache-2.0
// The CPU tile interpreter against naive per-element references: ops, leaves, maps, sinks.

#include <gtest/gtest.h>

#include "backend/common/exact_sum.hpp"
#include "backend/cpu/elementwise.hpp"
#include "backend/cpu/interpreter.hpp"
#include "backend/cpu/partials.hpp"
#include "plan/block_program.hpp"
#include "plan/partial.hpp"
#include <chunked/random/distributions.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <variant>
#include <vector>

namespace {

using namespace chunked;
using namespace chunked::plan;
using chunked::cpu::run_program;

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();
constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int32_t i32_min = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t i32_max = std::numeric_limits<std::int32_t>::max();

constexpr DType all_dtypes[] = {DType::bool_, DType::int32, DType::int64, DType::float32,
                                DType::float64};

// ---- Building programs
// ---------------------------------------------------------------------------

AffineMap amap(index_t base, std::vector<index_t> coef) {
  AffineMap m;
  m.base = base;
  for (std::size_t k = 0; k < coef.size(); ++k)
    m.coef[k] = coef[k];
  return m;
}

std::vector<index_t> c_strides(const std::vector<index_t>& extent) {
  std::vector<index_t> s(extent.size(), 1);
  for (int k = static_cast<int>(extent.size()) - 2; k >= 0; --k)
    s[k] = s[k + 1] * extent[k + 1];
  return s;
}

index_t box_size(const std::vector<index_t>& extent) {
  index_t n = 1;
  for (index_t e : extent)
    n *= e;
  return n;
}

BlockProgram box_program(const std::vector<index_t>& extent) {
  BlockProgram p;
  p.ndim = static_cast<int>(extent.size());
  for (std::size_t k = 0; k < extent.size(); ++k)
    p.extent[k] = extent[k];
  p.sink.kind = Sink::Kind::store;
  p.sink.map = amap(0, c_strides(extent));
  return p;
}

Leaf stored_leaf(DType t, int input, AffineMap m) {
  Leaf l;
  l.kind = LeafKind::stored;
  l.dtype = t;
  l.input = input;
  l.map = m;
  return l;
}

Leaf constant_leaf(DType t, double f, std::int64_t i) {
  Leaf l;
  l.kind = LeafKind::constant;
  l.dtype = t;
  l.a = {f, i};
  return l;
}

Instr instr(OpCode op, DType t, std::int16_t a, std::int16_t b = -1, std::int16_t c = -1) {
  return Instr{op, t, {{a, b, c}}};
}

// ---- Values of any dtype
// --------------------------------------------------------------------------

using Value = std::variant<bool, std::int32_t, std::int64_t, float, double>;

/// Raw bytes of n values of dtype t.
struct Buffer {
  DType dtype = DType::float64;
  std::vector<std::byte> bytes;
  Buffer() = default;
  Buffer(DType t, index_t n) : dtype(t), bytes(static_cast<std::size_t>(n) * dtype_size(t)) {}
  index_t size() const { return static_cast<index_t>(bytes.size() / dtype_size(dtype)); }
  void* data() { return bytes.data(); }
  const void* data() const { return bytes.data(); }
  Value get(index_t i) const {
    return visit_dtype(dtype, [&](auto tag) -> Value {
      using T = decltype(tag);
      T v;
      std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
      return v;
    });
  }
  void set(index_t i, Value v) {
    std::visit(
        [&](auto x) {
          visit_dtype(dtype, [&](auto tag) {
            using T = decltype(tag);
            const T y = cpu::cast_value<T>(x);
            std::memcpy(bytes.data() + i * sizeof(T), &y, sizeof(T));
          });
        },
        v);
  }
};

/// Equal values, NaN equal to NaN, +0 distinct from -0 only where `signed_zero`.
bool same_value(const Value& a, const Value& b) {
  if (a.index() != b.index())
    return false;
  return std::visit(
      [&](auto x) {
        using T = decltype(x);
        const T y = std::get<T>(b);
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(x) || std::isnan(y))
            return std::isnan(x) && std::isnan(y);
          return x == y && std::signbit(x) == std::signbit(y);
        } else {
          return x == y;
        }
      },
      a);
}

std::string show(const Value& v) {
  return std::visit([](auto x) { return std::to_string(x); }, v);
}

// ---- Reference semantics, element by element
// -----------------------------------------------------

template <class T> Value ref_unary(OpCode op, T x) {
  using namespace chunked::cpu;
  switch (op) {
  case OpCode::neg:
    if constexpr (!std::is_same_v<T, bool>)
      return op_neg(x);
    break;
  case OpCode::abs:
    return op_abs(x);
  case OpCode::isnan:
    return op_isnan(x);
  case OpCode::isfinite:
    return op_isfinite(x);
  case OpCode::bit_not:
    if constexpr (!std::is_floating_point_v<T>)
      return op_bit_not(x);
    break;
  default:
    if constexpr (std::is_floating_point_v<T>) {
      switch (op) {
      case OpCode::sqrt:
        return std::sqrt(x);
      case OpCode::exp:
        return std::exp(x);
      case OpCode::log:
        return std::log(x);
      case OpCode::log1p:
        return std::log1p(x);
      case OpCode::expm1:
        return std::expm1(x);
      case OpCode::sin:
        return std::sin(x);
      case OpCode::cos:
        return std::cos(x);
      case OpCode::tan:
        return std::tan(x);
      case OpCode::tanh:
        return std::tanh(x);
      default:
        break;
      }
    }
  }
  ADD_FAILURE() << "reference has no unary " << opcode_name(op);
  return x;
}

template <class T> Value ref_binary(OpCode op, T a, T b) {
  using namespace chunked::cpu;
  switch (op) {
  case OpCode::add:
    return op_add(a, b);
  case OpCode::mul:
    return op_mul(a, b);
  case OpCode::minimum:
    return op_minimum(a, b);
  case OpCode::maximum:
    return op_maximum(a, b);
  case OpCode::eq:
    return a == b;
  case OpCode::ne:
    return a != b;
  case OpCode::lt:
    return a < b;
  case OpCode::le:
    return a <= b;
  case OpCode::gt:
    return a > b;
  case OpCode::ge:
    return a >= b;
  default:
    break;
  }
  if constexpr (!std::is_same_v<T, bool>) {
    switch (op) {
    case OpCode::sub:
      return op_sub(a, b);
    case OpCode::mod:
      return op_mod(a, b);
    case OpCode::pow:
      return op_pow(a, b);
    default:
      break;
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (op == OpCode::div)
      return a / b;
  } else {
    switch (op) {
    case OpCode::bit_and:
      return op_bit_and(a, b);
    case OpCode::bit_or:
      return op_bit_or(a, b);
    case OpCode::bit_xor:
      return op_bit_xor(a, b);
    default:
      break;
    }
  }
  ADD_FAILURE() << "reference has no binary " << opcode_name(op);
  return a;
}

Value ref_cast(DType to, const Value& v) {
  return std::visit(
      [&](auto x) {
        return visit_dtype(to,
                           [&](auto tag) -> Value { return cpu::cast_value<decltype(tag)>(x); });
      },
      v);
}

Value ref_instr(const Instr& in, const std::vector<Value>& args) {
  if (in.op == OpCode::cast)
    return ref_cast(in.dtype, args[0]);
  if (in.op == OpCode::where)
    return std::get<bool>(args[0]) ? args[1] : args[2];
  return std::visit(
      [&](auto x) -> Value {
        using T = decltype(x);
        if (opcode_arity(in.op) == 1)
          return ref_unary(in.op, x);
        return ref_binary(in.op, x, std::get<T>(args[1]));
      },
      args[0]);
}

Value ref_leaf(const Leaf& leaf, const std::vector<index_t>& i, int ndim,
               const std::vector<const Buffer*>& inputs) {
  const index_t at = leaf.map.at(i.data(), ndim);
  switch (leaf.kind) {
  case LeafKind::constant:
    return is_floating(leaf.dtype) ? ref_cast(leaf.dtype, leaf.a.f)
                                   : ref_cast(leaf.dtype, leaf.a.i);
  case LeafKind::stored:
    return inputs[leaf.input]->get(at);
  case LeafKind::arange:
    if (is_floating(leaf.dtype)) // NumPy's fill, in the dtype: a + i * b rounded twice, unfused
      return leaf.dtype == DType::float32 ? Value(float(leaf.a.f) + float(at) * float(leaf.b.f))
                                          : Value(leaf.a.f + double(at) * leaf.b.f);
    return ref_cast(leaf.dtype,
                    static_cast<std::int64_t>(static_cast<std::uint64_t>(leaf.a.i) +
                                              static_cast<std::uint64_t>(at) *
                                                  static_cast<std::uint64_t>(leaf.b.i)));
  case LeafKind::normal:
    return ref_cast(leaf.dtype, random::normal_at(leaf.seed, leaf.stream, at, leaf.a.f, leaf.b.f));
  case LeafKind::uniform:
    return ref_cast(leaf.dtype, random::uniform_at(leaf.seed, leaf.stream, at, leaf.a.f, leaf.b.f));
  case LeafKind::integers:
    return ref_cast(leaf.dtype,
                    random::integers_at(leaf.seed, leaf.stream, at, leaf.a.i, leaf.b.i));
  }
  return false;
}

/// Calls f(multi-index) for every position of the box in C order.
template <class F> void for_each_position(const BlockProgram& p, F&& f) {
  if (p.size() == 0)
    return;
  std::vector<index_t> i(std::max(p.ndim, 1), 0);
  for (index_t n = 0; n < p.size(); ++n) {
    f(i);
    for (int k = p.ndim - 1; k >= 0; --k) {
      if (++i[k] < p.extent[k])
        break;
      i[k] = 0;
    }
  }
}

Value ref_result(const BlockProgram& p, const std::vector<index_t>& i,
                 const std::vector<const Buffer*>& inputs) {
  std::vector<Value> v;
  for (const Leaf& leaf : p.leaves)
    v.push_back(ref_leaf(leaf, i, p.ndim, inputs));
  for (const Instr& in : p.instrs) {
    std::vector<Value> args;
    for (int a = 0; a < opcode_arity(in.op); ++a)
      args.push_back(v[in.args[a]]);
    v.push_back(ref_instr(in, args));
  }
  return v.back();
}

std::vector<const void*> pointers(const std::vector<const Buffer*>& inputs) {
  std::vector<const void*> r;
  for (const Buffer* b : inputs)
    r.push_back(b->data());
  return r;
}

/// Runs a store program into a buffer of `out_size` elements prefilled with a sentinel and checks
/// every written element against the reference and every other element untouched.
void check_store(const BlockProgram& p, const std::vector<const Buffer*>& inputs,
                 index_t out_size) {
  Buffer out(p.result_dtype(), out_size);
  std::memset(out.data(), 0x5a, out.bytes.size());
  const Buffer untouched = out;
  const auto in = pointers(inputs);
  run_program(p, in, out.data());
  std::vector<bool> written(out_size, false);
  int failures = 0;
  for_each_position(p, [&](const std::vector<index_t>& i) {
    const index_t at = p.sink.map.at(i.data(), p.ndim);
    written[at] = true;
    const Value want = ref_result(p, i, inputs);
    if (!same_value(out.get(at), want) && ++failures < 5)
      ADD_FAILURE() << "element " << at << ": got " << show(out.get(at)) << ", want " << show(want)
                    << "\n"
                    << p.describe();
  });
  for (index_t k = 0; k < out_size; ++k)
    if (!written[k] &&
        std::memcmp(out.bytes.data() + k * dtype_size(out.dtype),
                    untouched.bytes.data() + k * dtype_size(out.dtype), dtype_size(out.dtype)) != 0)
      ADD_FAILURE() << "element " << k << " was not in the box but was written";
}

// ---- Edge values per dtype --------------------------------------------------------------------

std::vector<Value> edge_values(DType t) {
  switch (t) {
  case DType::bool_:
    return {false, true};
  case DType::int32:
    return {std::int32_t{0}, std::int32_t{1},  std::int32_t{-1}, std::int32_t{2}, std::int32_t{-7},
            std::int32_t{3}, std::int32_t{31}, std::int32_t{-3}, i32_min,         i32_max};
  case DType::int64:
    return {std::int64_t{0}, std::int64_t{1},  std::int64_t{-1}, std::int64_t{2}, std::int64_t{-7},
            std::int64_t{3}, std::int64_t{63}, std::int64_t{-3}, i64_min,         i64_max};
  case DType::float32:
    return {0.0f,
            -0.0f,
            1.0f,
            -1.0f,
            2.5f,
            -7.25f,
            3.0f,
            1e30f,
            -1e-30f,
            std::numeric_limits<float>::infinity(),
            -std::numeric_limits<float>::infinity(),
            std::numeric_limits<float>::quiet_NaN(),
            3e9f,
            -3e9f,
            1e20f};
  case DType::float64:
    return {0.0,    -0.0,  1.0, -1.0, 2.5,  -7.25,   3.0, 1e300,        -1e-300,      inf_v,
            -inf_v, nan_v, 3e9, -3e9, 1e19, -9.3e18, 0.5, 2147483647.9, -2147483648.9};
  }
  return {};
}

constexpr OpCode all_opcodes[] = {OpCode::neg,      OpCode::abs,     OpCode::sqrt,   OpCode::exp,
                                  OpCode::log,      OpCode::log1p,   OpCode::expm1,  OpCode::sin,
                                  OpCode::cos,      OpCode::tan,     OpCode::tanh,   OpCode::isnan,
                                  OpCode::isfinite, OpCode::bit_not, OpCode::add,    OpCode::sub,
                                  OpCode::mul,      OpCode::div,     OpCode::mod,    OpCode::pow,
                                  OpCode::minimum,  OpCode::maximum, OpCode::eq,     OpCode::ne,
                                  OpCode::lt,       OpCode::le,      OpCode::gt,     OpCode::ge,
                                  OpCode::bit_and,  OpCode::bit_or,  OpCode::bit_xor};

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

// ---- Leaves and index maps ------------------------------------------------------------------

/// A stored leaf over a fresh buffer that `map` stays inside, with a random affine map.
struct StoredInput {
  Buffer buffer;
  AffineMap map;
};

StoredInput random_stored(DType t, const std::vector<index_t>& extent, std::mt19937_64& rng) {
  std::uniform_int_distribution<index_t> coef(-3, 3);
  AffineMap m;
  index_t lo = 0, hi = 0;
  for (std::size_t k = 0; k < extent.size(); ++k) {
    m.coef[k] = coef(rng);
    const index_t reach = m.coef[k] * std::max<index_t>(extent[k] - 1, 0);
    (reach < 0 ? lo : hi) += reach;
  }
  m.base = -lo + static_cast<index_t>(rng() % 3);
  StoredInput s{Buffer(t, m.base + hi + 1), m};
  std::uniform_real_distribution<double> val(-100, 100);
  for (index_t k = 0; k < s.buffer.size(); ++k)
    s.buffer.set(k, std::round(val(rng) * 8) / 8);
  return s;
}

const std::vector<std::vector<index_t>> test_boxes = {{},
                                                      {1},
                                                      {0},
                                                      {7},
                                                      {2048},
                                                      {4099},
                                                      {3, 0},
                                                      {1, 1},
                                                      {3, 700},
                                                      {700, 3},
                                                      {2049, 2},
                                                      {2, 3, 5},
                                                      {5, 1, 433},
                                                      {2, 3, 4, 171},
                                                      {1, 2, 1, 2049},
                                                      {3, 2, 1, 5}};

TEST(CpuInterpreter, LeavesThroughOddMapsAndStridedStores) {
  std::mt19937_64 rng(7);
  for (const auto& extent : test_boxes) {
    for (int variant = 0; variant < 4; ++variant) {
      BlockProgram p = box_program(extent);
      StoredInput a = random_stored(DType::float64, extent, rng);
      StoredInput b = random_stored(DType::int32, extent, rng);
      Leaf ar;
      ar.kind = LeafKind::arange;
      ar.dtype = variant % 2 ? DType::float32 : DType::int64;
      ar.a = {0.25, -5};
      ar.b = {-1.5, 3};
      ar.map = random_stored(DType::bool_, extent, rng).map;
      p.leaves = {stored_leaf(DType::float64, 0, a.map), stored_leaf(DType::int32, 1, b.map), ar,
                  constant_leaf(DType::float64, 1.5, 0)};
      // v4 = cast(b) ; v5 = a * v4 ; v6 = cast(arange) ; v7 = v5 + v6 ; v8 = v7 - 1.5
      p.instrs = {instr(OpCode::cast, DType::float64, 1), instr(OpCode::mul, DType::float64, 0, 4),
                  instr(OpCode::cast, DType::float64, 2), instr(OpCode::add, DType::float64, 5, 6),
                  instr(OpCode::sub, DType::float64, 7, 3)};
      // Output layout: C order of a permuted box, stretched by 2 and reversed on odd variants.
      std::vector<index_t> order(extent.size());
      for (std::size_t k = 0; k < order.size(); ++k)
        order[k] = static_cast<index_t>(k);
      std::shuffle(order.begin(), order.end(), rng);
      std::vector<index_t> permuted;
      for (index_t k : order)
        permuted.push_back(extent[k]);
      const auto strides = c_strides(permuted);
      const index_t n = box_size(extent);
      const index_t stretch = variant >= 2 ? 2 : 1;
      const index_t sign = variant % 2 ? -1 : 1;
      AffineMap out;
      out.base = sign < 0 ? stretch * std::max<index_t>(n - 1, 0) : 1;
      for (std::size_t k = 0; k < order.size(); ++k)
        out.coef[order[k]] = sign * stretch * strides[k];
      p.sink.map = out;
      check_store(p, {&a.buffer, &b.buffer}, stretch * n + 2);
    }
  }
}

// Leaves that repeat along the outer axes (a column mean broadcast down a block, a random row,
// an arange along the last axes) are filled once per program and reused by every tile; periods
// that divide the tile and those that do not, periods longer than a tile, inner axes of length
// one and reversed or stretched outputs.
TEST(CpuInterpreter, LeavesRepeatingAlongOuterAxesGiveEveryTileTheirValues) {
  std::mt19937_64 rng(21);
  const std::vector<std::pair<std::vector<index_t>, int>> boxes = {
      // extents, number of outer axes along which the leaves repeat
      {{4099, 3}, 1}, {{700, 64}, 1}, {{33, 100}, 1},      {{5, 7, 11}, 1},  {{5, 7, 11}, 2},
      {{3, 2049}, 1}, {{2050, 1}, 1}, {{2, 3, 4, 171}, 2}, {{9, 1, 300}, 1}, {{1000, 2, 1}, 1}};
  for (const auto& [extent, outer] : boxes) {
    for (int variant = 0; variant < 3; ++variant) {
      BlockProgram p = box_program(extent);
      StoredInput x = random_stored(DType::float64, extent, rng);
      StoredInput m = random_stored(DType::float64, extent, rng);
      for (int k = 0; k < outer; ++k)
        m.map.coef[k] = 0; // repeats along the outer axes (the buffer still holds every read)
      Leaf r;
      r.kind = LeafKind::normal;
      r.dtype = DType::float64;
      r.seed = 5;
      r.stream = 2;
      r.a = {1.0, 0};
      r.b = {2.0, 0};
      r.map = amap(7, c_strides(extent));
      for (int k = 0; k < outer; ++k)
        r.map.coef[k] = 0;
      Leaf ar;
      ar.kind = LeafKind::arange;
      ar.dtype = DType::int64;
      ar.a = {0.0, 3};
      ar.b = {0.0, -2};
      ar.map = r.map;
      p.leaves = {stored_leaf(DType::float64, 0, x.map), stored_leaf(DType::float64, 1, m.map), r,
                  ar};
      // v4 = x - m ; v5 = v4 * r ; v6 = cast(ar) ; v7 = v5 + v6
      p.instrs = {instr(OpCode::sub, DType::float64, 0, 1),
                  instr(OpCode::mul, DType::float64, 4, 2), instr(OpCode::cast, DType::float64, 3),
                  instr(OpCode::add, DType::float64, 5, 6)};
      const index_t n = box_size(extent);
      if (variant == 1) {
        p.sink.map.base = n - 1;
        for (std::size_t k = 0; k < extent.size(); ++k)
          p.sink.map.coef[k] = -p.sink.map.coef[k];
      } else if (variant == 2) {
        p.sink.map.base = 1;
        for (std::size_t k = 0; k < extent.size(); ++k)
          p.sink.map.coef[k] *= 2;
      }
      SCOPED_TRACE(::testing::Message() << "box of " << n << " positions, " << outer
                                        << " outer axes, variant " << variant);
      check_store(p, {&x.buffer, &m.buffer}, (variant == 2 ? 2 : 1) * n + 1);
    }
  }
}

TEST(CpuInterpreter, ReversedAndEveryOtherReadsOfEightByteLeaves) {
  // x[::-1] and x[::2] of float64 and int64 go through whole-vector gathers: every length around
  // the vector widths, read from buffers that end at the last element read (so that a read past
  // it shows under the address sanitizer), against the element-by-element definition.
  for (const DType t : {DType::float64, DType::int64})
    for (const index_t step : {-1, 2})
      for (index_t n = 1; n <= 40; ++n) {
        const index_t span = step == 2 ? 2 * n - 1 : n;
        std::vector<std::int64_t> src(static_cast<std::size_t>(span));
        for (index_t k = 0; k < span; ++k)
          src[static_cast<std::size_t>(k)] = k * 1000003 + 7; // float64: any bits will do
        BlockProgram p = box_program({n});
        p.leaves = {stored_leaf(t, 0, amap(step < 0 ? span - 1 : 0, {step}))};
        std::vector<std::int64_t> out(static_cast<std::size_t>(n), -1);
        const void* in[] = {src.data()};
        run_program(p, in, out.data());
        for (index_t k = 0; k < n; ++k)
          ASSERT_EQ(out[static_cast<std::size_t>(k)],
                    src[static_cast<std::size_t>(step < 0 ? span - 1 - k : 2 * k)])
              << dtype_name(t) << " step " << step << " length " << n << " element " << k;
      }
}

TEST(CpuInterpreter, LastAxisReductionsReadEveryLayoutOfAStoredBlock) {
  // Reducing the last axis cuts each tile into rows; a block laid out in C order is then read in
  // place across the rows, any other layout (rows further apart, columns first) through the tile
  // buffer. Each row's max and min must be those of its own values.
  std::mt19937_64 rng(41);
  const index_t rows = 37, cols = 300, pitch = 301;
  std::vector<double> x(static_cast<std::size_t>(rows * pitch));
  for (double& v : x)
    v = std::normal_distribution<double>()(rng);
  struct Layout {
    const char* name;
    AffineMap map;
    index_t at(index_t r, index_t c) const { return map.base + map.coef[0] * r + map.coef[1] * c; }
  };
  for (const Layout& layout :
       {Layout{"C order", amap(0, {cols, 1})}, Layout{"rows apart", amap(1, {pitch, 1})},
        Layout{"columns first", amap(0, {1, rows})}})
    for (const ReduceOp op : {ReduceOp::max, ReduceOp::min}) {
      BlockProgram p = box_program({rows, cols});
      p.leaves = {stored_leaf(DType::float64, 0, layout.map)};
      p.sink.kind = Sink::Kind::reduce;
      p.sink.op = op;
      p.sink.reduced_axes = 1;
      p.sink.map = amap(0, {1, 0});
      p.sink.num_partials = rows;
      std::vector<PartialWord> got(static_cast<std::size_t>(rows));
      const void* in[] = {x.data()};
      run_program(p, in, got.data());
      for (index_t r = 0; r < rows; ++r) {
        double want = op == ReduceOp::max ? -inf_v : inf_v;
        for (index_t c = 0; c < cols; ++c) {
          const double v = x[static_cast<std::size_t>(layout.at(r, c))];
          want = op == ReduceOp::max ? std::max(want, v) : std::min(want, v);
        }
        ASSERT_EQ(got[static_cast<std::size_t>(r)].f, want)
            << layout.name << " " << reduce_op_name(op) << " row " << r;
      }
    }
}

TEST(CpuInterpreter, ArangeInEveryDtype) {
  for (DType t : all_dtypes) {
    BlockProgram p = box_program({3, 1500});
    Leaf ar;
    ar.kind = LeafKind::arange;
    ar.dtype = t;
    ar.a = {-7.5, i64_max - 5};
    ar.b = {0.1, 7};
    ar.map = amap(11, {-1500, 1});
    p.leaves = {ar};
    check_store(p, {}, 4500);
  }
}

TEST(CpuInterpreter, ConstantsInEveryDtypeAndSingleLeafPrograms) {
  for (DType t : all_dtypes) {
    BlockProgram p = box_program({5000});
    p.leaves = {constant_leaf(t, -2.75, -3)};
    check_store(p, {}, 5000);
  }
  // A program of several leaves and no instructions yields its last leaf.
  BlockProgram p = box_program({9});
  Buffer x(DType::int64, 9);
  for (index_t k = 0; k < 9; ++k)
    x.set(k, std::int64_t{k * k});
  p.leaves = {constant_leaf(DType::float64, 1, 0), stored_leaf(DType::int64, 0, amap(8, {-1}))};
  check_store(p, {&x}, 9);
}

TEST(CpuInterpreter, RandomLeavesEqualThePerElementDistributions) {
  for (DType t : {DType::float64, DType::float32, DType::int32, DType::int64}) {
    for (LeafKind kind : {LeafKind::normal, LeafKind::uniform, LeafKind::integers}) {
      if (kind == LeafKind::integers && is_floating(t))
        continue;
      if (kind != LeafKind::integers && !is_floating(t))
        continue;
      for (const AffineMap& m : {amap(1, {3000, 1}), amap(4, {2, 1000}), amap(20001, {-7, -2}),
                                 amap(5, {0, 1}), amap(0, {1, 0})}) {
        BlockProgram p = box_program({3, 999});
        Leaf r;
        r.kind = kind;
        r.dtype = t;
        r.seed = 0x1234'5678'9abc'def0ull;
        r.stream = 3;
        r.a = {10.0, -1000};
        r.b = {2.0, 1000};
        r.map = m;
        p.leaves = {r};
        check_store(p, {}, 3 * 999);
      }
    }
  }
}

TEST(CpuInterpreter, DeadValuesAndReusedBuffers) {
  // A long chain whose intermediate values die early, plus an unused leaf whose input is null:
  // buffers are reused and the dead leaf is never read.
  BlockProgram p = box_program({5001});
  Buffer x(DType::float64, 5001);
  for (index_t k = 0; k < 5001; ++k)
    x.set(k, 0.001 * static_cast<double>(k) - 2);
  p.leaves = {stored_leaf(DType::float64, 0, amap(0, {1})), constant_leaf(DType::float64, 0.5, 0),
              stored_leaf(DType::float64, 1, amap(0, {1}))};
  std::int16_t last = 0;
  for (int j = 0; j < 40; ++j) {
    const auto op = j % 3 == 0 ? OpCode::add : j % 3 == 1 ? OpCode::mul : OpCode::sin;
    p.instrs.push_back(instr(op, DType::float64, last, op == OpCode::sin ? -1 : 1));
    last = static_cast<std::int16_t>(3 + j);
  }
  p.instrs.push_back(instr(OpCode::add, DType::float64, last, 0));
  Buffer out(DType::float64, 5001);
  const void* in[] = {x.data(), nullptr};
  run_program(p, in, out.data());
  std::vector<const Buffer*> inputs = {&x, &x};
  for (index_t k = 0; k < 5001; k += 37) {
    std::vector<index_t> i = {k};
    EXPECT_TRUE(same_value(out.get(k), ref_result(p, i, inputs))) << k;
  }
}

TEST(CpuInterpreter, RejectsMalformedPrograms) {
  BlockProgram p = box_program({4});
  p.leaves = {constant_leaf(DType::float64, 1, 0)};
  p.instrs = {instr(OpCode::add, DType::float64, 0, 1)}; // reads itself
  double out[4];
  EXPECT_THROW(run_program(p, {}, out), ValueError);
  p.instrs = {instr(OpCode::sqrt, DType::int64, 0)}; // result dtype wrong
  EXPECT_THROW(run_program(p, {}, out), ValueError);
  p.leaves = {constant_leaf(DType::int64, 1, 0)};
  p.instrs = {instr(OpCode::sqrt, DType::int64, 0)}; // sqrt of integers
  EXPECT_THROW(run_program(p, {}, out), ValueError);
  p.leaves = {stored_leaf(DType::float64, 2, amap(0, {1}))};
  p.instrs.clear();
  EXPECT_THROW(run_program(p, {}, out), ValueError);
  p.leaves = {constant_leaf(DType::float64, 1, 0)};
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = ReduceOp::sum;
  p.sink.num_partials = 2;
  p.sink.map = amap(0, {1}); // entries 0..3 but only 2 partials
  EXPECT_THROW(run_program(p, {}, out), ValueError);
}

// ---- Reductions ---------------------------------------------------------------------------------

struct Expected {
  std::vector<std::vector<Value>> values;
  std::vector<std::vector<index_t>> indices;
};

/// Sum in long double, for float tolerances.
long double exact_sum(const std::vector<Value>& v) {
  long double s = 0;
  for (const Value& x : v)
    s += std::visit([](auto y) { return static_cast<long double>(y); }, x);
  return s;
}

double as_double(const Value& v) {
  return std::visit([](auto y) { return static_cast<double>(y); }, v);
}
std::int64_t as_int(const Value& v) {
  return std::visit(
      [](auto y) -> std::int64_t {
        if constexpr (std::is_floating_point_v<decltype(y)>)
          return 0;
        else
          return static_cast<std::int64_t>(y);
      },
      v);
}

void check_entry(ReduceOp op, DType t, const std::vector<Value>& vals,
                 const std::vector<index_t>& idx, const PartialWord* w, const std::string& where) {
  SCOPED_TRACE(where);
  const bool fl = is_floating(t);
  auto near = [](double got, long double want, long double scale) {
    return std::fabs(static_cast<long double>(got) - want) <= 1e-12L * (scale + 1e-300L);
  };
  long double abs_sum = 0;
  for (const Value& v : vals)
    abs_sum += std::fabs(as_double(v));
  switch (op) {
  case ReduceOp::sum:
  case ReduceOp::mean:
    if (fl || op == ReduceOp::mean) {
      EXPECT_TRUE(near(w[0].f, exact_sum(vals), abs_sum))
          << w[0].f << " vs " << (double)exact_sum(vals);
    } else {
      std::uint64_t s = 0;
      for (const Value& v : vals)
        s += static_cast<std::uint64_t>(as_int(v));
      EXPECT_EQ(w[0].i, static_cast<std::int64_t>(s));
    }
    return;
  case ReduceOp::exact_sum:
  case ReduceOp::exact_mean: {
    const double got = chunked::scalar::exact::to_double(&w[0].i);
    EXPECT_TRUE(near(got, exact_sum(vals), abs_sum)) << got << " vs " << (double)exact_sum(vals);
    return;
  }
  case ReduceOp::prod:
    if (fl) {
      long double pr = 1;
      for (const Value& v : vals)
        pr *= as_double(v);
      EXPECT_TRUE(near(w[0].f, pr, std::fabs(pr) * 100)) << w[0].f << " vs " << (double)pr;
    } else {
      std::uint64_t pr = 1;
      for (const Value& v : vals)
        pr *= static_cast<std::uint64_t>(as_int(v));
      EXPECT_EQ(w[0].i, static_cast<std::int64_t>(pr));
    }
    return;
  case ReduceOp::min:
  case ReduceOp::max: {
    const bool mx = op == ReduceOp::max;
    if (fl) {
      double m = mx ? -inf_v : inf_v;
      bool nan = false;
      for (const Value& v : vals) {
        const double d = as_double(v);
        nan = nan || std::isnan(d);
        m = mx ? std::max(m, d) : std::min(m, d);
      }
      if (nan)
        EXPECT_TRUE(std::isnan(w[0].f));
      else
        EXPECT_EQ(w[0].f, m);
    } else {
      std::int64_t m = mx ? i64_min : i64_max;
      for (const Value& v : vals)
        m = mx ? std::max(m, as_int(v)) : std::min(m, as_int(v));
      EXPECT_EQ(w[0].i, m);
    }
    return;
  }
  case ReduceOp::any:
  case ReduceOp::all: {
    bool r = op == ReduceOp::all;
    for (const Value& v : vals) {
      const bool nz = as_double(v) != 0 || std::isnan(as_double(v));
      r = op == ReduceOp::all ? r && nz : r || nz;
    }
    EXPECT_EQ(w[0].i, r ? 1 : 0);
    return;
  }
  case ReduceOp::var:
  case ReduceOp::std: {
    EXPECT_EQ(w[0].f, static_cast<double>(vals.size()));
    if (vals.empty())
      return;
    const long double mean = exact_sum(vals) / vals.size();
    long double m2 = 0;
    for (const Value& v : vals)
      m2 += (as_double(v) - mean) * (as_double(v) - mean);
    EXPECT_TRUE(near(w[1].f, mean, abs_sum / vals.size())) << w[1].f << " vs " << (double)mean;
    long double sq = 0;
    for (const Value& v : vals)
      sq += as_double(v) * as_double(v);
    EXPECT_TRUE(near(w[2].f, m2, sq)) << w[2].f << " vs " << (double)m2;
    return;
  }
  case ReduceOp::argmin:
  case ReduceOp::argmax: {
    const bool mx = op == ReduceOp::argmax;
    std::size_t best = 0;
    for (std::size_t k = 1; k < vals.size(); ++k) {
      const double a = as_double(vals[best]), b = as_double(vals[k]);
      bool take;
      if (fl && (std::isnan(a) || std::isnan(b)))
        take = std::isnan(b) && (!std::isnan(a) || idx[k] < idx[best]);
      else if (fl)
        take = mx ? (b > a || (b == a && idx[k] < idx[best]))
                  : (b < a || (b == a && idx[k] < idx[best]));
      else {
        const auto ai = as_int(vals[best]), bi = as_int(vals[k]);
        take = mx ? (bi > ai || (bi == ai && idx[k] < idx[best]))
                  : (bi < ai || (bi == ai && idx[k] < idx[best]));
      }
      if (take)
        best = k;
    }
    if (vals.empty()) {
      EXPECT_EQ(w[1].i, i64_max);
      return;
    }
    EXPECT_EQ(w[1].i, idx[best]);
    if (fl)
      EXPECT_TRUE(same_value(Value(w[0].f), Value(as_double(vals[best]))));
    else
      EXPECT_EQ(w[0].i, as_int(vals[best]));
    return;
  }
  }
}

/// Reduces a stored input over `mask` (bit k: axis k reduced) and checks every partial entry.
void check_reduce(ReduceOp op, DType t, const std::vector<index_t>& extent, std::uint32_t mask,
                  std::mt19937_64& rng) {
  BlockProgram p = box_program(extent);
  StoredInput a = random_stored(t, extent, rng);
  if (op == ReduceOp::prod && is_floating(t))
    for (index_t k = 0; k < a.buffer.size(); ++k)
      a.buffer.set(k, 0.75 + 0.5 * std::uniform_real_distribution<double>()(rng));
  // A few NaNs and ties for the floating cases.
  if (is_floating(t) && a.buffer.size() > 10 && (rng() & 1) && op != ReduceOp::sum &&
      op != ReduceOp::mean && op != ReduceOp::var && op != ReduceOp::std && op != ReduceOp::prod &&
      op != ReduceOp::exact_sum && op != ReduceOp::exact_mean)
    a.buffer.set(static_cast<index_t>(rng() % a.buffer.size()), nan_v);
  p.leaves = {stored_leaf(t, 0, a.map)};
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = op;
  p.sink.reduced_axes = mask;
  std::vector<index_t> kept, reduced;
  for (std::size_t k = 0; k < extent.size(); ++k)
    ((mask >> k) & 1 ? reduced : kept).push_back(extent[k]);
  const auto kept_strides = c_strides(kept), red_strides = c_strides(reduced);
  p.sink.map = AffineMap{};
  p.sink.index_map = AffineMap{};
  for (std::size_t k = 0, kk = 0, rk = 0; k < extent.size(); ++k) {
    if ((mask >> k) & 1)
      p.sink.index_map.coef[k] = red_strides[rk++];
    else
      p.sink.map.coef[k] = kept_strides[kk++];
  }
  p.sink.num_partials = box_size(kept);
  const int words = partial_layout(op, t).words;
  std::vector<PartialWord> out(static_cast<std::size_t>(p.sink.num_partials * words + 1));
  out.back().i = 0x77;
  const void* in[] = {a.buffer.data()};
  run_program(p, in, out.data());
  EXPECT_EQ(out.back().i, 0x77) << "wrote past the partials";

  std::vector<std::vector<Value>> vals(p.sink.num_partials);
  std::vector<std::vector<index_t>> idx(p.sink.num_partials);
  std::vector<const Buffer*> inputs = {&a.buffer};
  for_each_position(p, [&](const std::vector<index_t>& i) {
    const index_t e = p.sink.map.at(i.data(), p.ndim);
    vals[e].push_back(ref_result(p, i, inputs));
    idx[e].push_back(p.sink.index_map.at(i.data(), p.ndim));
  });
  for (index_t e = 0; e < p.sink.num_partials; ++e)
    check_entry(op, t, vals[e], idx[e], out.data() + e * words,
                std::string(reduce_op_name(op)) + " " + std::string(dtype_name(t)) + " mask " +
                    std::to_string(mask) + " entry " + std::to_string(e) + "\n" + p.describe());
}

TEST(CpuInterpreter, EveryReductionOverAllAndChosenAxes) {
  std::mt19937_64 rng(11);
  const ReduceOp ops[] = {
      ReduceOp::sum,    ReduceOp::prod,      ReduceOp::min,       ReduceOp::max, ReduceOp::any,
      ReduceOp::all,    ReduceOp::mean,      ReduceOp::var,       ReduceOp::std, ReduceOp::argmin,
      ReduceOp::argmax, ReduceOp::exact_sum, ReduceOp::exact_mean};
  const std::vector<std::vector<index_t>> boxes = {{},        {0},         {1},           {9},
                                                   {4099},    {3, 0},      {3, 700},      {700, 3},
                                                   {2, 3, 5}, {5, 1, 433}, {2, 3, 4, 171}};
  for (ReduceOp op : ops)
    for (DType t : all_dtypes) {
      if (op == ReduceOp::prod && is_integral(t))
        continue; // covered below with small values
      if ((op == ReduceOp::exact_sum || op == ReduceOp::exact_mean) && !is_floating(t))
        continue; // exact_sums plans them for floating values only
      for (const auto& extent : boxes) {
        const std::uint32_t full = (1u << extent.size()) - 1;
        for (std::uint32_t mask = 0; mask <= full; ++mask) {
          if (extent.size() == 4 && mask != full && mask != 1 && mask != 8 && mask != 6)
            continue;
          check_reduce(op, t, extent, mask, rng);
          if (::testing::Test::HasFailure())
            return;
        }
      }
    }
}

TEST(CpuInterpreter, IntegerProductsWrap) {
  BlockProgram p = box_program({70});
  Buffer x(DType::int64, 70);
  std::uint64_t want = 1;
  for (index_t k = 0; k < 70; ++k) {
    x.set(k, std::int64_t{3 + 2 * k});
    want *= static_cast<std::uint64_t>(3 + 2 * k);
  }
  p.leaves = {stored_leaf(DType::int64, 0, amap(0, {1}))};
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = ReduceOp::prod;
  p.sink.reduced_axes = 1;
  p.sink.map = amap(0, {0});
  p.sink.num_partials = 1;
  PartialWord w;
  const void* in[] = {x.data()};
  run_program(p, in, &w);
  EXPECT_EQ(w.i, static_cast<std::int64_t>(want));
}

TEST(CpuInterpreter, EmptyBoxesWriteIdentitiesOnly) {
  BlockProgram p = box_program({4, 0, 3});
  p.leaves = {stored_leaf(DType::float64, 0, amap(0, {1, 1, 1}))};
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = ReduceOp::var;
  p.sink.reduced_axes = 0b010;
  p.sink.map = amap(0, {3, 0, 1});
  p.sink.num_partials = 12;
  std::vector<PartialWord> out(36);
  for (auto& w : out)
    w.f = 9;
  const void* in[] = {nullptr};
  run_program(p, in, out.data());
  for (const auto& w : out)
    EXPECT_EQ(w.f, 0.0);
  p.sink.kind = Sink::Kind::store;
  run_program(p, in, nullptr);
}

TEST(CpuInterpreter, ArgminReportsTheIndexMapAndPrefersNanThenTheFirstTie) {
  BlockProgram p = box_program({5000});
  Buffer x(DType::float32, 5000);
  for (index_t k = 0; k < 5000; ++k)
    x.set(k, static_cast<float>(k % 100));
  p.leaves = {stored_leaf(DType::float32, 0, amap(4999, {-1}))}; // reversed
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = ReduceOp::argmin;
  p.sink.reduced_axes = 1;
  p.sink.num_partials = 1;
  p.sink.map = amap(0, {0});
  p.sink.index_map = amap(100000, {1});
  PartialWord w[2];
  const void* in[] = {x.data()};
  run_program(p, in, w);
  // Position i reads x[4999 - i]; zeros at x[4900] (i = 99) ... first in position order: i = 99.
  EXPECT_EQ(w[1].i, 100099);
  EXPECT_EQ(w[0].f, 0.0);
  x.set(10, nan_v);
  x.set(3000, nan_v);
  run_program(p, in, w);
  EXPECT_EQ(w[1].i, 100000 + 4999 - 3000);
  EXPECT_TRUE(std::isnan(w[0].f));
}

TEST(CpuInterpreter, FloatSumsAreAccurateAndIndependentOfRowShape) {
  // 1 + many tiny values: a naive running float sum would lose them.
  const index_t n = 3 * 4096;
  Buffer x(DType::float32, n);
  for (index_t k = 0; k < n; ++k)
    x.set(k, k == 0 ? 1e8f : 0.5f);
  auto sum_with = [&](std::vector<index_t> extent) {
    BlockProgram p = box_program(extent);
    p.leaves = {stored_leaf(DType::float32, 0, amap(0, c_strides(extent)))};
    p.sink.kind = Sink::Kind::reduce;
    p.sink.op = ReduceOp::sum;
    p.sink.reduced_axes = (1u << extent.size()) - 1;
    p.sink.map = AffineMap{};
    p.sink.num_partials = 1;
    PartialWord w;
    const void* in[] = {x.data()};
    run_program(p, in, &w);
    return w.f;
  };
  const double a = sum_with({n}), b = sum_with({3, 4096}), c = sum_with({12, 4, 256});
  EXPECT_EQ(a, 1e8 + 0.5 * (n - 1));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

// ---- Fast paths against the element-by-element fold ----------------------------------------

/// Equal bits, or both NaN (which NaN two meeting NaNs give is operand order, not semantics).
bool same_bits_or_nan(double a, double b) {
  if (a != a || b != b)
    return a != a && b != b;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// The four operations of the wide arithmetic loops, and one of them on two values.
constexpr OpCode arith_ops[] = {OpCode::add, OpCode::sub, OpCode::mul, OpCode::div};
template <class T> T apply(OpCode op, T x, T y) {
  return op == OpCode::add ? x + y : op == OpCode::sub ? x - y : op == OpCode::mul ? x * y : x / y;
}

/// Values with zeros of both signs, infinities, NaNs and ordinary numbers, by a seeded draw.
std::vector<double> awkward_values(index_t n, std::mt19937_64& rng, bool specials) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) {
    const auto k = rng() % 40;
    x = !specials || k > 5 ? std::normal_distribution<double>(0.5, 2.0)(rng)
        : k == 0           ? 0.0
        : k == 1           ? -0.0
        : k == 2           ? nan_v
        : k == 3           ? -nan_v
        : k == 4           ? inf_v
                           : -inf_v;
  }
  return v;
}

TEST(CpuInterpreter, KeptAxisReductionsEqualTheElementFoldBitForBit) {
  // Reducing axis 0 of a (rows, cols) box accumulates whole rows into contiguous entries; each
  // entry must see exactly the scalar fold of its column in row order.
  std::mt19937_64 rng(23);
  const ReduceOp ops[] = {ReduceOp::sum, ReduceOp::mean, ReduceOp::prod, ReduceOp::min,
                          ReduceOp::max, ReduceOp::var,  ReduceOp::any,  ReduceOp::all};
  // Eight rows and more also take var's several-rows-at-once loop: whole groups, leftover rows,
  // and non-finite values in some rows of a group.
  const std::vector<std::pair<index_t, index_t>> shapes = {
      {1, 1},    {1, 2049}, {2049, 2}, {3, 700},  {5, 2048},
      {7, 2047}, {300, 13}, {8, 64},   {37, 300}, {16, 4100}};
  for (ReduceOp op : ops)
    for (const auto& [rows, cols] : shapes)
      for (bool specials : {false, true}) {
        const std::vector<double> x = awkward_values(rows * cols, rng, specials);
        BlockProgram p = box_program({rows, cols});
        p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1}))};
        p.sink.kind = Sink::Kind::reduce;
        p.sink.op = op;
        p.sink.reduced_axes = 1;
        p.sink.map = amap(0, {0, 1});
        p.sink.num_partials = cols;
        const int words = partial_layout(op, DType::float64).words;
        std::vector<PartialWord> got(static_cast<std::size_t>(cols * words));
        std::vector<PartialWord> want(got.size());
        const void* in[] = {x.data()};
        run_program(p, in, got.data());
        cpu::init_partials(op, DType::float64, want.data(), cols);
        for (index_t r = 0; r < rows; ++r)
          for (index_t c = 0; c < cols; ++c) {
            PartialWord* e = want.data() + c * words;
            const double v = x[static_cast<std::size_t>(r * cols + c)];
            switch (op) {
            case ReduceOp::sum:
            case ReduceOp::mean:
              e->f += v;
              break;
            case ReduceOp::prod:
              e->f *= v;
              break;
            case ReduceOp::min:
              e->f = cpu::detail::nan_min(e->f, v);
              break;
            case ReduceOp::max:
              e->f = cpu::detail::nan_max(e->f, v);
              break;
            case ReduceOp::var:
              cpu::detail::merge_moments(e, 1.0, v, 0.0);
              break;
            case ReduceOp::any:
              e->i = e->i != 0 || v != 0;
              break;
            default:
              e->i = e->i != 0 && v != 0;
              break;
            }
          }
        for (std::size_t k = 0; k < got.size(); ++k) {
          const bool ok = partial_layout(op, DType::float64).floating
                              ? same_bits_or_nan(got[k].f, want[k].f)
                              : got[k].i == want[k].i;
          ASSERT_TRUE(ok) << reduce_op_name(op) << " " << rows << "x" << cols << " word " << k
                          << ": " << got[k].f << " vs " << want[k].f;
        }
      }
}

TEST(CpuInterpreter, ColumnMomentsOfRowGroupsEqualTheElementFoldBitForBit) {
  // var over axis 0 of a stored block folds eight rows at a time while every value is finite; a
  // rare infinity or NaN (or an overflow) sends the entries from its block on to the one-row
  // loops, within a group and from then on; the entries of a row past its last whole block take
  // the eight rows a vector at a time, and the last few (fewer than a vector) together. Widths:
  // blocks and a few entries (4100), blocks and vectors (75), vectors and a tail (10), a tail
  // alone (3). Each entry must still see the scalar fold of its column in order.
  std::mt19937_64 rng(31);
  const index_t rows = 29;
  for (const index_t cols : {4100, 75, 10, 3})
    for (const auto& specials : std::vector<std::vector<std::tuple<index_t, index_t, double>>>{
             // (row, column counted from the right when negative, value)
             {},
             {{11, 1000, nan_v}},
             {{3, 70, inf_v}, {20, 3000, -inf_v}},
             {{0, 0, nan_v}},
             {{28, -1, inf_v}},
             {{5, -2, nan_v}, {13, -3, -inf_v}},
             // finite values whose squared deviation overflows: m2 becomes infinite, and the
             // blocks holding them take the one-row loops though nothing was infinite before
             {{9, 200, 1e300}, {10, 200, -1e300}, {2, -1, 1e300}}}) {
      std::vector<double> x = awkward_values(rows * cols, rng, false);
      for (const auto& [r, c, v] : specials)
        x[static_cast<std::size_t>(r * cols + (c < 0 ? cols + c : c % cols))] = v;
      BlockProgram p = box_program({rows, cols});
      p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1}))};
      p.sink.kind = Sink::Kind::reduce;
      p.sink.op = ReduceOp::var;
      p.sink.reduced_axes = 1;
      p.sink.map = amap(0, {0, 1});
      p.sink.num_partials = cols;
      std::vector<PartialWord> got(static_cast<std::size_t>(cols * 3)), want(got.size());
      const void* in[] = {x.data()};
      run_program(p, in, got.data());
      cpu::init_partials(ReduceOp::var, DType::float64, want.data(), cols);
      for (index_t r = 0; r < rows; ++r)
        for (index_t c = 0; c < cols; ++c)
          cpu::detail::merge_moments(want.data() + c * 3, 1.0,
                                     x[static_cast<std::size_t>(r * cols + c)], 0.0);
      for (std::size_t k = 0; k < got.size(); ++k)
        ASSERT_TRUE(same_bits_or_nan(got[k].f, want[k].f))
            << cols << " columns, " << specials.size() << " specials, word " << k << ": "
            << got[k].f << " vs " << want[k].f;
    }
}

TEST(CpuInterpreter, KeptAxisSumsOfAnArithmeticResultEqualTheElementFoldBitForBit) {
  // sum/mean(Axes{0}) of a op b (+, -, *, /) with x's three leaves: the last instruction folds
  // straight into the sum rows, and must give each entry the fold of its rounded values in row
  // order, as a separate instruction and sum would. One operand is itself an instruction.
  std::mt19937_64 rng(29);
  const std::vector<std::pair<index_t, index_t>> shapes = {{1, 1},   {1, 2049}, {2049, 2},
                                                           {3, 700}, {7, 2047}, {300, 13}};
  for (ReduceOp sink : {ReduceOp::sum, ReduceOp::mean})
    for (OpCode op : arith_ops)
      for (const auto& [rows, cols] : shapes)
        for (bool specials : {false, true}) {
          const std::vector<double> a = awkward_values(rows * cols, rng, specials);
          const std::vector<double> b = awkward_values(rows * cols, rng, specials);
          const std::vector<double> c = awkward_values(cols, rng, specials);
          BlockProgram p = box_program({rows, cols});
          p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1})),
                      stored_leaf(DType::float64, 1, amap(0, {cols, 1})),
                      stored_leaf(DType::float64, 2, amap(0, {0, 1}))}; // c broadcast over rows
          p.instrs = {{OpCode::mul, DType::float64, {0, 1, -1}}, {op, DType::float64, {3, 2, -1}}};
          p.sink.kind = Sink::Kind::reduce;
          p.sink.op = sink;
          p.sink.reduced_axes = 1;
          p.sink.map = amap(0, {0, 1});
          p.sink.num_partials = cols;
          std::vector<PartialWord> got(static_cast<std::size_t>(cols));
          std::vector<PartialWord> want(got.size());
          const void* in[] = {a.data(), b.data(), c.data()};
          run_program(p, in, got.data());
          cpu::init_partials(sink, DType::float64, want.data(), cols);
          for (index_t r = 0; r < rows; ++r)
            for (index_t k = 0; k < cols; ++k) {
              const auto j = static_cast<std::size_t>(r * cols + k);
              const double ab = a[j] * b[j], ck = c[static_cast<std::size_t>(k)];
              want[static_cast<std::size_t>(k)].f += apply(op, ab, ck);
            }
          for (std::size_t k = 0; k < got.size(); ++k)
            ASSERT_TRUE(same_bits_or_nan(got[k].f, want[k].f))
                << opcode_name(op) << " " << rows << "x" << cols << " entry " << k << ": "
                << got[k].f << " vs " << want[k].f;
        }
}

TEST(CpuInterpreter, ArithmeticPairsEqualTheSeparateOperationsBitForBit) {
  // (a op1 b) op2 c and c op2 (a op1 b) for every pair of +, -, *, /, stored into a strided and
  // a contiguous output and reduced, with a broadcast c: the wide loops run each such pair as one
  // pass, whose values must be the two separately rounded operations'. An intermediate read
  // twice, or by two instructions, stays a value of its own.
  std::mt19937_64 rng(31);
  const index_t rows = 5, cols = 2051;
  const std::vector<double> a = awkward_values(rows * cols, rng, true);
  const std::vector<double> b = awkward_values(rows * cols, rng, true);
  const std::vector<double> c = awkward_values(cols, rng, true);
  const void* in[] = {a.data(), b.data(), c.data()};
  for (OpCode op1 : arith_ops)
    for (OpCode op2 : arith_ops)
      for (bool left : {true, false}) {
        BlockProgram p = box_program({rows, cols});
        p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1})),
                    stored_leaf(DType::float64, 1, amap(0, {cols, 1})),
                    stored_leaf(DType::float64, 2, amap(0, {0, 1}))};
        p.instrs = {{op1, DType::float64, {0, 1, -1}},
                    {op2,
                     DType::float64,
                     {static_cast<std::int16_t>(left ? 3 : 2),
                      static_cast<std::int16_t>(left ? 2 : 3), -1}}};
        std::vector<double> want(static_cast<std::size_t>(rows * cols));
        for (index_t r = 0; r < rows; ++r)
          for (index_t k = 0; k < cols; ++k) {
            const auto j = static_cast<std::size_t>(r * cols + k);
            const double t = apply(op1, a[j], b[j]), ck = c[static_cast<std::size_t>(k)];
            want[j] = left ? apply(op2, t, ck) : apply(op2, ck, t);
          }
        for (bool strided : {false, true}) {
          p.sink.map = strided ? amap(rows * cols - 1, {-cols, -1}) : amap(0, {cols, 1});
          std::vector<double> got(want.size());
          run_program(p, in, got.data());
          for (std::size_t j = 0; j < got.size(); ++j) {
            const double w = strided ? want[want.size() - 1 - j] : want[j];
            ASSERT_TRUE(same_bits_or_nan(got[j], w))
                << opcode_name(op1) << ", " << opcode_name(op2) << (left ? " left" : " right")
                << (strided ? " strided" : "") << " element " << j << ": " << got[j] << " vs " << w;
          }
        }
      }
  // t = a - b read twice (t * t), and t read by two instructions ((t + c) * t): no pair.
  BlockProgram p = box_program({rows, cols});
  p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1})),
              stored_leaf(DType::float64, 1, amap(0, {cols, 1})),
              stored_leaf(DType::float64, 2, amap(0, {0, 1}))};
  p.instrs = {{OpCode::sub, DType::float64, {0, 1, -1}},
              {OpCode::mul, DType::float64, {3, 3, -1}},
              {OpCode::add, DType::float64, {4, 2, -1}},
              {OpCode::mul, DType::float64, {5, 3, -1}}};
  p.sink.map = amap(0, {cols, 1});
  std::vector<double> got(static_cast<std::size_t>(rows * cols));
  run_program(p, in, got.data());
  for (index_t r = 0; r < rows; ++r)
    for (index_t k = 0; k < cols; ++k) {
      const auto j = static_cast<std::size_t>(r * cols + k);
      const double t = a[j] - b[j];
      ASSERT_TRUE(same_bits_or_nan(got[j], (t * t + c[static_cast<std::size_t>(k)]) * t)) << j;
    }
}

TEST(CpuInterpreter, ArithmeticWithConstantOperandsEqualsTheElementOperationsBitForBit) {
  // The wide add/sub/mul/div loops read a constant operand as one value held in a register:
  // every choice of constant operands, in single float64 and float32 operations and in fused
  // float64 pairs (a op1 b) op2 c and c op2 (a op1 b), into tile-sized outputs and into outputs
  // large enough to be streamed, against the operations element by element. Constants include
  // a negative zero, a subnormal and an infinity.
  std::mt19937_64 rng(37);
  const double constants[] = {1.5, -0.0, 4e-310, -std::numeric_limits<double>::infinity(), 3.25};
  for (const bool large : {false, true}) {
    // Large: 4 MiB and more of float64 output, which the pair and single loops stream.
    const index_t rows = large ? 129 : 3, cols = large ? 4099 : 2051;
    const auto n = static_cast<std::size_t>(rows * cols);
    std::vector<std::vector<double>> data;
    for (int k = 0; k < 3; ++k)
      data.push_back(awkward_values(rows * cols, rng, true));
    const void* in[] = {data[0].data(), data[1].data(), data[2].data()};
    std::vector<double> got(n);
    for (unsigned scalars = 0; scalars < 8; ++scalars) {
      const double value[] = {constants[scalars % 5], constants[(scalars + 1) % 5],
                              constants[(scalars + 3) % 5]};
      auto operand = [&](int k, std::size_t j) {
        return (scalars >> k) & 1u ? value[k] : data[static_cast<std::size_t>(k)][j];
      };
      std::vector<Leaf> leaves;
      for (int k = 0; k < 3; ++k)
        leaves.push_back((scalars >> k) & 1u ? constant_leaf(DType::float64, value[k], 0)
                                             : stored_leaf(DType::float64, k, amap(0, {cols, 1})));
      for (const OpCode op1 : arith_ops) {
        // A single operation on operands 0 and 1.
        BlockProgram single = box_program({rows, cols});
        single.leaves = {leaves[0], leaves[1]};
        single.instrs = {instr(op1, DType::float64, 0, 1)};
        single.sink.map = amap(0, {cols, 1});
        run_program(single, in, got.data());
        for (std::size_t j = 0; j < n; ++j)
          ASSERT_TRUE(same_bits_or_nan(got[j], apply(op1, operand(0, j), operand(1, j))))
              << opcode_name(op1) << " scalars " << scalars << " element " << j;
        for (const OpCode op2 : arith_ops)
          for (const bool left : {true, false}) {
            if (large && op2 != arith_ops[(static_cast<int>(op1) + 1) % 4])
              continue; // large outputs: four of the sixteen pairs of operations
            BlockProgram p = box_program({rows, cols});
            p.leaves = leaves;
            p.instrs = {instr(op1, DType::float64, 0, 1),
                        left ? instr(op2, DType::float64, 3, 2) : instr(op2, DType::float64, 2, 3)};
            p.sink.map = amap(0, {cols, 1});
            run_program(p, in, got.data());
            for (std::size_t j = 0; j < n; ++j) {
              const double t = apply(op1, operand(0, j), operand(1, j));
              const double want =
                  left ? apply(op2, t, operand(2, j)) : apply(op2, operand(2, j), t);
              ASSERT_TRUE(same_bits_or_nan(got[j], want))
                  << opcode_name(op1) << ", " << opcode_name(op2) << (left ? " left" : " right")
                  << " scalars " << scalars << " element " << j << ": " << got[j] << " vs " << want;
            }
          }
      }
      if (large || scalars >= 4)
        continue;
      // float32, single operations.
      std::vector<std::vector<float>> narrow(2, std::vector<float>(n));
      for (int k = 0; k < 2; ++k)
        for (std::size_t j = 0; j < n; ++j)
          narrow[static_cast<std::size_t>(k)][j] =
              static_cast<float>(data[static_cast<std::size_t>(k)][j]);
      const void* in32[] = {narrow[0].data(), narrow[1].data()};
      std::vector<float> got32(n);
      for (const OpCode op : arith_ops) {
        BlockProgram p = box_program({rows, cols});
        for (int k = 0; k < 2; ++k)
          p.leaves.push_back((scalars >> k) & 1u
                                 ? constant_leaf(DType::float32, value[k], 0)
                                 : stored_leaf(DType::float32, k, amap(0, {cols, 1})));
        p.instrs = {instr(op, DType::float32, 0, 1)};
        p.sink.map = amap(0, {cols, 1});
        run_program(p, in32, got32.data());
        for (std::size_t j = 0; j < n; ++j) {
          auto at = [&](int k) {
            return (scalars >> k) & 1u ? static_cast<float>(value[k])
                                       : narrow[static_cast<std::size_t>(k)][j];
          };
          const float want = apply(op, at(0), at(1));
          ASSERT_TRUE(same_bits_or_nan(got32[j], want))
              << "float32 " << opcode_name(op) << " scalars " << scalars << " element " << j;
        }
      }
    }
  }
}

TEST(CpuInterpreter, MinMaxOverAllAxesKeepTheFirstNanAndTheLastOfEqualZeros) {
  // The lane-parallel extreme must give what the scalar fold gives: the first NaN's bits, and
  // among zeros of both signs the sign of the last one in box order. Patterns: normal values;
  // zeros of both signs; small integers (zero the extreme) with 2 or 3 NaNs; normal values with
  // infinities of both signs, without and with a NaN.
  std::mt19937_64 rng(29);
  for (index_t n : {1, 7, 8, 9, 31, 32, 33, 2047, 2048, 2049, 5000})
    for (int pattern = 0; pattern < 6; ++pattern)
      for (bool mx : {false, true}) {
        std::vector<double> x(static_cast<std::size_t>(n));
        for (double& v : x)
          v = pattern == 0 || pattern >= 4 ? std::normal_distribution<double>()(rng)
              : pattern == 1               ? ((rng() & 1) ? 0.0 : -0.0)
                                           : (mx ? -1.0 : 1.0) * static_cast<double>(rng() % 3);
        if (pattern >= 4)
          for (int k = 0; k < 3; ++k)
            x[rng() % x.size()] = (rng() & 1) ? inf_v : -inf_v;
        if (pattern == 2 || pattern == 3 || pattern == 5)
          for (int k = 0; k < (pattern == 5 ? 1 : pattern); ++k) {
            double q = nan_v;
            std::uint64_t bits;
            std::memcpy(&bits, &q, sizeof q);
            bits |= rng() % 1000 + 1; // a distinct payload per NaN
            std::memcpy(&q, &bits, sizeof q);
            x[rng() % x.size()] = q;
          }
        BlockProgram p = box_program({n});
        p.leaves = {stored_leaf(DType::float64, 0, amap(0, {1}))};
        p.sink.kind = Sink::Kind::reduce;
        p.sink.op = mx ? ReduceOp::max : ReduceOp::min;
        p.sink.reduced_axes = 1;
        p.sink.map = amap(0, {0});
        p.sink.num_partials = 1;
        PartialWord got;
        const void* in[] = {x.data()};
        run_program(p, in, &got);
        double want = mx ? -inf_v : inf_v;
        for (double v : x)
          want = mx ? cpu::detail::nan_max(want, v) : cpu::detail::nan_min(want, v);
        EXPECT_EQ(std::memcmp(&got.f, &want, sizeof want), 0)
            << n << " pattern " << pattern << (mx ? " max " : " min ") << got.f << " vs " << want;
      }
}

TEST(CpuInterpreter, ContiguousStoresWriteTheOutputDirectlyAndOnlyTheirElements) {
  // out[r, c] = x[r, c] * y[c] - x[r, c] into every other row of a wider output: tiles that are
  // one run write the output from the instruction loop, tiles that cut rows go through the tile
  // buffer; neither may touch the rows or columns the map skips.
  for (const auto& [rows, cols] :
       std::vector<std::pair<index_t, index_t>>{{1, 5000}, {3, 2048}, {5, 1000}, {2, 4097}}) {
    std::vector<double> x(static_cast<std::size_t>(rows * cols)), y(static_cast<std::size_t>(cols));
    for (std::size_t k = 0; k < x.size(); ++k)
      x[k] = 0.25 * static_cast<double>(k % 97) - 3.0;
    for (std::size_t k = 0; k < y.size(); ++k)
      y[k] = 1.0 + 0.125 * static_cast<double>(k % 13);
    BlockProgram p = box_program({rows, cols});
    p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1})),
                stored_leaf(DType::float64, 1, amap(0, {0, 1}))};
    p.instrs = {instr(OpCode::mul, DType::float64, 0, 1), instr(OpCode::sub, DType::float64, 2, 0)};
    const index_t pitch = cols + 3;
    p.sink.map = amap(1, {2 * pitch, 1});
    std::vector<double> out(static_cast<std::size_t>(2 * rows * pitch), -7.0);
    const void* in[] = {x.data(), y.data()};
    run_program(p, in, out.data());
    for (index_t k = 0; k < static_cast<index_t>(out.size()); ++k) {
      const index_t r = k / (2 * pitch), c = k % (2 * pitch) - 1;
      double want = -7.0;
      if (c >= 0 && c < cols) {
        const double xv = x[static_cast<std::size_t>(r * cols + c)];
        want = xv * y[static_cast<std::size_t>(c)] - xv;
      }
      ASSERT_EQ(out[static_cast<std::size_t>(k)], want) << rows << "x" << cols << " at " << k;
    }
  }
}

TEST(CpuInterpreter, StridedCopiesReadAndWriteEveryLayout) {
  // Pure copy programs through reversed, every-other and broadcast leaves into reversed or
  // stretched outputs, with tiles of one element and tiles that cut rows.
  for (const auto& [rows, cols] :
       std::vector<std::pair<index_t, index_t>>{{1, 1}, {1, 5000}, {3, 1023}, {2049, 1}, {4, 2048}})
    for (index_t lstep : {1, -1, 2, 0, 3})
      for (index_t sstep : {1, -1, 2}) {
        const index_t span = std::max<index_t>(lstep < 0 ? -lstep : lstep, 1) * cols;
        std::vector<double> x(static_cast<std::size_t>(rows * span));
        for (std::size_t k = 0; k < x.size(); ++k)
          x[k] = static_cast<double>(k) + 0.5;
        BlockProgram p = box_program({rows, cols});
        const index_t lbase = lstep < 0 ? -lstep * (cols - 1) : 0;
        p.leaves = {stored_leaf(DType::float64, 0, amap(lbase, {span, lstep}))};
        const index_t ospan = (sstep < 0 ? -sstep : sstep) * cols;
        p.sink.map = amap(sstep < 0 ? -sstep * (cols - 1) : 0, {ospan, sstep});
        std::vector<double> out(static_cast<std::size_t>(rows * ospan), -1.0);
        const void* in[] = {x.data()};
        run_program(p, in, out.data());
        for (index_t r = 0; r < rows; ++r)
          for (index_t c = 0; c < cols; ++c) {
            const index_t i[2] = {r, c};
            ASSERT_EQ(out[static_cast<std::size_t>(p.sink.map.at(i, 2))],
                      x[static_cast<std::size_t>(p.leaves[0].map.at(i, 2))])
                << rows << "x" << cols << " leaf step " << lstep << " store step " << sstep;
          }
      }
}

TEST(CpuInterpreter, LargeReversedAndEveryOtherCopiesWriteExactlyTheirElements) {
  // Copies of x[:, ::-1] and x[:, ::2] into blocks of 4 MiB and more go from the input straight
  // to the output by whole vectors: rows that start anywhere in a line, of lengths that are no
  // multiple of a vector, next to cells that must keep their value.
  const index_t cols = 1027, rows = (index_t{5} << 20) / (8 * cols) + 1; // over 5 MiB out
  for (const index_t step : {-1, 2})
    for (const index_t shift : {index_t{0}, index_t{1}, index_t{3}}) {
      const index_t span = step == 2 ? 2 * cols : cols;
      std::vector<double> x(static_cast<std::size_t>(rows * span));
      for (std::size_t k = 0; k < x.size(); ++k)
        x[k] = static_cast<double>(k) + 0.25;
      BlockProgram p = box_program({rows, cols});
      p.leaves = {stored_leaf(DType::float64, 0, amap(step < 0 ? cols - 1 : 0, {span, step}))};
      const index_t pitch = cols + 3;
      p.sink.map = amap(shift, {pitch, 1});
      std::vector<double> out(static_cast<std::size_t>(rows * pitch + shift + 8), -7.0);
      const void* in[] = {x.data()};
      run_program(p, in, out.data());
      for (index_t r = 0; r < rows; ++r)
        for (index_t c = -shift; c < pitch - shift; ++c) {
          const double got = out[static_cast<std::size_t>(shift + r * pitch + c)];
          const double want =
              c < 0 || c >= cols
                  ? -7.0
                  : x[static_cast<std::size_t>(r * span + (step < 0 ? cols - 1 - c : 2 * c))];
          ASSERT_EQ(got, want) << "step " << step << " shift " << shift << " row " << r
                               << " column " << c;
        }
    }
}

TEST(CpuInterpreter, LargeStoresBypassingTheCachesWriteExactlyTheirElements) {
  // Blocks of 4 MiB and more leave through non-temporal stores, which write whole aligned lines
  // and leave the ragged ends of each run to ordinary stores: outputs of 1, 4 and 8-byte
  // elements, rows whose length is no multiple of a line and output rows that start anywhere in
  // one, next to cells that must keep their value.
  for (const DType t : {DType::bool_, DType::int32, DType::float64}) {
    SCOPED_TRACE(static_cast<int>(t));
    const index_t size = static_cast<index_t>(dtype_size(t));
    const index_t cols = 4099, rows = (index_t{5} << 20) / (size * cols) + 1; // over 5 MiB
    for (const index_t shift : {index_t{0}, index_t{1}, index_t{3}}) {
      std::vector<double> x(static_cast<std::size_t>(cols));
      for (std::size_t k = 0; k < x.size(); ++k)
        x[k] = static_cast<double>(k % 7) - 2.0;
      BlockProgram p = box_program({rows, cols});
      // out[r, c] = cast(x[c] * (r + 1)): the leaf repeats its row, the product differs by row.
      Leaf row;
      row.kind = LeafKind::arange; // r + 1 at row r
      row.dtype = DType::float64;
      row.a = {1.0, 0};
      row.b = {1.0, 0};
      row.map = amap(0, {1, 0});
      p.leaves = {stored_leaf(DType::float64, 0, amap(0, {0, 1})), row};
      p.instrs = {instr(OpCode::mul, DType::float64, 0, 1), instr(OpCode::cast, t, 2)};
      const index_t pitch = cols + 5;
      p.sink.map = amap(shift, {pitch, 1});
      const std::size_t bytes = static_cast<std::size_t>((rows * pitch + shift) * size);
      std::vector<unsigned char> out(bytes + 64, 0xab);
      const void* in[] = {x.data()};
      run_program(p, in, out.data());
      for (index_t r = 0; r < rows; ++r)
        for (index_t c = -shift; c < pitch - shift; ++c) {
          const unsigned char* cell = out.data() + (shift + r * pitch + c) * size;
          if (c < 0 || c >= cols) {
            for (index_t b = 0; b < size; ++b)
              ASSERT_EQ(cell[b], 0xab) << "row " << r << " column " << c << " was written";
            continue;
          }
          const double v = x[static_cast<std::size_t>(c)] * static_cast<double>(r + 1);
          if (t == DType::float64) {
            double got;
            std::memcpy(&got, cell, 8);
            ASSERT_EQ(got, v) << r << ", " << c;
          } else if (t == DType::int32) {
            std::int32_t got;
            std::memcpy(&got, cell, 4);
            ASSERT_EQ(got, static_cast<std::int32_t>(v)) << r << ", " << c;
          } else {
            ASSERT_EQ(cell[0], v != 0.0 ? 1 : 0) << r << ", " << c;
          }
        }
      for (std::size_t b = bytes; b < out.size(); ++b)
        ASSERT_EQ(out[b], 0xab) << "written past the output";
    }
  }
}

TEST(CpuInterpreter, LargeArithmeticStoresStreamTheirResultsExactly) {
  // The last float64 add/sub/mul/div, or a fused pair of them, of a block of 4 MiB and more
  // writes the output itself with non-temporal stores where a tile is one run: rows longer than
  // a tile whose output starts anywhere in a line, with cells around them that must keep their
  // value, and the same bits as the operations one by one.
  const index_t cols = 4099, rows = (index_t{5} << 20) / (8 * cols) + 1;
  std::vector<double> x(static_cast<std::size_t>(cols)), y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    x[k] = static_cast<double>(k % 7) - 2.5 + 1e-3 * static_cast<double>(k);
    y[k] = 0.75 + static_cast<double>(k % 5);
  }
  Leaf row; // r + 1 at row r
  row.kind = LeafKind::arange;
  row.dtype = DType::float64;
  row.a = {1.0, 0};
  row.b = {1.0, 0};
  row.map = amap(0, {1, 0});
  for (const bool pair : {false, true})
    for (const index_t shift : {index_t{0}, index_t{1}, index_t{3}}) {
      SCOPED_TRACE(std::string(pair ? "pair" : "single") + " shift " + std::to_string(shift));
      BlockProgram p = box_program({rows, cols});
      p.leaves = {stored_leaf(DType::float64, 0, amap(0, {0, 1})), row,
                  stored_leaf(DType::float64, 1, amap(0, {0, 1}))};
      if (pair) // (x - (r + 1)) / y
        p.instrs = {instr(OpCode::sub, DType::float64, 0, 1),
                    instr(OpCode::div, DType::float64, 3, 2)};
      else // x / (r + 1)
        p.instrs = {instr(OpCode::div, DType::float64, 0, 1)};
      const index_t pitch = cols + 5;
      p.sink.map = amap(shift, {pitch, 1});
      const std::size_t n = static_cast<std::size_t>(rows * pitch + shift);
      std::vector<double> out(n + 8, -7.0);
      const void* in[] = {x.data(), y.data()};
      run_program(p, in, out.data());
      for (index_t r = 0; r < rows; ++r)
        for (index_t c = -shift; c < pitch - shift; ++c) {
          const double got = out[static_cast<std::size_t>(shift + r * pitch + c)];
          if (c < 0 || c >= cols) {
            ASSERT_EQ(got, -7.0) << "row " << r << " column " << c << " was written";
            continue;
          }
          const double xc = x[static_cast<std::size_t>(c)], rr = static_cast<double>(r + 1);
          const double want = pair ? (xc - rr) / y[static_cast<std::size_t>(c)] : xc / rr;
          ASSERT_TRUE(same_bits_or_nan(got, want))
              << r << ", " << c << ": " << got << " vs " << want;
        }
      for (std::size_t k = n; k < out.size(); ++k)
        ASSERT_EQ(out[k], -7.0) << "written past the output";
    }
}

// ---- Text forms ------------------------------------------------------------------------------

TEST(BlockProgramText, StructureKeyIgnoresConstantsMapsAndExtents) {
  BlockProgram p = box_program({3, 4});
  p.leaves = {stored_leaf(DType::float64, 0, amap(0, {4, 1})), constant_leaf(DType::float64, 1, 0)};
  p.instrs = {instr(OpCode::add, DType::float64, 0, 1)};
  BlockProgram q = p;
  q.extent = {5, 6};
  q.leaves[0].map = amap(7, {-1, 2});
  q.leaves[1].a.f = 2;
  q.sink.map = amap(3, {1, 5});
  EXPECT_EQ(p.structure_key(), q.structure_key());
  EXPECT_NE(p.describe(), q.describe());
  BlockProgram r = p;
  r.instrs[0].op = OpCode::mul;
  EXPECT_NE(p.structure_key(), r.structure_key());
  r = p;
  r.sink.kind = Sink::Kind::reduce;
  EXPECT_NE(p.structure_key(), r.structure_key());
  EXPECT_NE(p.describe().find("add float64 (v0, v1)"), std::string::npos) << p.describe();
  EXPECT_EQ(opcode_name(OpCode::bit_xor), "bit_xor");
  EXPECT_EQ(reduce_op_name(ReduceOp::argmax), "argmax");
}

} // namespace
