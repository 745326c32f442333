// SPDX-License-Identifier: Apache-2.0
// The one instruction-set dispatcher of the CPU backend, and the tables each instruction-set
// translation unit provides.
//
// One mechanism builds per-instruction-set code: a kernel family is written once in a header
// whose code lies in `namespace chunked::cpu::CHUNKED_ISA_NAMESPACE` (interpreter_loops.hpp,
// simd_random_kernel.hpp, instr_loops.hpp); a translation unit per instruction set
// (<family>_<isa>.cpp) defines that macro as isa_<isa> and includes the header, and CMake
// (chunked_isa_source in the top-level CMakeLists.txt) gives it that instruction set's -m flags.
// The copies compiled with different flags thus never share a symbol. The tables are null where
// the build has no such copy (another architecture or compiler).
#pragma once

#include "backend/cpu/random_kernels.hpp"

namespace chunked::cpu {

namespace detail {
struct InterpreterKernels;
}
namespace simd {
struct RandomKernelTable;
}

namespace isa_avx2 {
const detail::InterpreterKernels* interpreter_kernels() noexcept;
const simd::RandomKernelTable* random_kernels() noexcept;
} // namespace isa_avx2

namespace isa_avx512 {
const detail::InterpreterKernels* interpreter_kernels() noexcept;
const simd::RandomKernelTable* random_kernels() noexcept;
} // namespace isa_avx512

namespace isa {

/// Whether this CPU can run `set` and this build has its kernels (scalar: always).
bool supported(SimdIsa set) noexcept;

/// The instruction set of this process, decided once: the one the environment variable
/// CHUNKED_SIMD names (scalar, avx2 or avx512) when it is supported, else the widest supported.
SimdIsa chosen() noexcept;

/// The interpreter's wide loops and the random kernels of `set`; null for scalar.
const detail::InterpreterKernels* interpreter_kernels(SimdIsa set) noexcept;
const simd::RandomKernelTable* random_kernels(SimdIsa set) noexcept;

} // namespace isa

} // namespace chunked::cpu
