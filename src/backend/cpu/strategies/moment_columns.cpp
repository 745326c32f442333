// SPDX-License-Identifier: Apache-2.0
// Strategy moment_columns (see moment_columns.hpp).
#include "backend/cpu/strategies/moment_columns.hpp"

#include <algorithm>

namespace chunked::cpu::strategy {

bool choose_moment_columns(const plan::BlockProgram& p, TileProgram& tp) {
  const Geometry& g = tp.geometry;
  if (!tp.reduce || tp.all_reduced || tp.sink_map.coef[g.ndim - 1] != 1 ||
      (p.sink.op != plan::ReduceOp::var && p.sink.op != plan::ReduceOp::std))
    return false;
  // The entries' range relative to the sink map's base, which each block gives; entries far
  // apart would make the columns larger than the work: fold in place then.
  const auto [lo, span] = sink_entry_range(tp);
  if (span > tp.size)
    return false;
  tp.moment_lo = lo;
  tp.moment_span = span;
  tp.moment_row = select_moment_row(tp.result_dtype);
  tp.strategies |= moment_columns;
  return true;
}

void MomentColumnsRun::begin(const TileProgram& tp, const BlockBinding& b) {
  thread_local std::vector<double> scratch;
  row_ = tp.moment_row;
  wide_ = tp.wide && tp.result_dtype == DType::float64 ? tp.wide->moments_row_f64 : nullptr;
  result_size_ = dtype_size(tp.result_dtype);
  span = tp.moment_span;
  lo_ = b.sink_map.base + tp.moment_lo;
  frontier_ = 0;
  // Columns a multiple of 4 KiB apart would make every store to one look like a dependency of
  // the loads from the next (4K aliasing): shift each by 136 bytes more.
  const index_t pitch = span + 17;
  scratch.resize(static_cast<std::size_t>(3 * pitch));
  uniform_counts = wide_ != nullptr && span > 0;
  columns = {scratch.data(), scratch.data() + pitch, scratch.data() + 2 * pitch};
  entries_ = b.partials + lo_ * 3;
  const plan::PartialWord* e = entries_;
  for (index_t k = 0; k < span; ++k) {
    columns.count[k] = e[3 * k].f;
    columns.mean[k] = e[3 * k + 1].f;
    columns.m2[k] = e[3 * k + 2].f;
    uniform_counts = uniform_counts && columns.count[k] == columns.count[0];
  }
  uniform_count = columns.count[0];
}

void MomentColumnsRun::spread_count() {
  if (!uniform_counts)
    return;
  std::fill(columns.count, columns.count + frontier_, uniform_count + 1.0);
  std::fill(columns.count + frontier_, columns.count + span, uniform_count);
  uniform_counts = false;
}

void MomentColumnsRun::fold_counted(const void* values, index_t j, index_t len, index_t at) {
  if (wide_ && len > 0) {
    const index_t done = wide_(static_cast<const double*>(values) + j, len, 0.0, columns.count + at,
                               columns.mean + at, columns.m2 + at);
    j += done;
    at += done;
    len -= done;
  }
  if (len > 0)
    row_(static_cast<const std::byte*>(values) + static_cast<std::size_t>(j) * result_size_, len,
         {columns.count + at, columns.mean + at, columns.m2 + at});
}

void MomentColumnsRun::fold_tile(const TileRuns& runs, const plan::AffineMap& sink_map,
                                 const void* values) {
  runs.each(sink_map, [&](index_t j, index_t offset, index_t, index_t len) {
    index_t at = offset - lo_;
    if (uniform_counts && at == frontier_ && len > 0 && at + len <= span) {
      const index_t done = wide_(static_cast<const double*>(values) + j, len, uniform_count,
                                 nullptr, columns.mean + at, columns.m2 + at);
      frontier_ += done;
      if (frontier_ == span) {
        uniform_count += 1.0;
        frontier_ = 0;
      }
      if (done == len)
        return;
      // The rest goes element by element: give each entry its own count again.
      spread_count();
      j += done;
      at += done;
      len -= done;
    } else {
      spread_count();
    }
    fold_counted(values, j, len, at);
  });
}

void MomentColumnsRun::finish() {
  spread_count();
  plan::PartialWord* e = entries_;
  for (index_t k = 0; k < span; ++k) {
    e[3 * k].f = columns.count[k];
    e[3 * k + 1].f = columns.mean[k];
    e[3 * k + 2].f = columns.m2[k];
  }
}

} // namespace chunked::cpu::strategy
