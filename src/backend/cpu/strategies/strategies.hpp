// SPDX-License-Identifier: Apache-2.0
// The fast paths of the CPU tile interpreter, each in its own file of this folder; choose()
// decides which a compiled program takes.
#pragma once

#include "backend/cpu/strategies/copy_runs.hpp"
#include "backend/cpu/strategies/direct_store.hpp"
#include "backend/cpu/strategies/exact_columns.hpp"
#include "backend/cpu/strategies/moment_columns.hpp"
#include "backend/cpu/strategies/row_block_fold.hpp"
#include "backend/cpu/strategies/stream_store.hpp"
#include "backend/cpu/strategies/sum_rows.hpp"

namespace chunked::cpu::strategy {

/// Sets the strategies of `tp`, whose buffers, loops and sink compile() has planned.
void choose(const plan::BlockProgram& p, TileProgram& tp);

} // namespace chunked::cpu::strategy
