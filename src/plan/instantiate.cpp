// SPDX-License-Identifier: Apache-2.0
// The run-time half of a plan: the program of one task for its block, which executors ask for
// just before they run it (Plan::instantiate), and the work a task counts for progress rates.
#include "index_maps.hpp"

#include "plan/plan.hpp"

#include <array>

namespace chunked::plan {

namespace {

/// The sink's maps for the task's box at `origin`: where a store writes (the destination, the
/// piece's block or the task's own buffer) or which partial entry a reduction folds into.
void instantiate_sink(const Plan& plan, const Stage& st, const Task& task,
                      const std::array<index_t, max_ndim>& origin, BlockProgram& out) {
  const int nd = out.ndim;
  Sink& sink = out.sink;
  const std::span<const index_t> extent(out.extent.data(), static_cast<std::size_t>(nd));
  if (sink.kind == Sink::Kind::store) {
    if (task.output.kind == Output::Kind::destination) {
      const Shape& shape = plan.destinations[task.output.destination].shape;
      sink.map = shifted(c_order(shape.extents()).map, origin, nd);
    } else if (task.output.kind == Output::Kind::piece) {
      // C order over the whole block, from the piece's place in it.
      std::array<index_t, max_ndim> in_block{};
      for (int k = 0; k < nd; ++k)
        in_block[k] = origin[k] - task.output.origin[k];
      const std::span<const index_t> block(task.output.extent.data(), extent.size());
      sink.map = shifted(c_order(block).map, in_block, nd);
    } else {
      sink.map = c_order(extent).map;
    }
    return;
  }
  // Reduce: entries laid out in C order over the kept axes of this block.
  const Layout entries = c_order(extent, sink.reduced_axes);
  sink.map = entries.map;
  sink.num_partials = entries.elements;
  sink.index_map = AffineMap{};
  if (sink.op == ReduceOp::argmin || sink.op == ReduceOp::argmax) {
    // The flat index over the reduction's input, or the position along the reduced axis.
    for (int k = 0; k < nd; ++k)
      if (st.reduce_flat_index || (sink.reduced_axes >> k) & 1u)
        sink.index_map.coef[k] = st.reduce_flat_index ? st.reduce_input_strides[k] : 1;
    sink.index_map = shifted(sink.index_map, origin, nd);
  }
}

} // namespace

void Plan::instantiate(TaskId id, BlockProgram& out) const {
  const Task& task = tasks[id];
  const Stage& st = stages[task.index];
  out = st.program;
  const int nd = out.ndim;
  std::array<index_t, max_ndim> origin{};
  block_box(st.grid, task.block, nd, origin, out.extent);
  for (auto& leaf : out.leaves)
    if (leaf.kind != LeafKind::stored && leaf.kind != LeafKind::constant)
      leaf.map = shifted(leaf.map, origin, nd);
  for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
    out.leaves[inputs[j].leaf].map = inputs[j].map;
  instantiate_sink(*this, st, task, origin, out);
}

std::uint64_t Plan::work_bytes(TaskId id) const {
  const Task& task = tasks[id];
  if (task.kind != TaskKind::program)
    return 0;
  const Stage& st = stages[task.index];
  std::array<index_t, max_ndim> origin{}, extent{};
  block_box(st.grid, task.block, st.program.ndim, origin, extent);
  index_t elements = 1;
  for (int k = 0; k < st.program.ndim; ++k)
    elements *= extent[k];
  return static_cast<std::uint64_t>(elements) * dtype_size(st.program.result_dtype());
}

} // namespace chunked::plan
