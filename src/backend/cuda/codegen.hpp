// SPDX-License-Identifier: Apache-2.0
// Code generation: a BlockProgram's structure as CUDA C++ source for NVRTC, and its constants as
// the kernel's argument block.
#pragma once

#include "backend/cuda/kernel/args.hpp"
#include "plan/block_program.hpp"

#include <cstdint>
#include <string>

namespace chunked::cuda {

/// Kernel entry points a generated module defines. Store programs define `store`; reduce
/// programs define the others: over every axis (pass 1 and 2), and along some axes with 32 kept
/// positions per CUDA block (`_wide`) or one (`_narrow`), then the fold of the segments.
inline constexpr const char* kernel_store = "chunked_store";
/// Store programs whose stored inputs are read with unit stride along an axis other than the
/// innermost (a transpose): 32 x 32 tiles through shared memory (kernel/program.hpp).
inline constexpr const char* kernel_store_tiled = "chunked_store_tiled";
inline constexpr const char* kernel_reduce_all = "chunked_reduce_all";
inline constexpr const char* kernel_reduce_final = "chunked_reduce_final";
inline constexpr const char* kernel_reduce_axes_wide = "chunked_reduce_axes_wide";
inline constexpr const char* kernel_reduce_axes_narrow = "chunked_reduce_axes_narrow";
inline constexpr const char* kernel_reduce_axes_final = "chunked_reduce_axes_final";

/// Which of a program's kernels a block needs: store programs `store`; reductions over every
/// axis of the block `reduce_all` (pass 1 and 2); along some axes `reduce_axes_wide` or
/// `reduce_axes_narrow` (each with the fold of the segments). A module holds one set, so a first
/// run compiles only the kernels its blocks launch (each kernel is a separate ptxas job).
enum class KernelSet : std::uint8_t {
  store,
  reduce_all,
  reduce_axes_wide,
  reduce_axes_narrow,
  store_tiled
};

/// The axis along which every stored leaf of `program` reads neighbouring elements, when that
/// is not the innermost axis (the program reads a transposed or moved-axis array) and the
/// innermost axis is contiguous for none of them; else -1. Along that axis a warp's reads
/// coalesce, so the store kernel tiles it against the innermost axis and reductions whose
/// innermost reduced axis it is let their lanes run along it.
int transposed_axis(const plan::BlockProgram& program);

/// The set for this block of a program: from its structure, its box and its leaves' strides.
/// Stores whose stored leaves read along another axis than the innermost (transposed_axis) are
/// tiled. Along some axes, CUDA blocks hold 32 kept positions when the innermost axis is kept or
/// fewer than 64 positions are reduced (a warp then reads 32 neighbours at once), else one; but
/// when the stored leaves are contiguous along the innermost reduced axis and not along the
/// innermost axis, one kept position, whose lanes then read neighbours.
KernelSet kernel_set(const plan::BlockProgram& program);

/// Name of a set, as module keys use it.
const char* kernel_set_name(KernelSet set);

/// Whether the kernels of `program` issue the loads of a thread's whole batch of positions before
/// any of their arithmetic (kernel/program.hpp): true when the arithmetic has a slow path (a
/// division, a remainder, a power, a square root, a transcendental function).
bool loads_first(const plan::BlockProgram& program);

/// CUDA C++ source of the kernels of `set` for `program`. It depends only on
/// `program.structure_key()` and `set`: two programs with the same key get the same text, so one
/// compiled module serves both. Throws ValueError for a program that the generator cannot express
/// (rank or leaf count over the argument block's limits, unknown opcodes) and for a set that does
/// not match its sink.
std::string generate_source(const plan::BlockProgram& program, KernelSet set);

/// The key of the module holding `set` for `program` (structure key and set).
std::string module_key(const plan::BlockProgram& program, KernelSet set);

/// The constants of `program` (extents, index maps, scalars, seeds) and the data pointers, in the
/// layout the generated kernels read. `inputs[j]` is the device pointer of stored input j.
kernel::ProgramArgs make_args(const plan::BlockProgram& program, const void* const* inputs,
                              void* out, void* scratch);

} // namespace chunked::cuda
