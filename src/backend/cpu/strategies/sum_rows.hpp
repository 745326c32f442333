// SPDX-License-Identifier: Apache-2.0
// Strategy sum_rows: kept-axis sums and means of float64 rows into consecutive entries, with the
// wide loops. A float64 add, sub, mul or div giving the summed values folds straight into the
// rows (two roundings, as the separate loops do), so its values never go through a tile buffer.
#pragma once

#include "backend/cpu/block_binding.hpp"
#include "backend/cpu/tile_program.hpp"

namespace chunked::cpu::strategy {

/// Whether `tp`, a reduction, takes sum_rows (sets its fields, and drops the last instruction
/// when it folds it, when it does).
bool choose_sum_rows(const plan::BlockProgram& p, TileProgram& tp);

/// Folds one tile into its entries.
void sum_tile(const TileProgram& tp, const BlockBinding& b, const TileRuns& runs,
              const void* values);

} // namespace chunked::cpu::strategy
