// SPDX-License-Identifier: Apache-2.0
// Checks that a BlockProgram is well formed before the CPU interpreter compiles or runs it.
#pragma once

#include "plan/block_program.hpp"

#include <span>

namespace chunked::cpu {

/// Throws ValueError naming the program when it is malformed (see cpu::run_program).
void validate_program(const plan::BlockProgram& p, std::span<const void* const> inputs);

} // namespace chunked::cpu
