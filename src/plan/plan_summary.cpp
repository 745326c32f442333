// SPDX-License-Identifier: Apache-2.0
// PlanSummary (plan_summary.hpp): a plan's tasks grouped by stage, the reads between the groups,
// the bytes moved, and the names and reasons explain() and to_dot() give them.
#include "plan/plan_summary.hpp"

#include "index_maps.hpp"

#include "plan/partial.hpp"
#include "plan/reduction_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace chunked::plan {

namespace {

using Kind = TaskGroup::Kind;

/// Elements of the box of block `block` of `grid`.
index_t box_elements(const ChunkGrid& grid, index_t block) {
  std::array<index_t, max_ndim> origin{}, extent{};
  const int nd = static_cast<int>(grid.ndim());
  block_box(grid, block, nd, origin, extent);
  index_t n = 1;
  for (int k = 0; k < nd; ++k)
    n *= extent[k];
  return n;
}

/// Groups the tasks of a plan in one pass over them: each task's inputs come before it.
class Summarizer {
public:
  Summarizer(const Plan& plan, const LeafIndex& leaves) : plan_(plan), leaves_(leaves) {}

  PlanSummary run() {
    s_.group_of_task.resize(plan_.tasks.size());
    s_.stage_task.assign(plan_.stages.size(), std::numeric_limits<TaskId>::max());
    for (TaskId t = 0; t < plan_.tasks.size(); ++t)
      add_task(t);
    for (const auto& ids : plan_.result_blocks)
      for (const TaskId t : ids)
        s_.groups[s_.group_of_task[t]].result = true;
    for (const auto& [edge, reads] : s_.edges) {
      if (edge.first == edge.second)
        continue; // a combine tree's levels, a scan's carries: within the stage
      s_.groups[edge.first].readers.push_back(edge.second);
      s_.groups[edge.second].sources.push_back(edge.first);
    }
    for (auto& g : s_.groups) {
      std::sort(g.readers.begin(), g.readers.end());
      std::sort(g.sources.begin(), g.sources.end());
    }
    return std::move(s_);
  }

private:
  std::uint32_t group(Kind kind, std::uint32_t index) {
    auto [it, fresh] =
        ids_.try_emplace({kind, index}, static_cast<std::uint32_t>(s_.groups.size()));
    if (fresh) {
      TaskGroup g;
      g.kind = kind;
      g.index = index;
      s_.groups.push_back(g);
    }
    return it->second;
  }

  std::uint32_t source_group(const InputRef& ref) {
    if (ref.kind == InputRef::Kind::task)
      return s_.group_of_task[ref.task];
    const auto of = leaves_.stored_block(ref.stored);
    return group(Kind::stored, of ? static_cast<std::uint32_t>(of->array->number) : 0);
  }

  /// A read of a stored buffer by group `to`, of `bytes`.
  void read_stored(const InputRef& ref, std::uint32_t to, std::uint64_t bytes) {
    if (ref.kind != InputRef::Kind::stored)
      return;
    ++s_.edges[{source_group(ref), to}];
    s_.read_memory += bytes;
  }

  std::pair<Kind, std::uint32_t> key_of(const Task& task) {
    switch (task.kind) {
    case TaskKind::program:
      return {Kind::program, task.index};
    case TaskKind::join: { // its dependencies are its pieces, all of one stage
      const auto& pieces = plan_.deps[static_cast<std::size_t>(&task - plan_.tasks.data())];
      return {Kind::join, pieces.empty() ? std::numeric_limits<std::uint32_t>::max()
                                         : plan_.tasks[pieces.front()].index};
    }
    case TaskKind::gather:
    case TaskKind::assemble: {
      const auto& pieces = plan_.gathers[task.index];
      const std::uint32_t from = pieces.empty() ? std::numeric_limits<std::uint32_t>::max()
                                                : source_group(pieces[0].source);
      return {task.kind == TaskKind::gather ? Kind::gather : Kind::assemble, from};
    }
    case TaskKind::combine:
      return {Kind::combine, task.index};
    case TaskKind::scan:
      return {Kind::scan, task.index};
    case TaskKind::user:
      return {Kind::user, task.index};
    case TaskKind::load:
      return {Kind::load, task.index};
    case TaskKind::product:
      return {Kind::product, plan_.product_terms[task.index].stage};
    case TaskKind::write:
      break;
    }
    return {Kind::write, task.index};
  }

  /// The bytes of what task `t` leaves for others: values or partial states.
  void count_output(const Task& task, TaskGroup& g) {
    const Output& out = task.output;
    if (out.kind == Output::Kind::partial) {
      const ReduceOp op = task.kind == TaskKind::combine ? plan_.combines[task.index].op
                                                         : plan_.stages[task.index].program.sink.op;
      const auto bytes = static_cast<std::uint64_t>(output_bytes(out, op));
      g.partial_bytes += bytes;
      s_.partials += bytes;
    } else if (out.kind == Output::Kind::buffer && task.kind != TaskKind::write &&
               !(task.kind == TaskKind::product && task.inputs_end - task.inputs_begin == 3)) {
      // (A product term after the first adds into the buffer of the one before.)
      const auto bytes = static_cast<std::uint64_t>(output_bytes(out, ReduceOp::sum));
      ++g.blocks;
      g.bytes += bytes;
      s_.materialised += bytes;
      if (task.kind == TaskKind::load)
        s_.read_storage += bytes;
    }
  }

  void add_task(TaskId t) {
    const Task& task = plan_.tasks[t];
    const auto [kind, index] = key_of(task);
    const std::uint32_t g = group(kind, index);
    s_.group_of_task[t] = g;
    ++s_.groups[g].tasks;
    ++s_.tasks_by_kind[static_cast<std::size_t>(task.kind)];
    count_output(task, s_.groups[g]);
    for (const TaskId d : plan_.deps[t])
      ++s_.edges[{s_.group_of_task[d], g}];
    switch (task.kind) {
    case TaskKind::program: {
      const Stage& st = plan_.stages[task.index];
      const index_t elements = box_elements(st.grid, task.block);
      for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j) {
        const TaskInput& in = plan_.inputs[j];
        const DType dtype = st.program.leaves[static_cast<std::size_t>(in.leaf)].dtype;
        read_stored(in.ref, g, static_cast<std::uint64_t>(elements) * dtype_size(dtype));
      }
      if (task.output.kind == Output::Kind::destination) {
        ++s_.groups[g].destination_tasks;
        s_.written_destination +=
            static_cast<std::uint64_t>(elements) * dtype_size(task.output.dtype);
      }
      TaskId& first = s_.stage_task[task.index];
      if (first == std::numeric_limits<TaskId>::max() || task.block < plan_.tasks[first].block)
        first = t;
      break;
    }
    case TaskKind::gather:
    case TaskKind::assemble:
      for (const GatherPiece& piece : plan_.gathers[task.index])
        read_stored(piece.source, g,
                    static_cast<std::uint64_t>(piece.program.size()) *
                        dtype_size(piece.program.leaves[0].dtype));
      break;
    case TaskKind::scan:
    case TaskKind::user:
    case TaskKind::write:
    case TaskKind::product:
      for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
        if (plan_.inputs[j].ref.kind == InputRef::Kind::stored)
          read_stored(plan_.inputs[j].ref, g, plan_.inputs[j].ref.stored->bytes());
      if (task.kind == TaskKind::write) {
        const WriteStage& w = plan_.writes[task.index];
        s_.written_sinks +=
            static_cast<std::uint64_t>(box_elements(w.grid, task.block)) * dtype_size(w.dtype);
      }
      break;
    case TaskKind::combine:
    case TaskKind::join:
    case TaskKind::load:
      break; // partials, pieces and files: none of them stored arrays
    }
  }

  const Plan& plan_;
  const LeafIndex& leaves_;
  PlanSummary s_;
  std::map<std::pair<Kind, std::uint32_t>, std::uint32_t> ids_;
};

std::string combine_name(const Combine& c) {
  std::string s(reduce_op_name(c.result));
  if (c.result != c.op) // mean, var or std finalized from one shared moments pass
    s += " from the " + std::string(reduce_op_name(c.op)) + " moments pass";
  return s;
}

/// The names of the groups in `ids`: "program 1 and combine 0".
std::string names_of(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves,
                     const std::vector<std::uint32_t>& ids) {
  std::string out;
  for (std::size_t j = 0; j < ids.size(); ++j)
    out += (j == 0                ? ""
            : j + 1 == ids.size() ? " and "
                                  : ", ") +
           group_name(plan, s, leaves, ids[j]);
  return out;
}

bool read_by(const PlanSummary& s, const TaskGroup& g, Kind kind) {
  return std::any_of(g.readers.begin(), g.readers.end(),
                     [&](std::uint32_t r) { return s.groups[r].kind == kind; });
}

/// Why a program's blocks are stored: what reads them needs whole blocks in memory.
std::string program_reason(const PlanSummary& s, const TaskGroup& g) {
  std::vector<std::string> why;
  if (g.result)
    why.emplace_back("they are the requested result, kept as blocks (persist) or handed to a sink");
  if (read_by(s, g, Kind::program))
    why.emplace_back("a program reads them as a stored leaf: fusing them in would pass the caps "
                     "of one program (" +
                     std::to_string(max_program_instrs) + " operations, " +
                     std::to_string(max_program_leaves) + " leaves)");
  if (read_by(s, g, Kind::gather))
    why.emplace_back("they are read across their block boundaries, through gathers");
  if (read_by(s, g, Kind::scan))
    why.emplace_back("a scan reads whole blocks");
  if (read_by(s, g, Kind::user))
    why.emplace_back("a user function reads whole blocks in memory");
  if (read_by(s, g, Kind::product))
    why.emplace_back("a product of blocks (matmul) reads whole blocks as matrices");
  if (read_by(s, g, Kind::assemble))
    why.emplace_back("a reshape or concatenate copies pieces of whole blocks");
  if (read_by(s, g, Kind::join))
    why.emplace_back("each block is written in pieces, joined per block");
  std::string out;
  for (std::size_t j = 0; j < why.size(); ++j)
    out += (j ? "; " : "") + why[j];
  return out.empty() ? "its blocks are read by other tasks" : out;
}

} // namespace

int PlanSummary::find(TaskGroup::Kind kind, std::uint32_t index) const {
  for (std::size_t g = 0; g < groups.size(); ++g)
    if (groups[g].kind == kind && groups[g].index == index)
      return static_cast<int>(g);
  return -1;
}

PlanSummary summarize(const Plan& plan, const LeafIndex& leaves) {
  return Summarizer(plan, leaves).run();
}

std::string group_name(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves,
                       std::uint32_t group) {
  const TaskGroup& g = s.groups[group];
  const std::string n = std::to_string(g.index);
  auto from = [&] {
    return g.index < s.groups.size() ? group_name(plan, s, leaves, g.index) : std::string("?");
  };
  switch (g.kind) {
  case Kind::stored: {
    if (g.index == 0)
      return "memory of no stored array";
    const StoredArray& a = leaves.arrays()[g.index - 1];
    if (!a.borrowed)
      return "stored array " + n + " (from_host or persist)";
    const bool device =
        a.node->as<graph::StoredParams>().data->borrowed->space().kind == MemorySpace::Kind::device;
    return "borrowed array " + n + (device ? " (from_device)" : " (from_host_view)");
  }
  case Kind::program:
    return "program " + n;
  case Kind::join:
    return "joins of program " + n;
  case Kind::gather:
    return "gathers from " + from();
  case Kind::assemble:
    return "reshape/concatenate from " + from();
  case Kind::combine:
    return "combine " + n + " (" + combine_name(plan.combines[g.index]) + ")";
  case Kind::scan: {
    const ScanStage& sc = plan.scans[g.index];
    return "scan " + n + " (" + graph::scan_op_name(sc.op) + " along axis " +
           std::to_string(sc.axis) + ")";
  }
  case Kind::user:
    return "user function " + n + " '" + plan.users[g.index].fn->name + "'";
  case Kind::load:
    return "load " + n + " (" + plan.loads[g.index].source->describe() + ")";
  case Kind::write:
    return "write " + n + " (to a sink)";
  case Kind::product:
    return "product " + n + " (matmul)";
  }
  return "group " + n;
}

std::string materialised_because(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves,
                                 std::uint32_t group) {
  const TaskGroup& g = s.groups[group];
  if (g.blocks == 0 || g.kind == Kind::stored)
    return "";
  const std::string readers =
      g.readers.empty() ? std::string("nothing") : names_of(plan, s, leaves, g.readers);
  switch (g.kind) {
  case Kind::program:
    return program_reason(s, g) + "; read by " + readers;
  case Kind::join:
    return "program " + std::to_string(g.index) +
           " cuts each block into pieces so that every core has work; the join holds the block "
           "once its pieces are written; read by " +
           readers;
  case Kind::gather:
    return read_by(s, g, Kind::user)
               ? "map_overlap/map_blocks reads each block with its halo (or from another "
                 "grid): the pieces of neighbouring blocks are copied into one buffer; read by " +
                     readers
               : "the reads of " + readers +
                     " span several blocks (a rechunk, or a slice across block boundaries): "
                     "their pieces are copied into one buffer per read";
  case Kind::combine:
    return "a reduction across blocks: partial states are combined in a fixed-order tree "
           "(fan-in " +
           std::to_string(detail::combine_fanin) +
           "), so every reader waits for the whole result and cannot fuse it; read by " + readers;
  case Kind::assemble:
    return "a reshape's or concatenate's blocks are copied together from pieces of its input's "
           "blocks (no affine index map reads them), so they cannot be fused; read by " +
           readers;
  case Kind::scan:
    return "each block of a scan needs the running total of the blocks before it along its "
           "axis; read by " +
           readers;
  case Kind::user:
    return "a user function computes whole blocks in memory; read by " + readers;
  case Kind::product:
    return "each block of a product is the sum of products of whole operand blocks, added in "
           "order into one buffer; read by " +
           readers;
  case Kind::load: {
    const LoadStage& l = plan.loads[g.index];
    return "a lazy leaf's blocks are read from outside memory when a task first needs them (" +
           std::to_string(g.tasks) + " of its " + std::to_string(l.grid.numblocks()) +
           " blocks, once per pass); read by " + readers;
  }
  case Kind::stored:
  case Kind::write:
    break;
  }
  return "";
}

std::string grid_text(const ChunkGrid& grid) {
  const Shape shape = grid.shape();
  std::string counts, lengths;
  for (index_t k = 0; k < grid.ndim(); ++k) {
    const auto& l = grid.lengths(k);
    counts += (k ? "x" : "") + std::to_string(l.size());
    const auto [lo, hi] = std::minmax_element(l.begin(), l.end());
    // A regular axis: every block but a shorter last one has the first length.
    const bool regular =
        std::all_of(l.begin(), l.end() - 1, [&](index_t v) { return v == l.front(); }) &&
        l.back() <= l.front();
    lengths += (k ? ", " : "") + (regular ? std::to_string(l.front())
                                          : std::to_string(*lo) + ".." + std::to_string(*hi));
  }
  if (grid.ndim() == 0)
    return "() in 1 block";
  const index_t blocks = grid.numblocks();
  return shape.to_string() + " in " + (grid.ndim() > 1 ? counts + " = " : "") +
         std::to_string(blocks) + (blocks == 1 ? " block" : " blocks") + " of (" + lengths +
         (grid.ndim() == 1 ? ",)" : ")");
}

std::string bytes_text(std::uint64_t bytes) {
  constexpr const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  if (bytes < 1000)
    return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  std::size_t u = 0;
  while (v >= 1000 && u + 1 < std::size(units)) {
    v /= 1000;
    ++u;
  }
  return fmt::format("{:.3g} {}", v, units[u]);
}

} // namespace chunked::plan
