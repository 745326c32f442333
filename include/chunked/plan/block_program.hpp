// SPDX-License-Identifier: Apache-2.0
// BlockProgram: the unit of work every backend executes — leaves read through affine index maps,
// a small SSA list of elementwise instructions, and a sink that stores or reduces the result.
#pragma once

#include <chunked/core/dtype.hpp>
#include <chunked/core/types.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace chunked::plan {

/// Highest rank of a program's iteration box (and so of any array chunked computes).
inline constexpr int max_ndim = 8;
/// Most instructions one program may hold; the planner stores an intermediate past this cap so
/// that generated kernels stay small enough to compile quickly and keep registers in check.
inline constexpr int max_program_instrs = 48;
/// Most leaves one program may hold: each is a slot of a generated kernel's parameter block,
/// which stays within the 4 KiB that every CUDA launch accepts. Equal constants share a leaf.
inline constexpr int max_program_leaves = 24;

/// An index that is affine in the position i = (i_0 .. i_{ndim-1}) inside the iteration box:
/// `base + sum_k coef[k] * i_k`. Strides may be negative (reversed slices) or zero (broadcasting).
struct AffineMap {
  index_t base = 0;
  std::array<index_t, max_ndim> coef{};

  index_t at(const index_t* i, int ndim) const {
    index_t r = base;
    for (int k = 0; k < ndim; ++k)
      r += coef[k] * i[k];
    return r;
  }
  friend bool operator==(const AffineMap&, const AffineMap&) = default;
};

/// A scalar parameter: floating values live in f, integer and bool values in i.
struct Scalar {
  double f = 0;
  std::int64_t i = 0;
  friend bool operator==(const Scalar&, const Scalar&) = default;
};

enum class LeafKind : std::uint8_t {
  constant, ///< every element is `a`
  normal,   ///< DESIGN section 4 normal at flat index map(i): mean a.f, stddev b.f
  uniform,  ///< uniform at flat index map(i) in [a.f, b.f) (random::uniform_form of the dtype)
  integers, ///< integers at flat index map(i) in [a.i, b.i)
  arange,   ///< a + map(i) * b: floats as NumPy's fill, T(a.f) + T(map(i)) * T(b.f) in the
            ///< dtype T, multiply and add each rounded (b.f is NumPy's increment, see
            ///< detail::arange_delta); integers in wrapping int64 arithmetic, then cast
  stored,   ///< element map(i) of the program's input buffer `input`, of the leaf's dtype
};

struct Leaf {
  LeafKind kind = LeafKind::constant;
  DType dtype = DType::float64;
  AffineMap map;
  Scalar a, b;
  std::uint64_t seed = 0;   ///< random leaves: Generator seed
  std::uint64_t stream = 0; ///< random leaves: stream number
  int input = -1;           ///< stored leaves: index into the program's input pointers
};

/// Elementwise operations. Operands of a binary op share one dtype (the planner inserts casts);
/// `dtype` of an Instr is its result type.
enum class OpCode : std::uint8_t {
  // unary: result dtype = operand dtype unless stated
  cast, ///< to Instr::dtype, C++ static_cast semantics (float->int truncates; to bool: != 0)
  neg,
  abs, ///< integers wrap
  sqrt,
  exp,
  log,
  log1p,
  expm1,
  sin,
  cos,
  tan,
  tanh, ///< floats only
  isnan,
  isfinite, ///< result bool
  bit_not,  ///< integers: ~x; bool: logical not
  // binary
  add,
  sub,
  mul, ///< integers wrap (two's complement)
  div, ///< floats only (int / int is cast to float64 by the planner)
  mod, ///< Python/NumPy remainder: sign of the divisor; integer x % 0 == 0
  pow, ///< integers: exact, wrapping; negative exponents give 1/x^n truncated
  minimum,
  maximum, ///< NaN-propagating, like NumPy
  eq,
  ne,
  lt,
  le,
  gt,
  ge, ///< result bool
  bit_and,
  bit_or,
  bit_xor, ///< bool and integers
  // ternary
  where, ///< args: (bool condition, a, b)
};

inline constexpr int opcode_arity(OpCode op) {
  if (op <= OpCode::bit_not)
    return 1;
  if (op == OpCode::where)
    return 3;
  return 2;
}

std::string_view opcode_name(OpCode op);

/// One SSA instruction. Value numbers: 0 .. leaves-1 are the leaves, then instruction j has value
/// number leaves + j. The program's result is its last value.
struct Instr {
  OpCode op = OpCode::cast;
  DType dtype = DType::float64;
  std::array<std::int16_t, 3> args{{-1, -1, -1}};
};

/// Reductions. Every reduction accumulates into a partial state of 1 to 3 eight-byte words per
/// output element (layout in plan/partial.hpp), partials combine pairwise in a fixed order, and a
/// finalize step turns the combined state into the output dtype.
enum class ReduceOp : std::uint8_t {
  sum,
  prod,
  min,
  max,
  any,
  all,
  mean,
  var,
  std,
  argmin,
  argmax
};

std::string_view reduce_op_name(ReduceOp op);

struct Sink {
  enum class Kind : std::uint8_t { store, reduce };
  Kind kind = Kind::store;
  /// store: element offset in the output buffer (of the result dtype) for position i.
  /// reduce: partial entry index p(i) (coefficients 0 on reduced axes).
  AffineMap map;
  // reduce only
  ReduceOp op = ReduceOp::sum;
  std::uint32_t reduced_axes = 0; ///< bit k set: axis k of the box is reduced
  index_t num_partials = 0;       ///< number of partial entries written (output positions)
  /// argmin/argmax: the index reported for position i (flat index over the reduced array's
  /// original shape when reducing every axis, else the position along the reduced axis).
  AffineMap index_map;
};

/// A fully instantiated program for one block: the executor supplies input pointers (one per
/// stored-leaf input) and one output pointer (a buffer of the result dtype for store sinks, of
/// partial words for reduce sinks).
struct BlockProgram {
  int ndim = 0;
  std::array<index_t, max_ndim> extent{}; ///< the iteration box
  std::vector<Leaf> leaves;
  std::vector<Instr> instrs;
  Sink sink;

  index_t size() const {
    index_t n = 1;
    for (int k = 0; k < ndim; ++k)
      n *= extent[k];
    return n;
  }
  int num_values() const { return static_cast<int>(leaves.size() + instrs.size()); }
  /// dtype of a value number.
  DType value_dtype(int v) const {
    return v < static_cast<int>(leaves.size()) ? leaves[v].dtype : instrs[v - leaves.size()].dtype;
  }
  DType result_dtype() const { return value_dtype(num_values() - 1); }

  /// A text form for tests, logs and cache keys (structure and constants).
  std::string describe() const;
  /// Key of the program's structure only (ops, dtypes, leaf kinds, rank, sink kind): programs
  /// with equal keys differ only in constants, index maps and extents, so a compiled kernel
  /// for one serves all of them.
  std::string structure_key() const;
};

} // namespace chunked::plan
