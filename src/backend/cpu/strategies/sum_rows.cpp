// SPDX-License-Identifier: Apache-2.0
// Strategy sum_rows (see sum_rows.hpp).
#include "backend/cpu/strategies/sum_rows.hpp"

namespace chunked::cpu::strategy {

bool choose_sum_rows(const plan::BlockProgram& p, TileProgram& tp) {
  if (!tp.wide || !tp.reduce || tp.all_reduced || tp.sink_map.coef[tp.geometry.ndim - 1] != 1 ||
      tp.result_dtype != DType::float64 ||
      (p.sink.op != plan::ReduceOp::sum && p.sink.op != plan::ReduceOp::mean))
    return false;
  tp.strategies |= sum_rows;
  tp.sum_row = tp.wide->sum_row_f64;
  if (tp.instr_steps.empty() || tp.instr_steps.back().value != tp.result)
    return true;
  const plan::Instr& last = p.instrs[static_cast<std::size_t>(tp.result) - p.leaves.size()];
  const int a = last.call < 0 ? arithmetic_index(last.op) : -1;
  if (a >= 0 && p.value_dtype(last.args[0]) == DType::float64 &&
      p.value_dtype(last.args[1]) == DType::float64) {
    tp.sum_binary_row = tp.wide->sum_binary_row_f64[a];
    tp.sum_operands[0] = last.args[0];
    tp.sum_operands[1] = last.args[1];
    tp.instr_steps.pop_back();
  }
  return true;
}

void sum_tile(const TileProgram& tp, const BlockBinding& b, const TileRuns& runs,
              const void* values) {
  plan::PartialWord* const partials = b.partials;
  if (tp.sum_binary_row) {
    const auto* x =
        static_cast<const double*>(b.where[static_cast<std::size_t>(tp.sum_operands[0])]);
    const auto* y =
        static_cast<const double*>(b.where[static_cast<std::size_t>(tp.sum_operands[1])]);
    runs.each(b.sink_map, [&](index_t j, index_t offset, index_t, index_t len) {
      tp.sum_binary_row(x + j, y + j, len, &partials[offset].f);
    });
  } else {
    runs.each(b.sink_map, [&](index_t j, index_t offset, index_t, index_t len) {
      tp.sum_row(static_cast<const double*>(values) + j, len, &partials[offset].f);
    });
  }
}

} // namespace chunked::cpu::strategy
