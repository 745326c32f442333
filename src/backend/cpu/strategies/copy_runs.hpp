// SPDX-License-Identifier: Apache-2.0
// Strategy copy_runs: a store whose result is a stored leaf (a slice, a rechunk, a persist)
// copies each run from the input to the output, rather than into a tile buffer and from there to
// the output.
#pragma once

#include "backend/cpu/block_binding.hpp"
#include "backend/cpu/tile_program.hpp"

namespace chunked::cpu::strategy {

/// Whether `tp`, a store, takes copy_runs (sets its fields when it does).
bool choose_copy_runs(const plan::BlockProgram& p, TileProgram& tp);

/// The whole tile loop of a copy_runs program.
void run_copy_runs(const TileProgram& tp, const BlockBinding& b, TileRuns& runs);

} // namespace chunked::cpu::strategy
