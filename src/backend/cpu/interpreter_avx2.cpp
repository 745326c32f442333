// SPDX-License-Identifier: Apache-2.0
// The AVX2 build of the interpreter's wide loops (see interpreter_loops.hpp and isa.hpp).
#define CHUNKED_ISA_NAMESPACE isa_avx2
#include "backend/cpu/interpreter_loops.hpp"
