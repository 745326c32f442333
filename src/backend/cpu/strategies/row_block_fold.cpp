// SPDX-License-Identifier: Apache-2.0
// Strategy row_block_fold (see row_block_fold.hpp).
#include "backend/cpu/strategies/row_block_fold.hpp"

#include <algorithm>

namespace chunked::cpu::strategy {

bool choose_row_block_fold(const plan::BlockProgram& p, TileProgram& tp) {
  const Geometry& g = tp.geometry;
  const int last = g.ndim - 1;
  using RowFold = TileProgram::RowFold;
  RowFold kind = RowFold::none;
  if (tp.has(moment_columns) && tp.moment_span == g.extent[last] &&
      tp.result_dtype == DType::float64)
    kind = RowFold::moments;
  else if (tp.has(sum_rows) && tp.sum_binary_row == nullptr)
    kind = RowFold::sums;
  else if (tp.reduce && tp.result_dtype == DType::float64 &&
           (p.sink.op == plan::ReduceOp::min || p.sink.op == plan::ReduceOp::max))
    kind = RowFold::extremes;
  if (kind == RowFold::none || !tp.wide || tp.result >= static_cast<int>(p.leaves.size()) ||
      tp.sink_map.coef[last] != 1 || tp.direct_leaf_step < 0 ||
      !tp.leaf_steps[static_cast<std::size_t>(tp.direct_leaf_step)].in_place)
    return false;
  for (int k = 0; k < last; ++k)
    if (tp.sink_map.coef[k] != 0)
      return false;
  tp.row_fold = kind;
  tp.row_fold_max = p.sink.op == plan::ReduceOp::max;
  tp.strategies |= row_block_fold;
  return true;
}

index_t fold_row_blocks(const TileProgram& tp, const BlockBinding& b, MomentColumnsRun* moments) {
  using RowFold = TileProgram::RowFold;
  constexpr int R = detail::rows_at_once;
  const Geometry& g = tp.geometry;
  const int last = g.ndim - 1;
  const bool fold_moments = tp.row_fold == RowFold::moments;
  // The moments loop needs every entry at one count.
  if (fold_moments && !moments->uniform_counts)
    return 0;
  const detail::InterpreterKernels* wide = tp.wide;
  const LeafStep& s = tp.leaf_steps[static_cast<std::size_t>(tp.direct_leaf_step)];
  const plan::AffineMap& map = b.leaf_maps[static_cast<std::size_t>(s.leaf)];
  const auto* input =
      static_cast<const double*>(b.step_input[static_cast<std::size_t>(tp.direct_leaf_step)]);
  double* const f = &b.partials[b.sink_map.base].f;
  const index_t row_length = g.extent[last];
  const index_t rows = tp.size / row_length;
  index_t row = 0;
  if (g.ndim == 2 && tp.row_fold != RowFold::extremes) {
    // Narrow rows: every whole group of rows in one call, the state in registers throughout.
    const double* x = input + map.base;
    const index_t groups = rows / R * R;
    if (tp.row_fold == RowFold::sums) {
      if (wide->sum_narrow_f64(x, map.coef[0], groups, row_length, f))
        return groups * row_length;
    } else {
      MomentColumns& c = moments->columns;
      const index_t done = wide->moments_narrow_f64(x, map.coef[0], groups, row_length,
                                                    moments->uniform_count, c.mean, c.m2);
      if (done > 0) {
        moments->uniform_count += static_cast<double>(done);
        row = done;
      }
    }
  }
  for (; row + R <= rows && (!fold_moments || moments->uniform_counts); row += R) {
    const double* at_rows[R];
    if (g.ndim == 2) {
      // Rows of a matrix are a stride apart: no index arithmetic per row (ten divisions for
      // every eight rows of ten values were a fifth of x.std(Axes{0}) over ten columns).
      const double* first_row = input + map.base + map.coef[0] * row;
      for (int r = 0; r < R; ++r)
        at_rows[r] = first_row + map.coef[0] * r;
    } else {
      for (int r = 0; r < R; ++r) {
        index_t idx[plan::max_ndim] = {};
        for (index_t rest = row + r, k = last; k-- > 0;) {
          idx[k] = rest % g.extent[k];
          rest /= g.extent[k];
        }
        at_rows[r] = input + map.at(idx, g.ndim);
      }
    }
    if (tp.row_fold == RowFold::sums) {
      wide->sum_rows_f64(at_rows, row_length, f);
      continue;
    }
    if (tp.row_fold == RowFold::extremes) {
      wide->extreme_rows_f64[tp.row_fold_max](at_rows, row_length, f);
      continue;
    }
    MomentColumns& c = moments->columns;
    const index_t done =
        wide->moments_rows_f64(at_rows, row_length, moments->uniform_count, c.mean, c.m2);
    if (done == row_length) {
      moments->uniform_count += R;
      continue;
    }
    // A block with a value or state that is not finite: the entries before it took all R rows;
    // the rows fold into the others one at a time, each entry with its own count.
    std::fill(c.count, c.count + done, moments->uniform_count + R);
    std::fill(c.count + done, c.count + moments->span, moments->uniform_count);
    moments->uniform_counts = false;
    for (int r = 0; r < R; ++r)
      moments->fold_counted(at_rows[r], done, row_length - done, done);
  }
  return row * row_length;
}

} // namespace chunked::cpu::strategy
