// SPDX-License-Identifier: Apache-2.0
// Wide-vector loops of the CPU tile interpreter, chosen at run time on the CPU found.
#pragma once

#include "plan/block_program.hpp"
#include <chunked/core/dtype.hpp>
#include <chunked/core/types.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace chunked::cpu::detail {

/// Loops compiled for a wider instruction set than the library's baseline. Each does exactly the
/// IEEE operations of its baseline counterpart (instr_loops.hpp, tile_reduce.hpp) in the same
/// order (no contraction into fma), so results are the same bits; only which NaN two meeting
/// NaNs give may differ, as operand order allows.
/// Columns of windows over exact entries (strategies/exact_columns.hpp): per column its
/// window's limit 2^A (0 before it has one; its splitters follow from its bits) and its three
/// bins, from the first column a run folds into.
struct ExactColumns {
  const double* limit;
  double* b0;
  double* b1;
  double* b2;
  /// Memory the fold asks for while it works, which is compute-bound: the inputs of the next
  /// tile, where the tile loop will read them (or the values folded, a little ahead). Value k
  /// of the run asks for ahead[s] + k * ahead_size[s], s < ahead_count.
  static constexpr int streams = 3;
  const char* ahead[streams];
  index_t ahead_size[streams];
  int ahead_count;
};

struct InterpreterKernels {
  using Binary = void (*)(const void* const* args, void* out, index_t n);
  /// r[j] = a[j] op b[j] for add, sub, mul, div, float64 then float32: entry op * 4 + scalars
  /// (op in that order; see scalar_operands).
  const Binary* binary_f64;
  const Binary* binary_f32;
  /// f[k] += x[k]: kept-axis sum and mean rows of float64 values.
  void (*sum_row_f64)(const double* x, index_t n, double* f);
  /// f[k] += a[k] op b[k] for add, sub, mul, div: the program's last instruction folded straight
  /// into kept-axis sum rows (two roundings, as the separate loops do), so its values never go
  /// through a tile buffer.
  using SumBinaryRow = void (*)(const double* a, const double* b, index_t n, double* f);
  SumBinaryRow sum_binary_row_f64[4];
  /// cpu::moments_row<double> on columns (count, mean, m2) for a leading part of the row: returns
  /// how many entries it folded, stopping before a block that holds an entry whose count differs
  /// from the first's or whose value or state is not finite; the baseline loop folds the rest.
  /// With count null, every entry has seen `na` elements and only mean and m2 are read and
  /// written (the caller adds one to its single count when the whole row is folded).
  index_t (*moments_row_f64)(const double* x, index_t n, double na, double* count, double* mean,
                             double* m2);
  /// f[k] += rows[0][k], then rows[1][k], ... for rows_at_once rows: sum_row_f64 of each row in
  /// turn, with f[k] held in a register between them.
  void (*sum_rows_f64)(const double* const* rows, index_t n, double* f);
  /// moments_row_f64 without counts for rows_at_once consecutive rows, rows[0] first: each
  /// entry takes the rows in order with the same operations, its mean and m2 held in registers
  /// between them rather than stored and reloaded per row. Returns how many entries took every
  /// row, stopping before a block where some row's value or the state is not finite.
  index_t (*moments_rows_f64)(const double* const* rows, index_t n, double na, double* mean,
                              double* m2);
  /// Two float64 add/sub/mul/div in one pass: entry (op1 * 8 + op2 * 2 + left) * 8 + scalars
  /// computes r = (a op1 b) op2 c when left is 1 and r = c op2 (a op1 b) when it is 0, from args
  /// {a, b, c}; each operation rounds as the single loops do.
  const Binary* binary_pair_f64;
  /// binary_f64 and binary_pair_f64 writing their result with non-temporal stores (see
  /// stream_copy), fenced before returning: a large output computed and sent to memory in one
  /// pass. Same entries.
  const Binary* binary_stream_f64;
  const Binary* binary_pair_stream_f64;
  /// f[k] = maximum(f[k], x[k]) (index 1) or minimum (index 0), NaN-propagating as
  /// scalar::combine_max/min: kept-axis max and min rows of float64 values.
  void (*extreme_row_f64[2])(const double* x, index_t n, double* f);
  /// extreme_row_f64 of rows_at_once rows in turn, rows[0] first, f[k] held in a register
  /// between them.
  void (*extreme_rows_f64[2])(const double* const* rows, index_t n, double* f);
  /// The max (index 1) or min (index 0) of x[0 .. n) into *m, the identity when n is 0, and true;
  /// or false, leaving *m alone, when that extreme is NaN or a zero: which NaN or which zero the
  /// fold in index order gives depends on the order, so the baseline fold decides those.
  bool (*extreme_f64[2])(const double* x, index_t n, double* m);
  /// dst[k] = src[-k] (index 0) or src[2 k] (index 1) for k < len, of 8-byte elements: the
  /// reversed and every-other-element reads of a stored leaf, by whole vectors and a permute.
  /// Never reads outside the elements named.
  void (*gather8[2])(const void* src, void* dst, index_t len);
  /// memcpy with non-temporal stores, which write whole cache lines to memory without first
  /// reading them into the caches as ordinary stores do: for outputs larger than the caches this
  /// saves a third of the traffic. Fenced before returning, so the bytes are ordered before any
  /// later store (another thread may read them once the task that wrote them is done).
  void (*stream_copy)(void* dst, const void* src, std::size_t bytes);
  /// The loop of any instruction (instr_loops.hpp, compiled for this instruction set): `op` on
  /// operands of dtype `operand` giving `result`; null where the op does not take the dtype.
  Binary (*instr)(plan::OpCode op, DType operand, DType result);
  /// exact_segment_lanes (exact_lanes.hpp) of float64 and float32 values into the exact entry w.
  void (*exact_segment_f64)(const double* x, index_t n, std::int64_t* w);
  void (*exact_segment_f32)(const float* x, index_t n, std::int64_t* w);
  /// exact_columns_fold (exact_lanes.hpp) of float64 and float32 values.
  bool (*exact_columns_f64)(const double* x, index_t n, ExactColumns c);
  bool (*exact_columns_f32)(const float* x, index_t n, ExactColumns c);
  /// exact_columns_missed (exact_lanes.hpp) of float64 and float32 values.
  index_t (*exact_missed_f64)(const double* x, index_t n, const double* limit, index_t* missed);
  index_t (*exact_missed_f32)(const float* x, index_t n, const double* limit, index_t* missed);
  /// sum_rows_f64 of `rows` rows of n values, row r at x + r * stride, in order, each entry's
  /// sum held in a register throughout (narrow_rows.hpp); false, doing nothing, unless the row
  /// fits the registers (2 to 48 values with AVX2, 2 to 128 with AVX-512).
  bool (*sum_narrow_f64)(const double* x, index_t stride, index_t rows, index_t n, double* f);
  /// moments_rows_f64 of the same rows: returns how many rows (a multiple of rows_at_once) every
  /// entry took, stopping before a group of rows after which some state is not finite, or -1
  /// (nothing done) unless the row fits the registers (2 to 16 values with AVX2, 2 to 64 with
  /// AVX-512).
  index_t (*moments_narrow_f64)(const double* x, index_t stride, index_t rows, index_t n, double na,
                                double* mean, double* m2);
};

/// The `scalars` part of a binary loop's entry: bit k set when args[k] is a constant, which the
/// loop reads as args[k][0] for every element and holds in a register (a constant's tile buffer
/// read alongside the data costs the loop first-level cache room and load slots).
inline constexpr unsigned scalar_operands(bool a, bool b, bool c = false) {
  return (a ? 1u : 0u) | (b ? 2u : 0u) | (c ? 4u : 0u);
}

/// Rows folded by one sum_rows_f64, extreme_rows_f64 or moments_rows_f64 call.
inline constexpr int rows_at_once = 8;

/// The loops of the instruction set isa::chosen() (read once), or nullptr for the baseline ones.
const InterpreterKernels* interpreter_kernels() noexcept;

} // namespace chunked::cpu::detail
