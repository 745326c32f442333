// SPDX-License-Identifier: Apache-2.0
// One term of a product of blocks on the host: C (+)= A @ B for stacks of row-major matrices,
// with the CPU BLAS chunked was built with, or its own loops without one.
#pragma once

#include "plan/plan.hpp"
#include <chunked/core/dtype.hpp>

namespace chunked::cpu {

/// For each of s.batch matrices: c = a @ b, or c += a @ b when s.accumulate, where a is (m, k),
/// b is (k, n) and c is (m, n), each a C-order stack of s.batch of them; float or double. The
/// BLAS runs on the calling thread alone (multiply_blocks fixes its thread count to 1), so the
/// bits do not depend on how many workers run. k == 0 gives zeros (or leaves c as it is).
void multiply_blocks(DType dtype, const plan::ProductShape& s, const void* a, const void* b,
                     void* c);

/// What multiplies blocks on the host: "OpenBLAS", "BLAS" or "chunked's own loops".
const char* host_blas_name();

} // namespace chunked::cpu
