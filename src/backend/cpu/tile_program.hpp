// SPDX-License-Identifier: Apache-2.0
// The CPU tile interpreter in two parts: compile() turns a BlockProgram into a TileProgram (buffer
// planning, loop choice, fusion, choice of strategy), which depends only on the program's
// structure (tile_program_key); run() executes it over one block, whose per-block values (map
// bases, constants, seeds, input and output pointers) it reads from the BlockProgram.
#pragma once

#include "plan/block_program.hpp"
#include <chunked/core/dtype.hpp>
#include <chunked/core/types.hpp>

#include "backend/cpu/instr_kernels.hpp"
#include "backend/cpu/interpreter_simd.hpp"
#include "backend/cpu/tile_geometry.hpp"
#include "backend/cpu/tile_leaves.hpp"
#include "backend/cpu/tile_sinks.hpp"

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace chunked::cpu {

/// The fast paths a TileProgram may take besides the general tile loop (each is described, chosen
/// and run in strategies/<name>.cpp); bits of TileProgram::strategies.
enum Strategy : unsigned {
  copy_runs = 1u << 0,      ///< a store of a stored leaf: runs copied from input to output
  stream_store = 1u << 1,   ///< a large contiguous store with non-temporal stores
  direct_store = 1u << 2,   ///< the last instruction writes the output itself
  sum_rows = 1u << 3,       ///< kept-axis float64 sums and means folded row by row
  moment_columns = 1u << 4, ///< kept-axis var/std folded into columns of states
  row_block_fold = 1u << 5, ///< rows folded rows_at_once at a time, states in registers
  exact_columns = 1u << 6,  ///< kept-axis exact sums folded through columns of windows
};

/// A leaf filled in every tile.
struct LeafStep {
  LeafFill fill;
  int leaf;
  int slot;
  std::size_t elem_size;
  /// A stored leaf read contiguously: a tile that is one run is read from the input itself. Only
  /// for the program's result or with the wide loops: the baseline (SSE2) loops stream from
  /// memory slower than memcpy does, so they read tile buffers.
  bool in_place;
  /// in_place, and the map lays the box out in C order: every tile, of however many runs, is
  /// then one stretch of the input (x.sum(Axes{1}) of a stored block, whose sink cuts each tile
  /// into rows, reads its rows where they are instead of copying them into the tile buffer).
  bool dense;
};

/// A leaf filled once per block: a constant, or a leaf invariant from tile to tile.
struct PrologueLeaf {
  int leaf;
  int slot;
  InvariantLeaf invariant; ///< period 0 for a constant
  LeafFill fill;
};

struct InstrStep {
  InstrKernel kernel;
  int args[3];
  int slot;
  int value;
  /// The same loop writing to memory with non-temporal stores, for the float64 add, sub, mul and
  /// div of the wide loops and their fused pairs; null for the others.
  InstrKernel stream = nullptr;
  /// >= 0: the step calls BlockProgram::functions[call]'s CPU loop (kernel is null).
  int call = -1;
};

/// A BlockProgram compiled for the tile loop: valid for every program with the same
/// tile_program_key.
struct TileProgram {
  const detail::InterpreterKernels* wide = nullptr; ///< null: the baseline loops
  DType result_dtype = DType::float64;
  bool reduce = false;
  index_t size = 0; ///< positions in the box; 0: nothing to run
  index_t tile = 0; ///< positions per tile
  int num_values = 0;
  int result = 0; ///< the result's value number
  Geometry geometry;
  /// Normalized coefficients (geometry's axes) of each leaf's map, of the sink's and the index
  /// map's; run() pairs them with the block's bases.
  std::vector<plan::AffineMap> leaf_maps;
  plan::AffineMap sink_map, index_map;

  int num_slots = 0;
  int index_slot = -1;         ///< argmin/argmax: the slot of the tile's indices
  std::vector<int> value_slot; ///< per value, -1 when it is never computed
  std::vector<PrologueLeaf> prologue;
  std::vector<LeafStep> leaf_steps;
  std::vector<InstrStep> instr_steps;
  StoreTile store = nullptr;
  ReduceTile reduce_tile = nullptr;
  bool all_reduced = true;

  unsigned strategies = 0;             ///< Strategy bits
  int copied_step = -1;                ///< copy_runs: the leaf step copied
  int direct_leaf_step = -1;           ///< the leaf step whose value is the result, if any
  InstrKernel stream_result = nullptr; ///< stream_store: the last instruction, streamed
  /// moment_columns: the first entry (relative to the sink map's base) and how many entries.
  index_t moment_lo = 0, moment_span = 0;
  MomentRow moment_row = nullptr;
  /// exact_columns: the first entry (relative to the sink map's base) and how many entries.
  index_t exact_lo = 0, exact_span = 0;
  /// sum_rows: the row loop, and the add/sub/mul/div folded into it with its operands.
  void (*sum_row)(const double*, index_t, double*) = nullptr;
  detail::InterpreterKernels::SumBinaryRow sum_binary_row = nullptr;
  int sum_operands[2] = {0, 0};
  /// row_block_fold: which rows loop (sums, extremes of kind Max, moments).
  enum class RowFold : std::uint8_t { none, sums, extremes, moments } row_fold = RowFold::none;
  bool row_fold_max = false;

  bool has(Strategy s) const { return (strategies & s) != 0; }
};

/// The partial entries a block's sink reaches, relative to the sink map's base: the first and
/// how many (the strategies that hold them as columns use it).
inline std::pair<index_t, index_t> sink_entry_range(const TileProgram& tp) {
  index_t lo = 0, hi = 0;
  for (int k = 0; k < tp.geometry.ndim; ++k) {
    const index_t reach = tp.sink_map.coef[k] * (tp.geometry.extent[k] - 1);
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi - lo + 1};
}

/// What compile() may choose; tests compile the general tile loop alone to compare against.
struct CompileOptions {
  bool strategies = true;
};

/// Compiles a program that validate_program accepted.
TileProgram compile(const plan::BlockProgram& program, const CompileOptions& options = {});

/// Runs `tp` (compiled from a program with the same key as `program`) over `program`'s block:
/// run_program's contract.
void run(const TileProgram& tp, const plan::BlockProgram& program,
         std::span<const void* const> inputs, void* output);

} // namespace chunked::cpu
