// SPDX-License-Identifier: Apache-2.0
// The CPU tile interpreter's entry point: validate a block program, find or compile its
// TileProgram (by structure, per thread), run it over the block.
#include "backend/cpu/interpreter.hpp"

#include "backend/cpu/program_cache.hpp"
#include "backend/cpu/tile_program.hpp"
#include "backend/cpu/validate.hpp"

namespace chunked::cpu {

void run_program(const plan::BlockProgram& p, std::span<const void* const> inputs, void* output) {
  validate_program(p, inputs);
  run(cached_tile_program(p), p, inputs, output);
}

} // namespace chunked::cpu
