// SPDX-License-Identifier: Apache-2.0
// Code generation: a BlockProgram's structure as CUDA C++ source for NVRTC, and its constants as
// the kernel's argument block.
#pragma once

#include <chunked/backend/cuda/kernel/args.hpp>
#include <chunked/plan/block_program.hpp>

#include <string>

namespace chunked::cuda {

/// Kernel entry points a generated module defines. Store programs define `store`; reduce
/// programs define the others: over every axis (pass 1 and 2), and along some axes with 32 kept
/// positions per CUDA block (`_wide`) or one (`_narrow`), then the fold of the segments.
inline constexpr const char* kernel_store = "chunked_store";
inline constexpr const char* kernel_reduce_all = "chunked_reduce_all";
inline constexpr const char* kernel_reduce_final = "chunked_reduce_final";
inline constexpr const char* kernel_reduce_axes_wide = "chunked_reduce_axes_wide";
inline constexpr const char* kernel_reduce_axes_narrow = "chunked_reduce_axes_narrow";
inline constexpr const char* kernel_reduce_axes_final = "chunked_reduce_axes_final";

/// CUDA C++ source of `program`'s kernels. It depends only on `program.structure_key()`: two
/// programs with the same key get the same text, so one compiled module serves both. Throws
/// ValueError for a program that the generator cannot express (rank or leaf count over the
/// argument block's limits, unknown opcodes).
std::string generate_source(const plan::BlockProgram& program);

/// The constants of `program` (extents, index maps, scalars, seeds) and the data pointers, in the
/// layout the generated kernels read. `inputs[j]` is the device pointer of stored input j.
kernel::ProgramArgs make_args(const plan::BlockProgram& program, const void* const* inputs,
                              void* out, void* scratch);

} // namespace chunked::cuda
