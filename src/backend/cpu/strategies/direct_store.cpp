// SPDX-License-Identifier: Apache-2.0
// Strategy direct_store (see direct_store.hpp). The tile loop (run.cpp) points the last
// instruction at the output for each tile that is one run.
#include "backend/cpu/strategies/direct_store.hpp"

namespace chunked::cpu::strategy {

bool choose_direct_store(TileProgram& tp) {
  if (tp.has(stream_store) || tp.reduce || tp.sink_map.coef[tp.geometry.ndim - 1] != 1 ||
      tp.instr_steps.empty() || tp.instr_steps.back().value != tp.result)
    return false;
  tp.strategies |= direct_store;
  return true;
}

} // namespace chunked::cpu::strategy
