// SPDX-License-Identifier: Apache-2.0
// The CPU backend's tile interpreter: runs one plan::BlockProgram over host memory.
#pragma once

#include "plan/block_program.hpp"
#include <chunked/core/types.hpp>

#include <span>

namespace chunked::cpu {

/// Elements per tile. The interpreter walks the iteration box in C order, `tile_elements`
/// consecutive positions at a time; every per-tile result (in particular each tile's partial sum)
/// depends on this constant and on nothing else, never on thread counts, so results are
/// reproducible. Each live value of a program takes one tile buffer of up to 8 bytes per element.
inline constexpr index_t tile_elements = 2048;

/// Runs `program` on the host.
///
/// The program is compiled (buffers, loops, fast path) once per structure and thread and the
/// compiled form reused for every block that differs only in map bases, constants, seeds, inputs
/// or outputs, so small blocks cost little more than their elements.
///
/// `inputs[j]` points at the buffer read by stored leaves with `input == j`: elements of that
/// leaf's dtype, element `leaf.map(i)` for box position i. For a store sink, `output` is a buffer
/// of the program's result dtype and position i is written to element `sink.map(i)`. For a reduce
/// sink, `output` holds `sink.num_partials * plan::partial_layout(op, result dtype).words`
/// PartialWords: every entry is first set to the identity (see init_partials), then each element of
/// the box is accumulated into entry `sink.map(i)`. An empty box writes nothing (store) or only
/// identities (reduce).
///
/// Semantics beyond the comments of block_program.hpp:
/// - arange leaves of floating dtype T compute `T(a) + T(map(i)) * T(b)` in T, the multiply and
///   the add each rounded (NumPy's fill, the same on every backend); integer and bool dtypes
///   compute `a + map(i) * b` in wrapping int64, then cast.
/// - normal and uniform leaves of any dtype take the double sample and cast it; integers leaves
///   the int64 sample (chunked::random::*_at of flat index map(i)).
/// - Floating sums and means add each tile's (or each row segment's) pairwise double sum to the
///   entry in box order; var/std merge each segment's two-pass (count, mean, M2) with Chan's
///   formula. When the last axis is kept, elements accumulate one by one into their entries.
///
/// Throws ValueError when the program is malformed (an operand referring to a later value,
/// operand dtypes an OpCode does not accept, a stored leaf whose input is missing, a reduce map
/// reaching outside [0, num_partials)).
///
/// @code
/// plan::BlockProgram p;               // out[i] = x[i] + 1 over 10 doubles
/// p.ndim = 1; p.extent[0] = 10;
/// p.leaves = {{.kind = plan::LeafKind::stored, .dtype = DType::float64,
///              .map = {0, {1}}, .input = 0},
///             {.kind = plan::LeafKind::constant, .dtype = DType::float64, .a = {1.0, 0}}};
/// p.instrs = {{plan::OpCode::add, DType::float64, {0, 1, -1}}};
/// p.sink.map = {0, {1}};
/// const void* in[] = {x};
/// cpu::run_program(p, in, out);
/// @endcode
void run_program(const plan::BlockProgram& program, std::span<const void* const> inputs,
                 void* output);

} // namespace chunked::cpu
