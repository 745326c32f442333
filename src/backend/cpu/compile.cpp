// SPDX-License-Identifier: Apache-2.0
// compile(): a BlockProgram's buffers, loops and strategy, worked out once per structure (see
// tile_program.hpp).
#include "backend/cpu/strategies/strategies.hpp"
#include "backend/cpu/tile_program.hpp"

#include "backend/cpu/interpreter.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>

namespace chunked::cpu {

using plan::BlockProgram;
using plan::Instr;
using plan::LeafKind;

namespace {

/// Tiles and map normal forms. Leaves that read the same values in every tile, when tiles hold
/// whole periods, are filled once per block: tiles are then made a multiple of the longest
/// period (periods are products of inner extents, so each divides the longer ones). Their maps
/// are left out of the normal form, which the tile loop never reads them through: without them
/// the other maps often merge into one contiguous row.
std::vector<InvariantLeaf> plan_geometry(const BlockProgram& p, TileProgram& tp) {
  const int nl = static_cast<int>(p.leaves.size());
  std::vector<InvariantLeaf> invariant(nl);
  index_t longest_period = 0;
  tp.tile = tile_elements;
  for (int l = 0; l < nl; ++l) {
    const InvariantLeaf inv = invariant_period(p, p.leaves[l]);
    if (inv.period > 0 && inv.period <= tile_elements && inv.period < tp.size) {
      invariant[l] = inv;
      longest_period = std::max(longest_period, inv.period);
    }
  }
  if (longest_period > 0)
    tp.tile = tile_elements / longest_period * longest_period;

  tp.leaf_maps.resize(nl);
  for (int l = 0; l < nl; ++l)
    tp.leaf_maps[l] = p.leaves[l].map;
  tp.sink_map = p.sink.map;
  tp.index_map = p.sink.index_map;
  std::vector<plan::AffineMap*> maps{&tp.sink_map};
  if (p.sink.kind == plan::Sink::Kind::reduce &&
      (p.sink.op == plan::ReduceOp::argmin || p.sink.op == plan::ReduceOp::argmax))
    maps.push_back(&tp.index_map);
  for (int l = 0; l < nl; ++l)
    if (p.leaves[l].kind != LeafKind::constant && invariant[l].period == 0)
      maps.push_back(&tp.leaf_maps[l]);
  tp.geometry = normalize(p, maps);
  return invariant;
}

/// Liveness: only values that reach the result are computed; a value's buffer is free again
/// after its last reader (constants and invariant leaves keep theirs: they are filled once).
/// Returns each value's last reader (-1: never read, INT_MAX: kept to the end).
std::vector<int> plan_slots(const BlockProgram& p, const std::vector<InvariantLeaf>& invariant,
                            bool want_index, TileProgram& tp) {
  const int nl = static_cast<int>(p.leaves.size());
  const int nv = tp.num_values;
  constexpr int forever = INT_MAX;
  std::vector<int> last_use(nv, -1);
  last_use[tp.result] = forever;
  for (int v = nv - 1; v >= nl; --v) {
    if (last_use[v] < 0)
      continue;
    const Instr& in = p.instrs[v - nl];
    for (int a = 0; a < in.arity(); ++a)
      last_use[in.args[a]] = std::max(last_use[in.args[a]], v);
  }
  for (int l = 0; l < nl; ++l)
    if (last_use[l] >= 0 && (p.leaves[l].kind == LeafKind::constant || invariant[l].period > 0))
      last_use[l] = forever;

  std::vector<int>& slot = tp.value_slot;
  slot.assign(nv, -1);
  std::vector<int> free_slots;
  auto take = [&] {
    if (free_slots.empty())
      return tp.num_slots++;
    const int s = free_slots.back();
    free_slots.pop_back();
    return s;
  };
  for (int l = 0; l < nl; ++l)
    if (last_use[l] >= 0)
      slot[l] = take();
  for (int v = nl; v < nv; ++v) {
    if (last_use[v] < 0)
      continue;
    slot[v] = take();
    const Instr& in = p.instrs[v - nl];
    for (int a = 0; a < in.arity(); ++a) {
      const int arg = in.args[a];
      if (last_use[arg] == v && slot[arg] >= 0 &&
          std::find(free_slots.begin(), free_slots.end(), slot[arg]) == free_slots.end())
        free_slots.push_back(slot[arg]);
    }
  }
  tp.index_slot = want_index ? tp.num_slots++ : -1;
  return last_use;
}

/// The leaf steps (filled per tile) and prologue leaves (per block) of the live leaves.
void plan_leaves(const BlockProgram& p, const std::vector<InvariantLeaf>& invariant,
                 TileProgram& tp) {
  const Geometry& g = tp.geometry;
  for (int l = 0; l < static_cast<int>(p.leaves.size()); ++l) {
    const int s = tp.value_slot[l];
    if (s < 0)
      continue;
    const plan::Leaf& leaf = p.leaves[l];
    if (leaf.kind == LeafKind::constant || invariant[l].period > 0) {
      tp.prologue.push_back({l, s, invariant[l], select_fill(leaf.kind, leaf.dtype)});
      continue;
    }
    const bool stored = leaf.kind == LeafKind::stored;
    const bool in_place =
        stored && (l == tp.result || tp.wide) && tp.leaf_maps[l].coef[g.ndim - 1] == 1;
    tp.leaf_steps.push_back({select_fill(leaf.kind, leaf.dtype), l, s, dtype_size(leaf.dtype),
                             in_place, in_place && c_order(tp.leaf_maps[l], g)});
  }
}

bool is_constant(const BlockProgram& p, int v) {
  return v < static_cast<int>(p.leaves.size()) && p.leaves[v].kind == LeafKind::constant;
}

void plan_instrs(const BlockProgram& p, TileProgram& tp) {
  const int nl = static_cast<int>(p.leaves.size());
  const detail::InterpreterKernels* wide = tp.wide;
  for (int v = nl; v < tp.num_values; ++v) {
    if (tp.value_slot[v] < 0)
      continue;
    const Instr& in = p.instrs[v - nl];
    if (in.call >= 0) {
      // A user function's CPU loop, called per tile by run() (InstrStep::call).
      InstrStep step{nullptr, {0, 0, 0}, tp.value_slot[v], v};
      step.call = static_cast<int>(static_cast<unsigned char>(in.call)); // in.call >= 0 here
      for (int a = 0; a < in.call_arity; ++a)
        step.args[a] = in.args[a];
      tp.instr_steps.push_back(step);
      continue;
    }
    const int arity = plan::opcode_arity(in.op);
    const unsigned scalars =
        arity == 2 ? detail::scalar_operands(is_constant(p, in.args[0]), is_constant(p, in.args[1]))
                   : 0;
    InstrStep step{
        select_kernel(in.op, p.value_dtype(in.args[arity == 3 ? 1 : 0]), in.dtype, wide, scalars),
        {0, 0, 0},
        tp.value_slot[v],
        v};
    for (int a = 0; a < arity; ++a)
      step.args[a] = in.args[a];
    if (const int a = arithmetic_index(in.op);
        wide && a >= 0 && p.value_dtype(in.args[0]) == DType::float64)
      step.stream = wide->binary_stream_f64[a * 4 + scalars];
    tp.instr_steps.push_back(step);
  }
}

/// Two float64 add/sub/mul/div in a row, the first's value read by the second alone: one pass of
/// the wide loops, the intermediate kept in registers rather than written to a tile buffer and
/// read back. A reduction's last instruction is left for the sum rows, which fold it themselves.
void fuse_pairs(const BlockProgram& p, const std::vector<int>& last_use, TileProgram& tp) {
  const detail::InterpreterKernels* wide = tp.wide;
  if (!wide)
    return;
  const int nl = static_cast<int>(p.leaves.size());
  auto is_f64 = [&](int v) { return p.value_dtype(v) == DType::float64; };
  std::vector<InstrStep>& steps = tp.instr_steps;
  for (std::size_t k = 0; k + 1 < steps.size(); ++k) {
    const InstrStep& first = steps[k];
    const InstrStep& second = steps[k + 1];
    const Instr& i1 = p.instrs[static_cast<std::size_t>(first.value - nl)];
    const Instr& i2 = p.instrs[static_cast<std::size_t>(second.value - nl)];
    const int a1 = i1.call < 0 ? arithmetic_index(i1.op) : -1;
    const int a2 = i2.call < 0 ? arithmetic_index(i2.op) : -1;
    const bool left = i2.args[0] == first.value;
    if (a1 < 0 || a2 < 0 || last_use[first.value] != second.value ||
        left == (i2.args[1] == first.value) || (tp.reduce && second.value == tp.result) ||
        !is_f64(first.value) || !is_f64(second.value) || !is_f64(i1.args[0]) ||
        !is_f64(i1.args[1]) || !is_f64(i2.args[left ? 1 : 0]))
      continue;
    const int c = i2.args[left ? 1 : 0];
    const int entry =
        (a1 * 8 + a2 * 2 + (left ? 1 : 0)) * 8 +
        static_cast<int>(detail::scalar_operands(is_constant(p, i1.args[0]),
                                                 is_constant(p, i1.args[1]), is_constant(p, c)));
    const InstrStep pair{wide->binary_pair_f64[entry],
                         {i1.args[0], i1.args[1], c},
                         second.slot,
                         second.value,
                         wide->binary_pair_stream_f64[entry]};
    // The loop then moves past the pair, which is never fused again: its args are not those of
    // the instruction whose value it gives.
    steps[k] = pair;
    steps.erase(steps.begin() + static_cast<std::ptrdiff_t>(k) + 1);
  }
}

} // namespace

TileProgram compile(const BlockProgram& p, const CompileOptions& options) {
  TileProgram tp;
  tp.wide = detail::interpreter_kernels();
  tp.result_dtype = p.result_dtype();
  tp.reduce = p.sink.kind == plan::Sink::Kind::reduce;
  tp.size = p.size();
  if (tp.size == 0)
    return tp;
  tp.num_values = p.num_values();
  tp.result = tp.num_values - 1;
  const bool want_index =
      tp.reduce && (p.sink.op == plan::ReduceOp::argmin || p.sink.op == plan::ReduceOp::argmax);

  const std::vector<InvariantLeaf> invariant = plan_geometry(p, tp);
  const std::vector<int> last_use = plan_slots(p, invariant, want_index, tp);
  plan_leaves(p, invariant, tp);
  plan_instrs(p, tp);
  fuse_pairs(p, last_use, tp);

  if (tp.reduce) {
    tp.reduce_tile = select_reduce(p.sink.op, tp.result_dtype, tp.wide);
    for (int k = 0; k < tp.geometry.ndim; ++k)
      tp.all_reduced = tp.all_reduced && tp.sink_map.coef[k] == 0;
  } else {
    tp.store = select_store(tp.result_dtype);
  }
  const auto direct_leaf = std::find_if(tp.leaf_steps.begin(), tp.leaf_steps.end(),
                                        [&](const LeafStep& s) { return s.leaf == tp.result; });
  if (direct_leaf != tp.leaf_steps.end())
    tp.direct_leaf_step = static_cast<int>(direct_leaf - tp.leaf_steps.begin());
  if (options.strategies)
    strategy::choose(p, tp);
  return tp;
}

} // namespace chunked::cpu
