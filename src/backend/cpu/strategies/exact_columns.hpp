// SPDX-License-Identifier: Apache-2.0
// Strategy exact_columns: exact sums (ComputeOptions::exact_sums) folding rows into consecutive
// entries keep a window per entry the block touches as columns while it runs, and move the
// windows into the entries at the end.
#pragma once

#include "backend/cpu/block_binding.hpp"
#include "backend/cpu/tile_program.hpp"

#include <cstdint>
#include <vector>

namespace chunked::cpu::strategy {

/// Whether `tp`, a reduction, takes exact_columns (sets its fields when it does).
bool choose_exact_columns(const plan::BlockProgram& p, TileProgram& tp);

/// The columns of one block's run. Each column is the window of backend/common/exact_sum.hpp
/// (its limit 2^A, from which its splitters follow, and three bins) over one entry, held in arrays
/// so that a row's values fold into their columns in one vectorised loop: a value takes its
/// column's window when it is finite and below the anchor's bound, which holds for all but a few
/// values of a row; the others (a first value, a larger one, an infinity or a NaN) and the parts a
/// window leaves (values far below the anchor) go to the entries one by one. Every path adds
/// exactly, so the entries end with the same sums whatever went where.
class ExactColumnsRun {
public:
  /// Empty windows over the block's entries.
  void begin(const TileProgram& tp, const BlockBinding& b);
  /// The inputs of the tile after the one folded, where the tile loop will read them: the fold
  /// asks for them while it works (detail::ExactColumns::ahead).
  struct Ahead {
    const char* at[detail::ExactColumns::streams] = {};
    index_t size[detail::ExactColumns::streams] = {};
    int count = 0;
  };
  /// Folds one tile's values into the columns (runs along the rows) or the entries (others).
  void fold_tile(const TileProgram& tp, const TileRuns& runs, const plan::AffineMap& sink_map,
                 const void* values, const Ahead& ahead);
  /// Moves the windows into the entries.
  void finish();

private:
  template <class T>
  void fold_run(const T* x, index_t len, index_t at, const detail::InterpreterKernels* wide,
                const Ahead& ahead, index_t j);
  /// Value v of column c, which its window cannot take as it is; a column without a window
  /// takes one wide enough for magnitudes up to first_at_least too.
  void fold_one(index_t c, double v, double first_at_least);
  /// Moves column c's bins into its entry.
  void settle(index_t c);

  std::vector<double> limit_, b0_, b1_, b2_;
  std::vector<std::int64_t> flags_;
  std::vector<index_t> missed_; ///< the values of a run its windows did not take whole
  plan::PartialWord* entries_ = nullptr;
  index_t lo_ = 0, span_ = 0;
  std::int64_t rows_ = 0; ///< values per column at most since the bins were settled
};

} // namespace chunked::cpu::strategy
