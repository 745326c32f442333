// SPDX-License-Identifier: Apache-2.0
// BlockProgram: the unit of work every backend executes — leaves read through affine index maps,
// a small SSA list of elementwise instructions, and a sink that stores or reduces the result.
#pragma once

#include <chunked/core/dtype.hpp>
#include <chunked/core/types.hpp>
#include <chunked/ops/op_code.hpp>
#include <chunked/ops/reduce_op.hpp>
#include <chunked/ops/scalar_value.hpp>
#include <chunked/ops/user_function.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace chunked::plan {

using chunked::max_ndim;
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

// The operation vocabulary lives in chunked/ops, below the graph. These names let the planner,
// the runtime and the backends keep spelling plan:: while the code moves over.
using ops::LeafKind;
using ops::OpCode;
using ops::reduce_op_name;
using ops::ReduceOp;
using ops::Scalar;
constexpr int opcode_arity(OpCode op) { return ops::op_arity(op); }
constexpr std::string_view opcode_name(OpCode op) { return ops::op_name(op); }

/// The leaf kind's name as BlockProgram::describe() spells it ("normal", "stored", ...).
std::string_view leaf_kind_name(LeafKind kind);
/// Appends `m` over the first `ndim` positions as describe() spells it: "0+2000*i0+2*i1".
void append_map(std::string& s, const AffineMap& m, int ndim);

struct Leaf {
  LeafKind kind = LeafKind::constant;
  DType dtype = DType::float64;
  AffineMap map;
  Scalar a, b;
  std::uint64_t seed = 0;   ///< random leaves: Generator seed
  std::uint64_t stream = 0; ///< random leaves: stream number
  int input = -1;           ///< stored leaves: index into the program's input pointers
};

/// True when the leaf's parameters a and b are read as doubles (a.f, b.f), else as integers.
bool leaf_uses_float_params(const Leaf& leaf);

/// One SSA instruction. Value numbers: 0 .. leaves-1 are the leaves, then instruction j has value
/// number leaves + j. The program's result is its last value. Operands share one dtype (the
/// planner inserts casts); `dtype` is the result's (ops::op_result_dtype, or a cast's target).
///
/// A call of a user function is an instruction too: `call` numbers it in BlockProgram::functions
/// (op is then unused), its operands have the function's parameter dtypes, `dtype` its result's.
struct Instr {
  OpCode op = OpCode::cast;
  DType dtype = DType::float64;
  std::array<std::int16_t, 3> args{{-1, -1, -1}};
  std::int8_t call = -1;      ///< >= 0: a call of BlockProgram::functions[call]
  std::int8_t call_arity = 0; ///< calls: the function's number of arguments

  int arity() const { return call >= 0 ? call_arity : opcode_arity(op); }
};

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
  /// The user functions the instructions call, each once.
  std::vector<std::shared_ptr<const ops::UserFunction>> functions;
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
  /// A one-line name of what the program does, for traces and reports: its leaves' kinds, its
  /// operations in order (casts left out) and its sink, e.g. "normal · add · sum".
  std::string summary() const;
  /// Key of the program's structure only (ops, called functions' keys, dtypes, leaf kinds, rank,
  /// sink kind): programs
  /// with equal keys differ only in constants, index maps and extents, so a compiled kernel
  /// for one serves all of them.
  std::string structure_key() const;
};

} // namespace chunked::plan
