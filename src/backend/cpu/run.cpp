// SPDX-License-Identifier: Apache-2.0
// run(): the tile loop of a compiled program over one block (see tile_program.hpp).
#include "backend/cpu/block_binding.hpp"
#include "backend/cpu/strategies/strategies.hpp"
#include "backend/cpu/tile_program.hpp"

#include "backend/cpu/interpreter.hpp"
#include "backend/cpu/partials.hpp"
#include <chunked/core/error.hpp>

#include <algorithm>
#include <string>

namespace chunked::cpu {

namespace {

constexpr std::size_t slot_bytes = static_cast<std::size_t>(tile_elements) * 8;

struct alignas(64) CacheLine {
  std::byte bytes[64];
};

/// Tile buffers, reused by every program the thread runs: no allocation per tile, and none per
/// block once the thread has seen its largest program.
std::byte* scratch(std::size_t slots) {
  thread_local std::vector<CacheLine> buffer;
  const std::size_t lines = slots * (slot_bytes / sizeof(CacheLine));
  if (buffer.size() < lines)
    buffer.resize(lines);
  return buffer.data()->bytes;
}

plan::AffineMap with_base(const plan::AffineMap& coefs, index_t base) {
  plan::AffineMap m = coefs;
  m.base = base;
  return m;
}

/// Fills the leaf steps' values of the tile `runs` cuts, or points at them in place.
void fill_leaves(const TileProgram& tp, BlockBinding& b, const TileRuns& runs) {
  for (std::size_t k = 0; k < tp.leaf_steps.size(); ++k) {
    const LeafStep& s = tp.leaf_steps[k];
    const plan::AffineMap& map = b.leaf_maps[static_cast<std::size_t>(s.leaf)];
    if (s.dense || (s.in_place && runs.single())) {
      b.where[static_cast<std::size_t>(s.leaf)] =
          static_cast<const std::byte*>(b.step_input[k]) +
          static_cast<std::size_t>(runs.first_offset(map)) * s.elem_size;
      continue;
    }
    std::byte* const out = b.slot(s.slot);
    b.where[static_cast<std::size_t>(s.leaf)] = out;
    const plan::Leaf& leaf = b.program->leaves[static_cast<std::size_t>(s.leaf)];
    runs.each(map, [&](index_t j, index_t offset, index_t step, index_t len) {
      s.fill(leaf, b.step_input[k], offset, step, len,
             out + static_cast<std::size_t>(j) * s.elem_size);
    });
  }
}

/// Runs the instruction steps over a tile of n positions. Returns true when the last one wrote
/// the output itself (direct_store, stream_store), which leaves the sink nothing to do.
bool compute(const TileProgram& tp, BlockBinding& b, const TileRuns& runs, index_t n) {
  const std::size_t last = tp.instr_steps.size() - 1;
  auto output_at = [&] {
    return static_cast<std::byte*>(b.output) +
           static_cast<std::size_t>(runs.first_offset(b.sink_map)) * dtype_size(tp.result_dtype);
  };
  const bool to_output = tp.has(direct_store) && runs.single();
  if (tp.has(direct_store))
    b.step_out[last] = to_output ? output_at() : b.slot(tp.instr_steps[last].slot);
  const bool stream_to_output = tp.stream_result && runs.single();
  for (std::size_t k = 0; k < tp.instr_steps.size(); ++k) {
    const InstrStep& s = tp.instr_steps[k];
    const void* args[3] = {b.where[static_cast<std::size_t>(s.args[0])],
                           b.where[static_cast<std::size_t>(s.args[1])],
                           b.where[static_cast<std::size_t>(s.args[2])]};
    if (stream_to_output && k == last)
      tp.stream_result(args, output_at(), n);
    else if (s.call >= 0)
      b.program->functions[static_cast<std::size_t>(s.call)]->cpu(b.step_out[k], args, n);
    else
      s.kernel(args, b.step_out[k], n);
  }
  return to_output || stream_to_output;
}

/// Where the tile after this one of n positions reads its inputs laid out in C order (the
/// inputs read in place at b.where). Not the values folded themselves: the fold asks for those a
/// little ahead of where it reads, which measured faster than a tile ahead.
strategy::ExactColumnsRun::Ahead next_inputs(const TileProgram& tp, const BlockBinding& b,
                                             index_t n) {
  strategy::ExactColumnsRun::Ahead a;
  for (const LeafStep& s : tp.leaf_steps)
    if (s.dense && s.leaf != tp.result && a.count < detail::ExactColumns::streams) {
      const auto size = static_cast<index_t>(s.elem_size);
      a.at[a.count] =
          static_cast<const char*>(b.where[static_cast<std::size_t>(s.leaf)]) + n * size;
      a.size[a.count++] = size;
    }
  return a;
}

/// Accumulates a tile's values into the partial entries.
void reduce(const TileProgram& tp, BlockBinding& b, const TileRuns& runs, index_t n,
            const void* values, strategy::MomentColumnsRun* moments,
            strategy::ExactColumnsRun* exact) {
  if (b.index) {
    runs.each(b.index_map, [&](index_t j, index_t offset, index_t step, index_t len) {
      for (index_t k = 0; k < len; ++k)
        b.index[j + k] = offset + k * step;
    });
  }
  if (moments)
    moments->fold_tile(runs, b.sink_map, values);
  else if (exact)
    exact->fold_tile(tp, runs, b.sink_map, values, next_inputs(tp, b, n));
  else if (tp.has(sum_rows))
    strategy::sum_tile(tp, b, runs, values);
  else
    tp.reduce_tile(runs, b.sink_map, tp.all_reduced, n, values, b.index, b.partials);
}

} // namespace

std::byte* BlockBinding::slot(int s) const {
  return slots + static_cast<std::size_t>(s) * slot_bytes;
}

void BlockBinding::bind(const TileProgram& tp, const plan::BlockProgram& p,
                        std::span<const void* const> inputs, void* out) {
  program = &p;
  output = out;
  partials = static_cast<plan::PartialWord*>(out);
  slots = scratch(static_cast<std::size_t>(tp.num_slots));
  index = tp.index_slot >= 0 ? reinterpret_cast<index_t*>(slot(tp.index_slot)) : nullptr;
  const std::size_t nl = p.leaves.size();
  leaf_maps.resize(nl);
  for (std::size_t l = 0; l < nl; ++l)
    leaf_maps[l] = with_base(tp.leaf_maps[l], p.leaves[l].map.base);
  sink_map = with_base(tp.sink_map, p.sink.map.base);
  index_map = with_base(tp.index_map, p.sink.index_map.base);
  where.assign(static_cast<std::size_t>(tp.num_values), nullptr);
  for (int v = 0; v < tp.num_values; ++v)
    if (tp.value_slot[static_cast<std::size_t>(v)] >= 0)
      where[static_cast<std::size_t>(v)] = slot(tp.value_slot[static_cast<std::size_t>(v)]);
  auto input_of = [&](int l) -> const void* {
    const plan::Leaf& leaf = p.leaves[static_cast<std::size_t>(l)];
    if (leaf.kind != plan::LeafKind::stored)
      return nullptr;
    if (inputs[static_cast<std::size_t>(leaf.input)] == nullptr)
      throw ValueError("cpu::run_program: malformed block program (stored leaf input " +
                       std::to_string(leaf.input) + " is a null pointer):\n" + p.describe());
    return inputs[static_cast<std::size_t>(leaf.input)];
  };
  for (const PrologueLeaf& pl : tp.prologue) {
    const plan::Leaf& leaf = p.leaves[static_cast<std::size_t>(pl.leaf)];
    // Tiles hold at most min(tile, size) positions: a small block fills no more.
    if (pl.invariant.period == 0)
      fill_constant(leaf, slot(pl.slot), std::min(tp.tile, tp.size));
    else
      fill_invariant(p, leaf, pl.invariant, pl.fill, input_of(pl.leaf), slot(pl.slot),
                     dtype_size(leaf.dtype), std::min(tp.tile, tp.size));
  }
  step_input.resize(tp.leaf_steps.size());
  for (std::size_t k = 0; k < tp.leaf_steps.size(); ++k)
    step_input[k] = input_of(tp.leaf_steps[k].leaf);
  step_out.resize(tp.instr_steps.size());
  for (std::size_t k = 0; k < tp.instr_steps.size(); ++k)
    step_out[k] = slot(tp.instr_steps[k].slot);
}

void run(const TileProgram& tp, const plan::BlockProgram& p, std::span<const void* const> inputs,
         void* output) {
  if (tp.reduce)
    init_partials(p.sink.op, tp.result_dtype, static_cast<plan::PartialWord*>(output),
                  p.sink.num_partials);
  if (tp.size == 0)
    return;
  thread_local BlockBinding b;
  thread_local TileRuns runs;
  b.bind(tp, p, inputs, output);
  if (tp.has(copy_runs)) {
    strategy::run_copy_runs(tp, b, runs);
    return;
  }
  thread_local strategy::MomentColumnsRun moment_run;
  strategy::MomentColumnsRun* moments = nullptr;
  if (tp.has(moment_columns)) {
    moment_run.begin(tp, b);
    moments = &moment_run;
  }
  thread_local strategy::ExactColumnsRun exact_run;
  strategy::ExactColumnsRun* exact = nullptr;
  if (tp.has(exact_columns)) {
    exact_run.begin(tp, b);
    exact = &exact_run;
  }
  const index_t first = tp.has(row_block_fold) ? strategy::fold_row_blocks(tp, b, moments) : 0;
  for (index_t t0 = first; t0 < tp.size; t0 += tp.tile) {
    const index_t n = std::min(tp.tile, tp.size - t0);
    runs.cut(tp.geometry, t0, n);
    fill_leaves(tp, b, runs);
    if (!tp.instr_steps.empty() && compute(tp, b, runs, n))
      continue;
    const void* values = b.where[static_cast<std::size_t>(tp.result)];
    if (tp.reduce)
      reduce(tp, b, runs, n, values, moments, exact);
    else if (tp.has(stream_store))
      strategy::stream_tile(tp, b, runs, values);
    else
      tp.store(runs, b.sink_map, values, output);
  }
  if (moments)
    moments->finish();
  if (exact)
    exact->finish();
}

} // namespace chunked::cpu
