// SPDX-License-Identifier: Apache-2.0
// What the CPU interpreter's tests share: programs built by hand, values of any dtype, and a
// naive per-element reference of every leaf and operation that stores are checked against.
#pragma once

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

namespace chunked::test::interp {

using namespace chunked::plan;
using chunked::cpu::run_program;

inline constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
inline constexpr double inf_v = std::numeric_limits<double>::infinity();
inline constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int32_t i32_min = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int32_t i32_max = std::numeric_limits<std::int32_t>::max();

inline constexpr DType all_dtypes[] = {DType::bool_, DType::int32, DType::int64, DType::float32,
                                       DType::float64};

// ---- Building programs
// ---------------------------------------------------------------------------

inline AffineMap amap(index_t base, std::vector<index_t> coef) {
  AffineMap m;
  m.base = base;
  for (std::size_t k = 0; k < coef.size(); ++k)
    m.coef[k] = coef[k];
  return m;
}

inline std::vector<index_t> c_strides(const std::vector<index_t>& extent) {
  std::vector<index_t> s(extent.size(), 1);
  for (int k = static_cast<int>(extent.size()) - 2; k >= 0; --k)
    s[k] = s[k + 1] * extent[k + 1];
  return s;
}

inline index_t box_size(const std::vector<index_t>& extent) {
  index_t n = 1;
  for (index_t e : extent)
    n *= e;
  return n;
}

inline BlockProgram box_program(const std::vector<index_t>& extent) {
  BlockProgram p;
  p.ndim = static_cast<int>(extent.size());
  for (std::size_t k = 0; k < extent.size(); ++k)
    p.extent[k] = extent[k];
  p.sink.kind = Sink::Kind::store;
  p.sink.map = amap(0, c_strides(extent));
  return p;
}

inline Leaf stored_leaf(DType t, int input, AffineMap m) {
  Leaf l;
  l.kind = LeafKind::stored;
  l.dtype = t;
  l.input = input;
  l.map = m;
  return l;
}

inline Leaf constant_leaf(DType t, double f, std::int64_t i) {
  Leaf l;
  l.kind = LeafKind::constant;
  l.dtype = t;
  l.a = {f, i};
  return l;
}

inline Instr instr(OpCode op, DType t, std::int16_t a, std::int16_t b = -1, std::int16_t c = -1) {
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
inline bool same_value(const Value& a, const Value& b) {
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

inline std::string show(const Value& v) {
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

inline Value ref_cast(DType to, const Value& v) {
  return std::visit(
      [&](auto x) {
        return visit_dtype(to,
                           [&](auto tag) -> Value { return cpu::cast_value<decltype(tag)>(x); });
      },
      v);
}

inline Value ref_instr(const Instr& in, const std::vector<Value>& args) {
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

inline Value ref_leaf(const Leaf& leaf, const std::vector<index_t>& i, int ndim,
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

inline Value ref_result(const BlockProgram& p, const std::vector<index_t>& i,
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

inline std::vector<const void*> pointers(const std::vector<const Buffer*>& inputs) {
  std::vector<const void*> r;
  for (const Buffer* b : inputs)
    r.push_back(b->data());
  return r;
}

/// Runs a store program into a buffer of `out_size` elements prefilled with a sentinel and checks
/// every written element against the reference and every other element untouched.
inline void check_store(const BlockProgram& p, const std::vector<const Buffer*>& inputs,
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

/// Equal bits, or both NaN (which NaN two meeting NaNs give is operand order, not semantics).
inline bool same_bits_or_nan(double a, double b) {
  if (a != a || b != b)
    return a != a && b != b;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// ---- Edge values per dtype --------------------------------------------------------------------

inline std::vector<Value> edge_values(DType t) {
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

inline constexpr OpCode all_opcodes[] = {
    OpCode::neg,     OpCode::abs,     OpCode::sqrt,     OpCode::exp,     OpCode::log,
    OpCode::log1p,   OpCode::expm1,   OpCode::sin,      OpCode::cos,     OpCode::tan,
    OpCode::tanh,    OpCode::isnan,   OpCode::isfinite, OpCode::bit_not, OpCode::add,
    OpCode::sub,     OpCode::mul,     OpCode::div,      OpCode::mod,     OpCode::pow,
    OpCode::minimum, OpCode::maximum, OpCode::eq,       OpCode::ne,      OpCode::lt,
    OpCode::le,      OpCode::gt,      OpCode::ge,       OpCode::bit_and, OpCode::bit_or,
    OpCode::bit_xor};

/// A stored leaf over a fresh buffer that `map` stays inside, with a random affine map.
struct StoredInput {
  Buffer buffer;
  AffineMap map;
};

inline StoredInput random_stored(DType t, const std::vector<index_t>& extent,
                                 std::mt19937_64& rng) {
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

} // namespace chunked::test::interp
