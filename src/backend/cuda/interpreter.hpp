// SPDX-License-Identifier: Apache-2.0
// The interpreter tier of the CUDA backend: precompiled kernels (kernel/interpreter.cuh) that run
// a block program while its generated kernel compiles, with the generated kernel's results.
#pragma once

#include "backend/cuda/kernel/interp_code.hpp"
#include "plan/block_program.hpp"

#include <cuda.h>

#include <vector>

namespace chunked::cuda {

/// Whether the interpreter runs `p`: a program without user functions (their bodies exist only
/// as source text) whose values fit its code.
bool interpretable(const plan::BlockProgram& p);

/// The argument block of an interpreter kernel for `p`: `args` (make_args's for `p`, data
/// pointers included) with its axes padded to the kernel's rank, and `p`'s structure.
kernel::InterpArgs interp_args(const plan::BlockProgram& p, const kernel::ProgramArgs& args);

/// The interpreter's kernels of one rank and one reduction: the parameters are the generated
/// kernels' of the same name (codegen.hpp) with InterpArgs for ProgramArgs.
struct InterpReduceKernels {
  const void* all;         ///< chunked_reduce_all
  const void* final;       ///< chunked_reduce_final
  const void* axes_wide;   ///< chunked_reduce_axes_wide
  const void* axes_narrow; ///< chunked_reduce_axes_narrow
  const void* axes_final;  ///< chunked_reduce_axes_final
};

/// The store kernel for programs of rank `nd` giving `result` (a runtime kernel symbol).
const void* interp_store_kernel(int nd, DType result);

/// The reduction kernels for programs of rank `nd` reducing `input` values by `op`.
InterpReduceKernels interp_reduce_kernels(int nd, plan::ReduceOp op, DType input);

/// Every interpreter kernel of rank `nd` (one of kernel::interp_ranks), each once: the store
/// kernels, float64 first, then the reduction kernels of each accumulator and state type.
std::vector<const void*> interp_kernels_of_rank(int nd);

/// Whether the interpreter's kernels load on `device` (they are compiled for the architectures the
/// library was built for; elsewhere every program waits for its generated kernel).
bool interpreter_available(int device);

/// The driver's handle of runtime kernel `symbol` on `device`, for cuda::launch.
CUfunction interp_function(int device, const void* symbol);

/// Loads every interpreter kernel on each of `devices`, most used first (rank 2, then 3, then 8),
/// on a thread of its own, the first time it is called; later calls do nothing. CUDA loads a
/// kernel at its first launch otherwise, inside a program's first call. The thread stops at
/// exit after the kernel it is loading.
void preload_interpreter(const std::vector<int>& devices);

} // namespace chunked::cuda
