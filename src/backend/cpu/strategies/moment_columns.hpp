// SPDX-License-Identifier: Apache-2.0
// Strategy moment_columns: var/std folding whole rows into consecutive entries keep the entries
// the block touches as columns (count, mean, M2) while it runs (see cpu::MomentColumns), and
// write them back at the end.
#pragma once

#include "backend/cpu/block_binding.hpp"
#include "backend/cpu/tile_program.hpp"

namespace chunked::cpu::strategy {

/// Whether `tp`, a reduction, takes moment_columns (sets its fields when it does).
bool choose_moment_columns(const plan::BlockProgram& p, TileProgram& tp);

/// The columns of one block's run.
class MomentColumnsRun {
public:
  /// Reads the entries into the columns.
  void begin(const TileProgram& tp, const BlockBinding& b);
  /// Folds one tile's values into the columns.
  void fold_tile(const TileRuns& runs, const plan::AffineMap& sink_map, const void* values);
  /// Values j .. j+len-1 of a run fold into entries at .. at+len-1, each with its own count.
  void fold_counted(const void* values, index_t j, index_t len, index_t at);
  /// Writes the columns back to the entries.
  void finish();

  /// While the rows fold into the entries in order (each row, or its consecutive runs, covering
  /// all of them, as when whole rows of a block fold into one row of entries), the counts are
  /// uniform_count + 1 before `frontier` and uniform_count from there: the wide loop then neither
  /// reads nor writes the count column, which is written once, at the end or when a run breaks
  /// the order.
  bool uniform_counts = false;
  double uniform_count = 0;
  MomentColumns columns{};
  index_t span = 0;

private:
  /// Gives each entry its own count again.
  void spread_count();

  MomentRow row_ = nullptr;
  index_t (*wide_)(const double*, index_t, double, double*, double*, double*) = nullptr;
  plan::PartialWord* entries_ = nullptr;
  index_t lo_ = 0, frontier_ = 0;
  std::size_t result_size_ = 0;
};

} // namespace chunked::cpu::strategy
