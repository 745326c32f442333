// SPDX-License-Identifier: Apache-2.0
// Plan::describe: a plan's text summary for tests and debugging.
#include "plan/plan.hpp"

#include <fmt/format.h>

#include <array>

#include <string>
#include <vector>

namespace chunked::plan {

std::string Plan::describe() const {
  std::string s;
  std::vector<index_t> per_stage(stages.size(), 0);
  index_t n_gather = 0, n_combine = 0, n_join = 0, n_assemble = 0, n_scan = 0, n_user = 0;
  index_t n_write = 0;
  std::vector<index_t> per_load(loads.size(), 0);
  for (const auto& t : tasks) {
    if (t.kind == TaskKind::program)
      ++per_stage[t.index];
    else if (t.kind == TaskKind::gather)
      ++n_gather;
    else if (t.kind == TaskKind::combine)
      ++n_combine;
    else if (t.kind == TaskKind::assemble)
      ++n_assemble;
    else if (t.kind == TaskKind::scan)
      ++n_scan;
    else if (t.kind == TaskKind::user)
      ++n_user;
    else if (t.kind == TaskKind::load)
      ++per_load[t.index];
    else if (t.kind == TaskKind::write)
      ++n_write;
    else
      ++n_join;
  }
  for (std::size_t i = 0; i < stages.size(); ++i)
    s += "stage " + std::to_string(i) + ": " + std::to_string(per_stage[i]) + " tasks over grid " +
         stages[i].grid.to_string() +
         (stages[i].finalize >= 0 ? ", each finalizing its partials" : "") + "\n" +
         stages[i].program.describe() + "\n";
  if (n_user > 0)
    s += "user functions: " + std::to_string(users.size()) +
         ", user tasks: " + std::to_string(n_user) + "\n";
  s += "gathers: " + std::to_string(n_gather) + ", combines: " + std::to_string(n_combine) +
       ", joins: " + std::to_string(n_join) + ", tasks: " + std::to_string(tasks.size()) + "\n";
  if (n_assemble > 0) // reshape and concatenate blocks
    s += "assembles: " + std::to_string(n_assemble) + "\n";
  if (n_scan > 0)
    s += "scans: " + std::to_string(n_scan) + "\n";
  // Each lazy leaf with the blocks it reads: a slice of one reads only some of them.
  for (std::size_t i = 0; i < loads.size(); ++i)
    s += "load " + std::to_string(i) + ": " + std::to_string(per_load[i]) + " of " +
         std::to_string(loads[i].grid.numblocks()) + " blocks from " + loads[i].source->describe() +
         "\n";
  if (n_write > 0)
    s += "writes: " + std::to_string(n_write) + " blocks to " + std::to_string(writes.size()) +
         " sink(s)\n";
  return s;
}

void append_block_name(std::string& out, const ChunkGrid& grid, index_t block) {
  const auto nd = static_cast<std::size_t>(grid.ndim());
  std::array<index_t, max_ndim> index{};
  for (std::size_t k = nd; k-- > 0;) { // C order: the last axis varies fastest
    const auto blocks = static_cast<index_t>(grid.lengths(static_cast<index_t>(k)).size());
    index[k] = block % blocks;
    block /= blocks;
  }
  out += '(';
  for (std::size_t k = 0; k < nd; ++k) {
    if (k > 0)
      out += ", ";
    const fmt::format_int digits(index[k]);
    out.append(digits.data(), digits.size());
  }
  out += nd == 1 ? ",)" : ")";
}

std::string block_name(const ChunkGrid& grid, index_t block) {
  std::string s;
  append_block_name(s, grid, block);
  return s;
}

const char* task_kind_name(TaskKind kind) {
  switch (kind) {
  case TaskKind::program:
    return "program";
  case TaskKind::gather:
    return "gather";
  case TaskKind::combine:
    return "combine";
  case TaskKind::join:
    return "join";
  case TaskKind::assemble:
    return "assemble";
  case TaskKind::scan:
    return "scan";
  case TaskKind::user:
    return "user";
  case TaskKind::load:
    return "load";
  case TaskKind::product:
    return "product";
  case TaskKind::write:
    break;
  }
  return "write";
}

const ChunkGrid* Plan::task_grid(TaskId id) const {
  const Task& t = tasks[id];
  switch (t.kind) {
  case TaskKind::program:
    return &stages[t.index].grid;
  case TaskKind::scan:
    return &scans[t.index].grid;
  case TaskKind::user:
    return &users[t.index].grid;
  case TaskKind::load:
    return &loads[t.index].grid;
  case TaskKind::write:
    return &writes[t.index].grid;
  case TaskKind::product:
    return &products[product_terms[t.index].stage].grid;
  default:
    return nullptr;
  }
}

std::string Plan::task_block(TaskId id) const {
  const Task& t = tasks[id];
  if (t.kind == TaskKind::combine)
    return std::to_string(t.block);
  const ChunkGrid* grid = task_grid(id);
  return grid ? block_name(*grid, t.block) : std::string();
}

Plan::TaskLabel Plan::task_label(TaskId id) const {
  const Task& t = tasks[id];
  const char* kind = task_kind_name(t.kind);
  switch (t.kind) {
  case TaskKind::program: {
    const Stage& stage = stages[t.index];
    return {fmt::format("program {}: {}", t.index, stage.program.summary()), kind, task_block(id)};
  }
  case TaskKind::gather:
    return {"gather", kind, {}};
  case TaskKind::combine:
    return {"combine " + std::string(reduce_op_name(combines[t.index].result)), kind,
            task_block(id)};
  case TaskKind::join:
    return {"join pieces", kind, {}};
  case TaskKind::assemble:
    return {"assemble", kind, {}};
  case TaskKind::scan: {
    const ScanStage& sc = scans[t.index];
    return {fmt::format("{} along axis {}", graph::scan_op_name(sc.op), sc.axis), kind,
            task_block(id)};
  }
  case TaskKind::user: {
    const UserStage& u = users[t.index];
    return {"user function " + u.fn->name, kind, task_block(id)};
  }
  case TaskKind::load: {
    const LoadStage& l = loads[t.index];
    return {"load from " + l.source->describe(), kind, task_block(id)};
  }
  case TaskKind::write:
    return {"write", kind, task_block(id)};
  case TaskKind::product:
    return {"product of blocks", kind, task_block(id)};
  }
  return {kind, kind, {}};
}

} // namespace chunked::plan
