// SPDX-License-Identifier: Apache-2.0
// Reductions: a stage of partial tasks over the input's grid (cut along the reduced axes only),
// and per output block a fixed combine tree of them (reduction_tree.hpp).
#include "planner.hpp"
#include "reduction_tree.hpp"

#include "core/checked.hpp"
#include "plan/partial.hpp"

#include <algorithm>
#include <vector>

namespace chunked::plan::detail {

namespace {

/// Values a task folds per word of its partial state, at least, where the state is large (an
/// exact sum's 75 words per kept element): a task that folds fewer spends more on its partials
/// (made, written, combined) than on its values (benchmarks/RESULTS.md, exact column sums).
constexpr index_t values_per_partial_word = 32;
/// The least an exact sum's task folds per word where that gives every thread a task (the
/// partials cost a quarter of the values then, against idle threads otherwise).
constexpr index_t min_values_per_partial_word = 8;

/// The task split of a reduction `op` of `dtype` values over `grid` along the axes in `mask`:
/// the planner's, with tasks kept large enough for their partials where those are large.
TaskSplit split_for(const TaskSplit& planner, const ChunkGrid& grid, std::uint32_t mask,
                    ReduceOp op, DType dtype) {
  TaskSplit split = planner;
  const int words = partial_layout(op, dtype).words;
  if (words <= 3)
    return split;
  index_t kept = 1; // kept elements of the largest block
  const index_t elements = grid.shape().size();
  for (index_t k = 0; k < grid.ndim(); ++k) {
    const auto& lengths = grid.lengths(k);
    if (((mask >> k) & 1u) == 0)
      kept *= lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  }
  index_t least = kept * words * values_per_partial_word;
  // Exact sums give the same bits for any split: where the threads are known, a task per
  // thread rather than idle threads.
  if (ops::reduce_accumulator(op) == ops::Accumulator::exact && planner.workers > 1)
    least = std::max(kept * words * min_values_per_partial_word,
                     std::min(least, elements / planner.workers));
  split.min_task_elements = std::max(split.min_task_elements, least);
  return split;
}

} // namespace

std::vector<InputRef> Planner::plan_reduce(const graph::NodePtr& n, Body body) {
  const auto& p = n->as<graph::ReduceParams>();
  const graph::NodePtr& in = n->inputs[0];
  Combine comb;
  comb.op = p.op;
  comb.result = p.op;
  comb.input = in->dtype;
  comb.ddof = p.ddof;
  comb.count = 1;
  for (index_t a : p.axes)
    comb.count *= in->shape.extents()[a];
  if (std::vector<TaskId>* moments = shared_moments(*n))
    return plan_from_moments(n, std::move(body), comb, *moments);
  std::vector<InputRef> refs;
  for (TaskId root :
       plan_reduce_tree(in, std::move(body), p, axes_mask(p.axes), n->dtype, comb, true))
    refs.push_back(InputRef{InputRef::Kind::task, root, nullptr});
  return refs;
}

std::vector<TaskId> Planner::plan_reduce_tree(const graph::NodePtr& in, Body body,
                                              const graph::ReduceParams& p, std::uint32_t mask,
                                              DType result_dtype, Combine comb, bool final) {
  const int nd = static_cast<int>(in->shape.ndim());
  body.prog.sink.kind = Sink::Kind::reduce;
  body.prog.sink.op = p.op;
  body.prog.sink.reduced_axes = mask;
  // Cutting reduced axes only: the kept axes, and so the output blocks, stay the input's.
  const ChunkGrid grid =
      split_for_tasks(in->grid, mask, split_for(split_, in->grid, mask, p.op, in->dtype));
  // A task per box of the grid, and fewer combines than that.
  expect_tasks(*in, grid, 2);
  const std::uint32_t stage = add_stage(std::move(body), grid);
  mark_cut(stage, grid, in->grid);
  plan.stages[stage].reduce_flat_index = p.flat_index;
  plan.stages[stage].reduce_input_strides = in->shape.strides();

  plan.combines.push_back(comb);
  const auto comb_index = static_cast<std::uint32_t>(plan.combines.size() - 1);

  // Input blocks grouped by output block: kept-axis block indices select the group, reduced-axis
  // block indices (C order) order its members.
  const auto per_axis = grid.blocks_per_axis();
  std::vector<index_t> kept_blocks, red_blocks;
  for (int k = 0; k < nd; ++k)
    ((mask >> k) & 1u ? red_blocks : kept_blocks).push_back(per_axis[k]);
  const index_t n_groups = c_order(kept_blocks).elements;
  const index_t n_members = c_order(red_blocks).elements;
  // A block alone along the reduced axes is its result's only partial: its task finalizes it,
  // as the combine would have (a combine of one partial is that partial), saving a task per block.
  const bool finalizes = final && n_members == 1;
  if (finalizes)
    plan.stages[stage].finalize = static_cast<std::int32_t>(comb_index);

  std::vector<TaskId> roots;
  std::vector<index_t> kept(kept_blocks.size()), red(red_blocks.size());
  std::vector<index_t> bidx(static_cast<std::size_t>(nd));
  for (index_t g = 0; g < n_groups; ++g) {
    unflatten(g, kept_blocks, kept);
    index_t entries = 1;
    for (int k = 0, kk = 0; k < nd; ++k)
      if (!((mask >> k) & 1u))
        entries *= grid.lengths(k)[kept[kk++]];
    // Backends allocate entries * words * 8 bytes per partial: refuse a count that wraps.
    (void)chunked::detail::checked_mul(
        entries, index_t{8} * partial_layout(p.op, in->dtype).words,
        "the partial states of one block, in bytes (use smaller chunks)");
    const Output partial{Output::Kind::partial, in->dtype, entries, -1};
    auto member_task = [&](index_t member, const Output& output) {
      unflatten(member, red_blocks, red);
      for (int k = 0, kk = 0, rr = 0; k < nd; ++k)
        bidx[k] = (mask >> k) & 1u ? red[rr++] : kept[kk++];
      return add_program_task(stage, grid.block_number(bidx), output);
    };
    auto partial_task = [&](index_t member) { return member_task(member, partial); };
    auto combine_task = [&](const std::vector<TaskId>& parts, bool root) {
      return add_combine_task(
          comb_index, g, parts,
          root && final ? Output{Output::Kind::buffer, result_dtype, entries, -1} : partial);
    };
    if (finalizes) {
      roots.push_back(member_task(0, Output{Output::Kind::buffer, result_dtype, entries, -1}));
      continue;
    }
    roots.push_back(build_combine_tree(n_members, static_cast<index_t>(combine_fanin), partial_task,
                                       combine_task));
  }
  // A result combined from several blocks ends a pass over its input (block_ref).
  if (n_members > 1)
    ++passes_;
  return roots;
}

} // namespace chunked::plan::detail
