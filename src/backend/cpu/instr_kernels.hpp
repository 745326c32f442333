// SPDX-License-Identifier: Apache-2.0
// The loop of each elementwise instruction of the CPU tile interpreter, chosen when a program is
// compiled: the widest this CPU has.
#pragma once

#include "plan/block_program.hpp"
#include <chunked/core/dtype.hpp>
#include <chunked/core/types.hpp>

#include "backend/cpu/interpreter_simd.hpp"

namespace chunked::cpu {

/// r[j] = op(args[0][j], ...) for j < n.
using InstrKernel = void (*)(const void* const* args, void* out, index_t n);

/// The index of add, sub, mul and div in the wide loop tables (InterpreterKernels); -1 for other
/// opcodes.
int arithmetic_index(plan::OpCode op);

/// The loop of an instruction: the widest this CPU has (`wide`, null for the baseline loops);
/// `scalars` (detail::scalar_operands) names the operands that are constants, which the wide
/// arithmetic loops read as one value.
InstrKernel select_kernel(plan::OpCode op, DType operand, DType result,
                          const detail::InterpreterKernels* wide, unsigned scalars);

} // namespace chunked::cpu
