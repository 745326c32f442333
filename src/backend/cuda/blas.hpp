// SPDX-License-Identifier: Apache-2.0
// One term of a product of blocks on a GPU: C (+)= A @ B for stacks of row-major matrices, with
// cuBLAS on the task's stream.
#pragma once

#include "plan/plan.hpp"
#include <chunked/core/dtype.hpp>

#include <cuda_runtime.h>

#include <cstddef>

namespace chunked::cuda {

/// cuBLAS's workspace per stream on Hopper (its documentation's recommendation). The same size on
/// every call keeps cuBLAS's choice of kernel, and so the bits, the same.
inline constexpr std::size_t blas_workspace_bytes = std::size_t{32} << 20;

/// For each of s.batch matrices: c = a @ b, or c += a @ b when s.accumulate (a (m, k), b (k, n),
/// c (m, n), C-order stacks, float or double, all on `device`), enqueued on `stream` with
/// `workspace` (blas_workspace_bytes of device memory used by nothing else on other streams).
/// k == 0 gives zeros. BackendError when cuBLAS fails.
void multiply_blocks(int device, cudaStream_t stream, void* workspace, DType dtype,
                     const plan::ProductShape& s, const void* a, const void* b, void* c);

} // namespace chunked::cuda
