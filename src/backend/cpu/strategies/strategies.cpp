// SPDX-License-Identifier: Apache-2.0
// The order in which the strategies are chosen: some depend on others' choices.
#include "backend/cpu/strategies/strategies.hpp"

namespace chunked::cpu::strategy {

void choose(const plan::BlockProgram& p, TileProgram& tp) {
  if (!tp.reduce) {
    // A streamed store excludes a direct one; a copy of a stored leaf streams when the store does.
    choose_stream_store(tp);
    choose_direct_store(tp);
    choose_copy_runs(p, tp);
    return;
  }
  choose_moment_columns(p, tp);
  choose_exact_columns(p, tp);
  choose_sum_rows(p, tp);
  choose_row_block_fold(p, tp);
}

} // namespace chunked::cpu::strategy
