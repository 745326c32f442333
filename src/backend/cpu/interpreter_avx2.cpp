// SPDX-License-Identifier: Apache-2.0
// AVX2 builds of the interpreter loops that stream from memory (see interpreter_simd.hpp).
#include "interpreter_simd.hpp"

#include <chunked/backend/cpu/elementwise.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <immintrin.h>
#include <utility>

namespace chunked::cpu::detail {

#if defined(__AVX2__)

namespace {
#include "interpreter_loops.inc"
} // namespace

const InterpreterKernels* avx2_interpreter_kernels() noexcept { return &table; }

#else

const InterpreterKernels* avx2_interpreter_kernels() noexcept { return nullptr; }

#endif

} // namespace chunked::cpu::detail
