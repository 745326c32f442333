// SPDX-License-Identifier: Apache-2.0
// Choice of instruction loops (see instr_kernels.hpp).
#include "backend/cpu/instr_kernels.hpp"

// The library's baseline build of the instruction loops (the mechanism isa.hpp describes, with
// this library's default flags).
#define CHUNKED_ISA_NAMESPACE isa_baseline
#include "backend/cpu/instr_loops.hpp"

namespace chunked::cpu {

using plan::OpCode;

int arithmetic_index(OpCode op) {
  switch (op) {
  case OpCode::add:
    return 0;
  case OpCode::sub:
    return 1;
  case OpCode::mul:
    return 2;
  case OpCode::div:
    return 3;
  default:
    return -1;
  }
}

InstrKernel select_kernel(OpCode op, DType operand, DType result,
                          const detail::InterpreterKernels* wide, unsigned scalars) {
  if (const int a = arithmetic_index(op);
      wide && a >= 0 && (operand == DType::float64 || operand == DType::float32))
    return (operand == DType::float64 ? wide->binary_f64 : wide->binary_f32)[a * 4 + scalars];
  // Loops that call the C library's math functions keep the baseline build: a wider one gains
  // nothing there (the calls stay scalar).
  return wide && !ops::op_calls_library(op, operand)
             ? wide->instr(op, operand, result)
             : isa_baseline::instr_loop(op, operand, result);
}

} // namespace chunked::cpu
