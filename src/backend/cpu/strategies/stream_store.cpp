// SPDX-License-Identifier: Apache-2.0
// Strategy stream_store (see stream_store.hpp).
#include "backend/cpu/strategies/stream_store.hpp"

namespace chunked::cpu::strategy {

bool choose_stream_store(TileProgram& tp) {
  if (tp.reduce || tp.wide == nullptr || tp.sink_map.coef[tp.geometry.ndim - 1] != 1 ||
      tp.size * static_cast<index_t>(dtype_size(tp.result_dtype)) < stream_from_bytes)
    return false;
  tp.strategies |= stream_store;
  if (!tp.instr_steps.empty() && tp.instr_steps.back().value == tp.result)
    tp.stream_result = tp.instr_steps.back().stream;
  return true;
}

void stream_tile(const TileProgram& tp, const BlockBinding& b, const TileRuns& runs,
                 const void* values) {
  const std::size_t result_size = dtype_size(tp.result_dtype);
  auto* const out = static_cast<std::byte*>(b.output);
  const auto* const in = static_cast<const std::byte*>(values);
  runs.each(b.sink_map, [&](index_t j, index_t offset, index_t, index_t len) {
    tp.wide->stream_copy(out + static_cast<std::size_t>(offset) * result_size,
                         in + static_cast<std::size_t>(j) * result_size,
                         static_cast<std::size_t>(len) * result_size);
  });
}

} // namespace chunked::cpu::strategy
