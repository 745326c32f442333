// SPDX-License-Identifier: Apache-2.0
// One loop per elementwise instruction and element type, written once and compiled once per
// instruction set by the mechanism isa.hpp describes: instr_kernels.cpp builds the library's
// baseline copy (isa_baseline), interpreter_loops.hpp the wide ones, so that the compiler
// vectorises the same source for each width. The per-element semantics are scalar::apply's
// (chunked/ops/scalar.hpp), inlined; every width does the same IEEE operations (no contraction
// into fma), so the results are the same bits. Math library functions stay calls.
//
// Not a header for general use: it defines instr_loop, the loop of an instruction, in
// chunked::cpu::CHUNKED_ISA_NAMESPACE.
#pragma once

#ifndef CHUNKED_ISA_NAMESPACE
#error "define CHUNKED_ISA_NAMESPACE before including instr_loops.hpp"
#endif

// The definitions below are this header's purpose: one translation unit per instruction set
// includes it, once (see isa.hpp), so they are never defined twice under one name.
// NOLINTBEGIN(misc-definitions-in-headers)

#include "backend/cpu/elementwise.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>

namespace chunked::cpu::CHUNKED_ISA_NAMESPACE {
namespace {

using InstrKernel = void (*)(const void* const* args, void* out, index_t n);
using ops::OpCode;

template <OpCode Op, class T> void unary_kernel(const void* const* args, void* out, index_t n) {
  using R = decltype(scalar::apply<Op>(T{}));
  const T* __restrict x = static_cast<const T*>(args[0]);
  R* __restrict r = static_cast<R*>(out);
  for (index_t j = 0; j < n; ++j)
    r[j] = scalar::apply<Op>(x[j]);
}

template <OpCode Op, class T> void binary_kernel(const void* const* args, void* out, index_t n) {
  using R = decltype(scalar::apply<Op>(T{}, T{}));
  const T* __restrict a = static_cast<const T*>(args[0]);
  const T* __restrict b = static_cast<const T*>(args[1]);
  R* __restrict r = static_cast<R*>(out);
  for (index_t j = 0; j < n; ++j)
    r[j] = scalar::apply<Op>(a[j], b[j]);
}

template <class T> void where_kernel(const void* const* args, void* out, index_t n) {
  // The condition's bytes (0 or 1) read as integers and both operands read for every element:
  // a select of loaded values vectorises, where bool loads and a load on one side of the
  // condition do not.
  const auto* __restrict c = static_cast<const std::uint8_t*>(args[0]);
  const T* __restrict a = static_cast<const T*>(args[1]);
  const T* __restrict b = static_cast<const T*>(args[2]);
  T* __restrict r = static_cast<T*>(out);
  for (index_t j = 0; j < n; ++j) {
    const T x = a[j], y = b[j];
    r[j] = c[j] != 0 ? x : y;
  }
}

template <class To, class From> void cast_kernel(const void* const* args, void* out, index_t n) {
  const From* __restrict x = static_cast<const From*>(args[0]);
  To* __restrict r = static_cast<To*>(out);
  for (index_t j = 0; j < n; ++j)
    r[j] = cast_value<To>(x[j]);
}

/// The loop of `Op` on operands of dtype t, from the operation table: its arity picks the loop
/// shape, its domain the dtypes that have one. Casts and `where` have loops of their own.
template <OpCode Op> InstrKernel kernel_for(DType t) {
  return visit_dtype(t, [](auto tag) -> InstrKernel {
    using T = decltype(tag);
    if constexpr (Op == OpCode::cast || !ops::op_accepts(Op, dtype_v<T>)) {
      return nullptr;
    } else if constexpr (Op == OpCode::where) {
      return &where_kernel<T>;
    } else if constexpr (ops::op_arity(Op) == 1) {
      return &unary_kernel<Op, T>;
    } else {
      static_assert(ops::op_arity(Op) == 2, "a table row of arity 3 other than where");
      return &binary_kernel<Op, T>;
    }
  });
}

template <std::size_t... I> InstrKernel opcode_loop(OpCode op, DType t, std::index_sequence<I...>) {
  InstrKernel k = nullptr;
  ((static_cast<std::size_t>(op) == I ? (k = kernel_for<static_cast<OpCode>(I)>(t), 0) : 0), ...);
  return k;
}

constexpr std::size_t num_opcodes = static_cast<std::size_t>(ops::num_opcodes);

/// The loop of `op` on operands of dtype `operand` giving `result` (casts: to `result`), or
/// null for an op the dtype does not take.
InstrKernel instr_loop(OpCode op, DType operand, DType result) {
  if (op == OpCode::cast) {
    return visit_dtype(result, [&](auto to) {
      return visit_dtype(operand, [](auto from) -> InstrKernel {
        return &cast_kernel<decltype(to), decltype(from)>;
      });
    });
  }
  return opcode_loop(op, operand, std::make_index_sequence<num_opcodes>{});
}

} // namespace
} // namespace chunked::cpu::CHUNKED_ISA_NAMESPACE

// NOLINTEND(misc-definitions-in-headers)
