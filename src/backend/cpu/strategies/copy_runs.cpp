// SPDX-License-Identifier: Apache-2.0
// Strategy copy_runs (see copy_runs.hpp).
#include "backend/cpu/strategies/copy_runs.hpp"

namespace chunked::cpu::strategy {

bool choose_copy_runs(const plan::BlockProgram& p, TileProgram& tp) {
  if (tp.reduce || tp.sink_map.coef[tp.geometry.ndim - 1] != 1 || tp.direct_leaf_step < 0)
    return false;
  const LeafStep& s = tp.leaf_steps[static_cast<std::size_t>(tp.direct_leaf_step)];
  if (p.leaves[static_cast<std::size_t>(s.leaf)].kind != plan::LeafKind::stored)
    return false;
  tp.copied_step = tp.direct_leaf_step;
  tp.strategies |= copy_runs;
  return true;
}

void run_copy_runs(const TileProgram& tp, const BlockBinding& b, TileRuns& runs) {
  const LeafStep& s = tp.leaf_steps[static_cast<std::size_t>(tp.copied_step)];
  const plan::Leaf& leaf = b.program->leaves[static_cast<std::size_t>(s.leaf)];
  const plan::AffineMap& map = b.leaf_maps[static_cast<std::size_t>(s.leaf)];
  const std::size_t result_size = dtype_size(tp.result_dtype);
  const bool stream = tp.has(stream_store);
  auto* const out = static_cast<std::byte*>(b.output);
  const auto* const in =
      static_cast<const std::byte*>(b.step_input[static_cast<std::size_t>(tp.copied_step)]);
  for (index_t t0 = 0; t0 < tp.size; t0 += tp.tile) {
    runs.cut(tp.geometry, t0, std::min(tp.tile, tp.size - t0));
    runs.each_pair(map, b.sink_map, [&](index_t from, index_t step, index_t to, index_t len) {
      if (stream && step == 1)
        tp.wide->stream_copy(out + static_cast<std::size_t>(to) * result_size,
                             in + static_cast<std::size_t>(from) * result_size,
                             static_cast<std::size_t>(len) * result_size);
      else
        s.fill(leaf, in, from, step, len, out + static_cast<std::size_t>(to) * result_size);
    });
  }
}

} // namespace chunked::cpu::strategy
