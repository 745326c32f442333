// SPDX-License-Identifier: Apache-2.0
// Blocks outside memory in a plan: the load task of a lazy leaf's block, made when a task first
// reads the block (so a slice loads only the blocks it touches) and shared by the tasks of one
// pass over the leaf, and the write tasks that hand an array's blocks to a sink.
#include "planner.hpp"

#include <algorithm>
#include <vector>

namespace chunked::plan::detail {

namespace {

/// The placeholder of a lazy leaf's block whose load task is not made yet.
constexpr InputRef unloaded{InputRef::Kind::task, ~TaskId{0}, nullptr};

bool is_unloaded(const InputRef& ref) {
  return ref.kind == InputRef::Kind::task && ref.task == unloaded.task;
}

} // namespace

std::vector<InputRef> Planner::plan_source(const graph::Node& n) {
  // Every block might be loaded: refuse arrays of more blocks than a plan can hold up front.
  expect_tasks(n, n.grid, 1);
  return std::vector<InputRef>(static_cast<std::size_t>(n.grid.numblocks()), unloaded);
}

InputRef Planner::block_ref(const graph::Node& src, index_t block) {
  std::vector<InputRef>& refs = blocks_of_.at(&src);
  if (src.kind == graph::NodeKind::source) {
    // A block read before a reduction across blocks and again after it is loaded again: one
    // shared load would keep every block in memory until the reduction ends, and a two-pass
    // program over a file larger than memory (a standardize) could not run.
    auto [pass, added] = load_pass_.try_emplace(&src, passes_);
    if (pass->second != passes_) {
      std::fill(refs.begin(), refs.end(), unloaded);
      pass->second = passes_;
    }
  }
  InputRef& ref = refs[static_cast<std::size_t>(block)];
  if (!is_unloaded(ref))
    return ref;
  auto [it, added] = load_stages_.try_emplace(&src, static_cast<std::uint32_t>(plan.loads.size()));
  if (added)
    plan.loads.push_back(LoadStage{src.as<graph::SourceParams>().source, src.grid, src.dtype});
  Task t;
  t.kind = TaskKind::load;
  t.index = it->second;
  t.block = block;
  t.output = Output{Output::Kind::buffer, src.dtype,
                    src.grid.block_shape(src.grid.block_index(block)).size(), -1};
  ref = InputRef{InputRef::Kind::task, add_task(t, {}), nullptr};
  return ref;
}

std::vector<InputRef> Planner::all_blocks(const graph::Node& src) {
  const index_t nb = src.grid.numblocks();
  std::vector<InputRef> refs;
  refs.reserve(static_cast<std::size_t>(nb));
  for (index_t b = 0; b < nb; ++b)
    refs.push_back(block_ref(src, b));
  return refs;
}

InputRef Planner::empty_read(const graph::Node& src) {
  if (src.kind != graph::NodeKind::source)
    return block_ref(src, 0);
  // A lazy leaf is not read for an empty box: any valid pointer will do, and none is read.
  if (!empty_block_) {
    auto buffer = make_host_buffer(0);
    empty_block_ = buffer.get();
    plan.borrowed_regions.push_back(std::move(buffer));
  }
  return InputRef{InputRef::Kind::stored, 0, empty_block_};
}

void Planner::add_writes(const graph::Node& n, graph::BlockSink* sink,
                         const std::vector<TaskId>& blocks) {
  expect_tasks(n, n.grid, 1);
  plan.writes.push_back(WriteStage{sink, n.grid, n.dtype});
  const auto stage = static_cast<std::uint32_t>(plan.writes.size() - 1);
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const auto begin = static_cast<std::uint32_t>(plan.inputs.size());
    plan.inputs.push_back(
        TaskInput{InputRef{InputRef::Kind::task, blocks[b], nullptr}, -1, {}, {}});
    Task t;
    t.kind = TaskKind::write;
    t.index = stage;
    t.block = static_cast<index_t>(b);
    t.inputs_begin = begin;
    t.inputs_end = begin + 1;
    t.output = Output{Output::Kind::buffer, n.dtype, 0, -1};
    add_task(t, {blocks[b]});
  }
}

} // namespace chunked::plan::detail
