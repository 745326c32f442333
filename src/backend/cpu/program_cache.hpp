// SPDX-License-Identifier: Apache-2.0
// The TilePrograms a thread has compiled, by structure: blocks of one computation share one.
#pragma once

#include "plan/block_program.hpp"
#include <chunked/core/types.hpp>

#include "backend/cpu/tile_program.hpp"

#include <cstddef>
#include <vector>

namespace chunked::cpu {

/// Appends to `key` what compile() reads of `p`: rank and extents, each leaf's kind, dtype and map
/// coefficients, each instruction, the sink's kind, op and map coefficients. Not the per-block
/// values run() reads (map bases, constants, seeds, inputs, the number of partials): two programs
/// with equal keys compile to the same TileProgram.
void tile_program_key(const plan::BlockProgram& p, std::vector<index_t>& key);

/// The TileProgram of `p` (validated), compiled on this thread's first block of its structure.
/// Each thread keeps its own programs (no lock, no sharing), at most `cached_programs` of them,
/// the oldest replaced first.
const TileProgram& cached_tile_program(const plan::BlockProgram& p);

inline constexpr std::size_t cached_programs = 64;

} // namespace chunked::cpu
