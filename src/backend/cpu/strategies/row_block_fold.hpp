// SPDX-License-Identifier: Apache-2.0
// Strategy row_block_fold: sums, means, maxima, minima, vars and stds over every axis but the
// last of a float64 block read in place (x.mean(Axes{0}), the moments pass of a standardize):
// rows fold into the entries rows_at_once at a time, each entry's state kept in registers across
// them instead of stored and reloaded per row. Every entry takes its rows in order with the same
// operations, so the bits are the same. The tile loop takes the rows left over.
#pragma once

#include "backend/cpu/block_binding.hpp"
#include "backend/cpu/strategies/moment_columns.hpp"
#include "backend/cpu/tile_program.hpp"

namespace chunked::cpu::strategy {

/// Whether `tp`, after the sum_rows and moment_columns choices, takes row_block_fold (sets its
/// fields when it does).
bool choose_row_block_fold(const plan::BlockProgram& p, TileProgram& tp);

/// Folds whole groups of rows_at_once rows (moments: while the columns' counts are uniform) and
/// returns the first box position left to the tile loop.
index_t fold_row_blocks(const TileProgram& tp, const BlockBinding& b, MomentColumnsRun* moments);

} // namespace chunked::cpu::strategy
