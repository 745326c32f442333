// SPDX-License-Identifier: Apache-2.0
// A program stage as explain() and to_dot() show it: its leaves named by the API that made them,
// with the views the planner pushed into them spelt as slices, its operations and its sink.
#include "plan/plan_summary.hpp"

#include "index_maps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>

namespace chunked::plan {

namespace {

/// What a leaf reads, in the user's words.
struct LeafText {
  std::string what;   ///< "normal float64 (mean 0, stddev 1, seed 42, stream 0) of shape (..)"
  std::string api;    ///< the name a slice of it is spelt with: "normal", "stored", "from_zarr"
  std::string origin; ///< for stored leaves, where the buffer comes from: "stored array 1"
  std::optional<BufferBox> box; ///< the buffer the map reads, placed in its array
};

std::string scalar_text(const Leaf& leaf, const Scalar& v) {
  return leaf_uses_float_params(leaf) ? fmt::format("{}", v.f) : std::to_string(v.i);
}

/// The whole array of `shape` as one C-order buffer.
BufferBox whole(const Shape& shape) {
  return BufferBox{std::vector<index_t>(shape.extents().size(), 0), shape.extents(),
                   shape.extents()};
}

/// Block `block` of `grid` as a buffer of the grid's array.
BufferBox block_of(const ChunkGrid& grid, index_t block) {
  const auto index = grid.block_index(block);
  return BufferBox{grid.block_offset(index), grid.block_shape(index).extents(),
                   grid.shape().extents()};
}

LeafText generated_leaf(const Leaf& leaf, const LeafIndex& leaves) {
  LeafText t;
  t.api = std::string(leaf_kind_name(leaf.kind));
  t.what = t.api + " " + std::string(dtype_name(leaf.dtype));
  const std::string a = scalar_text(leaf, leaf.a), b = scalar_text(leaf, leaf.b);
  const std::string seed =
      ", seed " + std::to_string(leaf.seed) + ", stream " + std::to_string(leaf.stream) + ")";
  switch (leaf.kind) {
  case LeafKind::constant:
    return {t.what + " " + a, t.api, "", std::nullopt};
  case LeafKind::normal:
    t.what += " (mean " + a + ", stddev " + b + seed;
    break;
  case LeafKind::uniform:
  case LeafKind::integers:
    t.what += " (low " + a + ", high " + b + seed;
    break;
  case LeafKind::arange:
    t.what += " (start " + a + ", step " + b + ")";
    break;
  case LeafKind::stored:
    break;
  }
  if (const auto shape = leaves.generated_shape(leaf)) {
    t.what += " of shape " + shape->to_string();
    t.box = whole(*shape);
  }
  return t;
}

/// A stored leaf reading a stored array's block, or a region of borrowed memory.
LeafText stored_array_leaf(const Leaf& leaf, const InputRef& ref, const LeafIndex& leaves,
                           const Plan& plan, const PlanSummary& s) {
  LeafText t;
  const auto of = leaves.stored_block(ref.stored);
  const auto group =
      s.find(TaskGroup::Kind::stored, of ? static_cast<std::uint32_t>(of->array->number) : 0);
  t.origin = group >= 0 ? group_name(plan, s, leaves, static_cast<std::uint32_t>(group))
                        : std::string("memory");
  t.api = of && of->array->borrowed ? "borrowed" : "stored";
  t.what = t.api + " " + std::string(dtype_name(leaf.dtype));
  if (!of)
    return t;
  const graph::Node& node = *of->array->node;
  t.what += " of shape " + node.shape.to_string() + ", " + t.origin;
  // A borrowed region is read with the caller's strides, not as a C-order buffer.
  if (of->block >= 0)
    t.box = block_of(node.grid, of->block);
  return t;
}

/// A stored leaf reading the output of task `id`: an intermediate, a loaded block, a result.
LeafText task_leaf(const Leaf& leaf, TaskId id, const LeafIndex& leaves, const Plan& plan,
                   const PlanSummary& s) {
  const Task& task = plan.tasks[id];
  LeafText t;
  t.origin = group_name(plan, s, leaves, s.group_of_task[id]);
  const std::string dtype(dtype_name(leaf.dtype));
  switch (task.kind) {
  case TaskKind::load: {
    const LoadStage& l = plan.loads[task.index];
    const std::string source = l.source->describe();
    // The lazy leaves' API names, from what their sources say they are.
    t.api = source.find("npy") != std::string::npos    ? "load_npy"
            : source.find("Zarr") != std::string::npos ? "from_zarr"
                                                       : "lazy leaf";
    t.what = t.api + " " + dtype + " of shape " + l.grid.shape().to_string() + ", " + source +
             ", read by " + t.origin.substr(0, t.origin.find(" ("));
    t.box = block_of(l.grid, task.block);
    return t;
  }
  case TaskKind::program:
    t.api = t.origin;
    t.box = block_of(plan.stages[task.index].grid, task.block);
    break;
  case TaskKind::join: {
    // The join's block is the box its pieces share (Output::origin, extent).
    const Task& piece = plan.tasks[plan.deps[id].front()];
    const ChunkGrid& grid = plan.stages[piece.index].grid;
    const auto nd = static_cast<std::size_t>(grid.ndim());
    t.api = "program " + std::to_string(piece.index);
    t.box = BufferBox{{piece.output.origin.begin(), piece.output.origin.begin() + nd},
                      {piece.output.extent.begin(), piece.output.extent.begin() + nd},
                      grid.shape().extents()};
    break;
  }
  case TaskKind::scan:
    t.api = graph::scan_op_name(plan.scans[task.index].op);
    t.box = block_of(plan.scans[task.index].grid, task.block);
    break;
  case TaskKind::user:
    t.api = plan.users[task.index].fn->name;
    t.box = block_of(plan.users[task.index].grid, task.block);
    break;
  case TaskKind::product:
    t.api = "matmul";
    t.box = block_of(plan.products[plan.product_terms[task.index].stage].grid, task.block);
    break;
  case TaskKind::gather:
  case TaskKind::assemble:
  case TaskKind::combine:
  case TaskKind::write:
    t.api = t.origin; // buffers whose place in an array the plan does not record
    break;
  }
  t.what = "blocks of " + t.origin + ", " + dtype;
  return t;
}

LeafText leaf_text(const Leaf& leaf, const InputRef* ref, const LeafIndex& leaves, const Plan& plan,
                   const PlanSummary& s) {
  if (leaf.kind != LeafKind::stored || !ref)
    return generated_leaf(leaf, leaves);
  if (ref->kind == InputRef::Kind::stored)
    return stored_array_leaf(leaf, *ref, leaves, plan, s);
  return task_leaf(leaf, ref->task, leaves, plan, s);
}

/// Leaf j's input in the stage's representative task, or null.
const InputRef* leaf_input(const Plan& plan, TaskId task, int leaf) {
  const Task& t = plan.tasks[task];
  for (std::uint32_t j = t.inputs_begin; j < t.inputs_end; ++j)
    if (plan.inputs[j].leaf == leaf)
      return &plan.inputs[j].ref;
  return nullptr;
}

/// Per leaf of program `stage`, how many of its tasks read it through a gather: the boxes that
/// span blocks of what it reads (the representative task shows one of the others).
std::vector<index_t> gathered_reads(const Plan& plan, std::uint32_t stage) {
  std::vector<index_t> n(plan.stages[stage].program.leaves.size(), 0);
  for (const Task& t : plan.tasks) {
    if (t.kind != TaskKind::program || t.index != stage)
      continue;
    for (std::uint32_t j = t.inputs_begin; j < t.inputs_end; ++j) {
      const InputRef& ref = plan.inputs[j].ref;
      if (ref.kind == InputRef::Kind::task && plan.tasks[ref.task].kind == TaskKind::gather)
        ++n[static_cast<std::size_t>(plan.inputs[j].leaf)];
    }
  }
  return n;
}

std::string axes_text(std::uint32_t mask, int ndim) {
  std::string s;
  for (int k = 0; k < ndim; ++k)
    if ((mask >> k) & 1u)
      s += (s.empty() ? "" : ", ") + std::to_string(k);
  return "(" + s + (s.find(',') == std::string::npos && !s.empty() ? ",)" : ")");
}

std::string instr_text(const BlockProgram& p, std::size_t j) {
  const Instr& in = p.instrs[j];
  std::string s = "v" + std::to_string(p.leaves.size() + j) + " = ";
  s += in.call < 0 ? std::string(opcode_name(in.op))
                   : "call " + (static_cast<std::size_t>(in.call) < p.functions.size()
                                    ? p.functions[static_cast<std::size_t>(in.call)]->name
                                    : std::string("?"));
  s += " " + std::string(dtype_name(in.dtype)) + " (";
  for (int a = 0; a < in.arity(); ++a)
    s += (a ? ", v" : "v") + std::to_string(in.args[a]);
  return s + ")";
}

std::string sink_text(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves,
                      std::uint32_t stage) {
  const BlockProgram& p = plan.stages[stage].program;
  const auto group = static_cast<std::uint32_t>(s.find(TaskGroup::Kind::program, stage));
  const TaskGroup& g = s.groups[group];
  std::string readers;
  for (const std::uint32_t r : g.readers)
    readers += (readers.empty() ? ", read by " : ", ") + group_name(plan, s, leaves, r);
  if (p.sink.kind == Sink::Kind::reduce)
    return std::string(reduce_op_name(p.sink.op)) + " over axes " +
           axes_text(p.sink.reduced_axes, p.ndim) + " into partial states" + readers;
  if (g.destination_tasks > 0)
    return "store into the destination (the requested array)" + readers;
  if (s.find(TaskGroup::Kind::join, stage) >= 0)
    return "store pieces of blocks into their block's buffer" + readers;
  return "store each block as a buffer (materialised, see intermediates)" + readers;
}

} // namespace

std::string describe_stage(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves,
                           std::uint32_t stage) {
  const Stage& st = plan.stages[stage];
  const TaskId first = s.stage_task[stage];
  const TaskGroup& g = s.groups[static_cast<std::size_t>(s.find(TaskGroup::Kind::program, stage))];
  std::string out = fmt::format("program {}: {} {} over {}\n", stage, g.tasks,
                                g.tasks == 1 ? "task" : "tasks", grid_text(st.grid));
  BlockProgram p;
  plan.instantiate(first, p); // the maps of its first block
  const std::vector<index_t> out_shape = st.grid.shape().extents();
  const std::vector<index_t> gathered = gathered_reads(plan, stage);
  for (std::size_t l = 0; l < p.leaves.size(); ++l) {
    const Leaf& leaf = p.leaves[l];
    const LeafText t =
        leaf_text(leaf, leaf_input(plan, first, static_cast<int>(l)), leaves, plan, s);
    out += "  v" + std::to_string(l) + " = " + t.what;
    if (leaf.kind == LeafKind::constant) {
      out += "\n";
      continue;
    }
    out += ", index map ";
    append_map(out, leaf.map, p.ndim);
    if (gathered[l] > 0)
      out += "; " + std::to_string(gathered[l]) + " of its " + std::to_string(g.tasks) +
             " tasks read it through gathers";
    out += "\n";
    const auto view = t.box ? describe_view(leaf.map, out_shape, *t.box, t.api) : std::nullopt;
    if (view && !view->empty())
      out += "       slice pushed into leaf: reads " + *view + "\n";
  }
  if (p.instrs.empty())
    out += "  operations: none\n";
  for (std::size_t j = 0; j < p.instrs.size(); ++j)
    out += "  " + instr_text(p, j) + "\n";
  out += "  sink: " + sink_text(plan, s, leaves, stage) + "\n";
  return out;
}

std::string stage_summary(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves,
                          std::uint32_t stage) {
  const Stage& st = plan.stages[stage];
  const TaskId first = s.stage_task[stage];
  BlockProgram p;
  plan.instantiate(first, p);
  const std::vector<index_t> out_shape = st.grid.shape().extents();
  std::string out;
  for (std::size_t l = 0; l < p.leaves.size(); ++l) {
    const Leaf& leaf = p.leaves[l];
    const LeafText t =
        leaf_text(leaf, leaf_input(plan, first, static_cast<int>(l)), leaves, plan, s);
    const auto view = t.box ? describe_view(leaf.map, out_shape, *t.box, t.api) : std::nullopt;
    std::string line = view && !view->empty() ? view->substr(0, view->find(" (")) : t.api;
    if (leaf.kind == LeafKind::constant)
      line += " " + scalar_text(leaf, leaf.a);
    out += line + "\n";
  }
  if (!p.instrs.empty()) {
    // The distinct operations, in program order: a long chain stays one line.
    std::vector<std::string> ops;
    for (const Instr& in : p.instrs) {
      std::string name = in.call < 0 ? std::string(opcode_name(in.op)) : std::string("call");
      if (std::find(ops.begin(), ops.end(), name) == ops.end())
        ops.push_back(std::move(name));
    }
    out += "ops:";
    for (const auto& op : ops)
      out += " " + op;
    out += "\n";
  }
  if (p.sink.kind == Sink::Kind::reduce)
    out += std::string(reduce_op_name(p.sink.op)) + " over axes " +
           axes_text(p.sink.reduced_axes, p.ndim) + "\n";
  else
    out += "store\n";
  return out;
}

} // namespace chunked::plan
