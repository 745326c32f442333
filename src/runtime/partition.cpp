// SPDX-License-Identifier: Apache-2.0
// partition_tasks: the fixed partition of a plan's tasks (partition.hpp).
#include "runtime/partition.hpp"
#include "runtime/plan_executor.hpp"

#include <algorithm>

namespace chunked::runtime {

namespace {

int part_of_block(index_t block, index_t blocks, int parts) {
  return static_cast<int>(block * parts / std::max<index_t>(blocks, 1));
}

/// The part of a task placed by its block number, or -1 for a task that follows its input.
int part_by_block(const plan::Plan& plan, const plan::Task& task, int parts) {
  switch (task.kind) {
  case plan::TaskKind::program: {
    const plan::Stage& stage = plan.stages[task.index];
    if (stage.cut)
      return part_of_block(block_of_cut_box(stage, task.block), stage.blocks.numblocks(), parts);
    return part_of_block(task.block, stage.grid.numblocks(), parts);
  }
  case plan::TaskKind::load:
    return part_of_block(task.block, plan.loads[task.index].grid.numblocks(), parts);
  case plan::TaskKind::write:
    return part_of_block(task.block, plan.writes[task.index].grid.numblocks(), parts);
  case plan::TaskKind::product: // every term of a block where the block is: its sum stays there
    return part_of_block(
        task.block, plan.products[plan.product_terms[task.index].stage].grid.numblocks(), parts);
  default:
    return -1;
  }
}

} // namespace

index_t block_of_cut_box(const plan::Stage& stage, index_t box) {
  const auto origin = stage.grid.block_offset(stage.grid.block_index(box));
  index_t block = 0;
  for (std::size_t k = 0; k < origin.size(); ++k)
    block = block * static_cast<index_t>(stage.blocks.lengths(static_cast<index_t>(k)).size()) +
            stage.blocks.block_containing(static_cast<index_t>(k), origin[k]);
  return block;
}

std::vector<int> partition_tasks(const plan::Plan& plan, int parts) {
  const std::size_t n = plan.tasks.size();
  std::vector<int> part(n, 0);
  if (parts <= 1)
    return part;
  for (std::size_t t = 0; t < n; ++t) {
    int p = part_by_block(plan, plan.tasks[t], parts);
    if (p < 0)
      for_each_input(plan, t, [&](const plan::InputRef& ref) {
        if (p < 0 && ref.kind == plan::InputRef::Kind::task)
          p = part[ref.task];
      });
    if (p < 0 && plan.tasks[t].kind == plan::TaskKind::join && !plan.deps[t].empty())
      p = part[plan.deps[t].front()]; // its pieces wrote its buffer
    part[t] = std::clamp(p, 0, parts - 1);
  }
  // A copy of a finalized reduction into a destination goes where the reduction is finalized.
  const auto consumers = consumer_lists(plan);
  plan::BlockProgram copy;
  for (std::size_t t = 0; t < n; ++t)
    if (plan::finalizing_combine(plan, plan.tasks[t]))
      if (const auto to = destination_copy(plan, static_cast<plan::TaskId>(t), consumers[t], copy))
        part[*to] = part[t];
  return part;
}

} // namespace chunked::runtime
