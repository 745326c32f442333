// SPDX-License-Identifier: Apache-2.0
// Lowering of the array DAG to block tasks: fusion into block programs, slice pushdown through
// affine index maps, chunk alignment by gathers, fixed-order reduction trees.
#include "index_maps.hpp"
#include "lowering.hpp"

#include <chunked/core/checked.hpp>
#include <chunked/core/memory_budget.hpp>
#include <chunked/plan/partial.hpp>
#include <chunked/plan/plan.hpp>
#include <chunked/plan/task_order.hpp>
#include <chunked/plan/task_split.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace chunked::plan {

namespace {

using detail::Body;
using detail::StoredLeafInfo;
using graph::Node;
using graph::NodeKind;
using graph::NodePtr;

/// Partials combined per task; fixed, so the combine tree depends only on the block count.
constexpr std::size_t combine_fanin = 8;

std::uint32_t axes_mask(const std::vector<index_t>& axes) {
  std::uint32_t mask = 0;
  for (index_t a : axes)
    mask |= 1u << a;
  return mask;
}

bool is_moments_op(ReduceOp op) {
  return op == ReduceOp::mean || op == ReduceOp::var || op == ReduceOp::std;
}

class Planner {
public:
  explicit Planner(const TaskSplit& split) : split_(split) {}

  Plan plan;

  void request(const Request& r);

private:
  /// The program computing n's blocks (n itself unless its blocks already exist in memory or
  /// come from a reduction: then the program copies them), with intermediates stored where one
  /// program would pass the caps.
  Body lower_root(const NodePtr& n);
  /// Plans every materialised node that `body` reads and all they read in turn, each before its
  /// readers, with an explicit stack: chains of stored intermediates may be any length.
  void materialize_reads(const Body& body);
  /// The program a materialised node's blocks are computed by (empty for stored data).
  Body materialize_program(const NodePtr& n);
  /// The tasks of a materialised node from its program, once what that reads is planned.
  std::vector<InputRef> materialize_tasks(const NodePtr& n, Body body);
  bool is_materialized(const Node* n) const { return detail::is_materialized(n, forced_); }
  std::uint32_t add_stage(Body body, const ChunkGrid& grid);
  /// Refuses, before making any, the tasks of n over `grid` (up to `per_box` per box of it)
  /// where they would not fit in memory or in a TaskId.
  void expect_tasks(const Node& n, const ChunkGrid& grid, std::uint64_t per_box) const;
  TaskId add_task(Task t, std::vector<TaskId> deps);
  /// A combine task of combines[comb] over `parts` (in that order) for output block `block`.
  TaskId add_combine_task(std::uint32_t comb, index_t block, const std::vector<TaskId>& parts,
                          const Output& output);
  /// A task running stage's program on one block, with its stored-leaf inputs resolved.
  TaskId add_program_task(std::uint32_t stage, index_t block, const Output& output);
  void add_program_inputs(std::uint32_t stage, index_t block, std::vector<TaskId>& deps);
  InputRef resolve_read(const StoredLeafInfo& info, const std::array<index_t, max_ndim>& origin,
                        const std::array<index_t, max_ndim>& extent, int ndim, AffineMap& map,
                        std::vector<TaskId>& deps);
  /// The tasks computing n's blocks (buffer outputs) or writing n into a destination by n's
  /// program `body`; where the split asks for more tasks than blocks, each block is cut into
  /// pieces.
  std::vector<InputRef> plan_elementwise(const NodePtr& n, Body body, const Output& out_template,
                                         std::vector<TaskId>* task_ids);
  std::vector<InputRef> plan_reduce(const NodePtr& n, Body body);
  /// The stage and combine tree of reducing `in` (by its program `body`) by `op` over the axes
  /// in `mask`: per output block (kept-axis block indices in C order), the root combine task,
  /// which finalizes into `comb.result` when `final` and otherwise leaves the combined partial.
  std::vector<TaskId> plan_reduce_tree(const NodePtr& in, Body body, const graph::ReduceParams& p,
                                       std::uint32_t mask, DType result_dtype, Combine comb,
                                       bool final);

public:
  /// Reductions that share one moments pass: (input, reduced-axes mask) pairs reduced by `mean`,
  /// `var` or `std` more than once in the requested graphs, at least once by var or std.
  void find_shared_moments(const std::vector<Request>& requests);

private:
  using MomentsKey = std::pair<const Node*, std::uint32_t>;
  std::map<MomentsKey, std::vector<TaskId>> moments_roots_; ///< shared keys; roots once planned

  std::unordered_map<const Node*, std::vector<InputRef>> blocks_of_;
  std::vector<std::vector<StoredLeafInfo>> stage_reads_;
  detail::ForcedSet forced_;
  std::map<std::tuple<const Node*, std::vector<index_t>, std::vector<index_t>>, TaskId> gathers_;
  TaskSplit split_;
};

Body Planner::lower_root(const NodePtr& n) {
  const int ndim = static_cast<int>(n->shape.ndim());
  const bool itself = n->kind != NodeKind::stored && n->kind != NodeKind::reduce;
  Body body;
  if (!itself) {
    detail::lower_program(n, ndim, false, forced_, body); // one stored leaf
    return body;
  }
  // A program within the caps is lowered as it is. Past them, intermediates are stored: first
  // counting constants as free (equal ones share a leaf), then, should distinct constants still
  // pass the leaf cap, counting each; after that every program is within the caps.
  for (const bool count_constants : {false, true}) {
    const detail::Cuts cuts = detail::plan_cuts(n.get(), count_constants, forced_);
    if (!count_constants && cuts.distinct_fit) {
      if (detail::lower_program(n, ndim, true, forced_, body))
        return body;
      body = Body{};
    }
    forced_.insert(cuts.stored.begin(), cuts.stored.end());
    if (detail::lower_program(n, ndim, true, forced_, body))
      return body;
    body = Body{};
  }
  throw ValueError("internal: a program exceeds the size cap and cannot be split");
}

Body Planner::materialize_program(const NodePtr& n) {
  if (n->kind == NodeKind::stored)
    return Body{};
  if (n->kind != NodeKind::reduce)
    return lower_root(n);
  // A mean, var or std whose shared moments pass is planned already only finalizes it.
  const auto& p = n->as<graph::ReduceParams>();
  const auto shared = moments_roots_.find({n->inputs[0].get(), axes_mask(p.axes)});
  if (is_moments_op(p.op) && shared != moments_roots_.end() && !shared->second.empty())
    return Body{};
  return lower_root(n->inputs[0]);
}

void Planner::materialize_reads(const Body& body) {
  struct Pending {
    NodePtr node;
    std::optional<Body> program; ///< lowered, its reads pushed above it
  };
  std::vector<Pending> stack;
  // Reads are planned in the order the program met them. `b` may live in the stack: the nodes
  // are taken before the stack grows.
  auto push_reads = [&](const Body& b) {
    std::vector<NodePtr> reads;
    for (auto it = b.stored.rbegin(); it != b.stored.rend(); ++it)
      if (!blocks_of_.count(it->node.get()))
        reads.push_back(it->node);
    for (NodePtr& node : reads)
      stack.push_back(Pending{std::move(node), std::nullopt});
  };
  push_reads(body);
  while (!stack.empty()) {
    const NodePtr node = stack.back().node;
    if (blocks_of_.count(node.get())) {
      stack.pop_back();
      continue;
    }
    if (!stack.back().program) {
      stack.back().program = materialize_program(node);
      const std::size_t at = stack.size() - 1;
      push_reads(*stack[at].program);
      if (stack.size() > at + 1)
        continue;
    }
    Body program = std::move(*stack.back().program);
    stack.pop_back();
    std::vector<InputRef> refs = materialize_tasks(node, std::move(program));
    blocks_of_.emplace(node.get(), std::move(refs));
  }
}

std::vector<InputRef> Planner::materialize_tasks(const NodePtr& n, Body body) {
  if (n->kind == NodeKind::stored) {
    std::vector<InputRef> refs;
    for (const auto& b : n->as<graph::StoredParams>().data->blocks)
      refs.push_back(InputRef{InputRef::Kind::stored, 0, b.get()});
    return refs;
  }
  if (n->kind == NodeKind::reduce)
    return plan_reduce(n, std::move(body));
  return plan_elementwise(n, std::move(body), Output{Output::Kind::buffer, n->dtype, 0, -1},
                          nullptr);
}

void Planner::expect_tasks(const Node& n, const ChunkGrid& grid, std::uint64_t per_box) const {
  // What planning and running keep per task: the task and its dependency list, its inputs, the
  // copies that ordering makes, and the runtime's graph, counters and output slot.
  constexpr std::uint64_t bytes_per_task = 640;
  const std::uint64_t tasks =
      plan.tasks.size() + per_box * static_cast<std::uint64_t>(grid.numblocks());
  const bool fits = chunked::detail::bookkeeping_fits(tasks, bytes_per_task);
  if (fits && tasks < std::numeric_limits<TaskId>::max())
    return;
  const std::string what = "planning an array of shape " + n.shape.to_string() + " in " +
                           std::to_string(grid.numblocks()) + " blocks";
  constexpr std::string_view advice = "use larger chunks: every block is at least one task";
  if (!fits)
    chunked::detail::throw_bookkeeping_too_large(tasks, bytes_per_task, what, "tasks", advice);
  throw OutOfMemory(what + " needs " + std::to_string(tasks) + " tasks, more than the " +
                    std::to_string(std::numeric_limits<TaskId>::max()) + " a plan can number; " +
                    std::string(advice));
}

TaskId Planner::add_task(Task t, std::vector<TaskId> deps) {
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  plan.tasks.push_back(t);
  plan.deps.push_back(std::move(deps));
  return static_cast<TaskId>(plan.tasks.size() - 1);
}

TaskId Planner::add_combine_task(std::uint32_t comb, index_t block,
                                 const std::vector<TaskId>& parts, const Output& output) {
  Task t;
  t.kind = TaskKind::combine;
  t.index = comb;
  t.block = block;
  t.inputs_begin = static_cast<std::uint32_t>(plan.combine_inputs.size());
  for (TaskId id : parts)
    plan.combine_inputs.push_back(InputRef{InputRef::Kind::task, id, nullptr});
  t.inputs_end = static_cast<std::uint32_t>(plan.combine_inputs.size());
  t.output = output;
  return add_task(t, parts);
}

std::uint32_t Planner::add_stage(Body body, const ChunkGrid& grid) {
  Stage st;
  st.program = std::move(body.prog);
  st.grid = grid;
  for (std::size_t j = 0; j < body.stored.size(); ++j) {
    st.stored_leaves.push_back(body.stored[j].leaf);
    st.program.leaves[body.stored[j].leaf].input = static_cast<int>(j);
  }
  plan.stages.push_back(std::move(st));
  stage_reads_.push_back(std::move(body.stored));
  return static_cast<std::uint32_t>(plan.stages.size() - 1);
}

InputRef Planner::resolve_read(const StoredLeafInfo& info,
                               const std::array<index_t, max_ndim>& origin,
                               const std::array<index_t, max_ndim>& extent, int ndim,
                               AffineMap& map, std::vector<TaskId>& deps) {
  const Node& src = *info.node;
  const auto& blocks = blocks_of_.at(&src);
  const std::size_t nd = info.coords.size();
  bool empty = false;
  for (int k = 0; k < ndim; ++k)
    empty = empty || extent[k] == 0;
  std::vector<index_t> lo(nd), hi(nd), off(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    const auto& a = info.coords[d];
    off[d] = a.off;
    for (int k = 0; k < ndim; ++k)
      off[d] = add_mul(off[d], a.c[k], origin[k]);
    lo[d] = hi[d] = off[d];
    for (int k = 0; k < ndim; ++k) {
      const index_t span =
          chunked::detail::checked_mul(a.c[k], std::max<index_t>(0, extent[k] - 1), map_context);
      index_t& end = span < 0 ? lo[d] : hi[d];
      end = chunked::detail::checked_add(end, span, map_context);
    }
  }
  auto read_through = [&](const std::vector<index_t>& region_lo,
                          const std::vector<index_t>& region_extent) {
    const auto strides = c_strides(region_extent);
    map = AffineMap{};
    for (std::size_t d = 0; d < nd; ++d) {
      map.base = add_mul(map.base, strides[d], off[d] - region_lo[d]);
      for (int k = 0; k < ndim; ++k)
        map.coef[k] = add_mul(map.coef[k], strides[d], info.coords[d].c[k]);
    }
  };
  if (empty || src.shape.size() == 0) {
    // Nothing is read; any block keeps the pointer valid.
    map = AffineMap{};
    if (blocks[0].kind == InputRef::Kind::task)
      deps.push_back(blocks[0].task);
    return blocks[0];
  }
  std::vector<index_t> blo(nd), bhi(nd);
  bool single = true;
  for (std::size_t d = 0; d < nd; ++d) {
    blo[d] = src.grid.block_containing(static_cast<index_t>(d), lo[d]);
    bhi[d] = src.grid.block_containing(static_cast<index_t>(d), hi[d]);
    single = single && blo[d] == bhi[d];
  }
  if (single) {
    const index_t b = src.grid.block_number(blo);
    read_through(src.grid.block_offset(blo), src.grid.block_shape(blo).extents());
    if (blocks[b].kind == InputRef::Kind::task)
      deps.push_back(blocks[b].task);
    return blocks[b];
  }
  // The read spans several blocks: gather its bounding box into one buffer first.
  std::vector<index_t> rext(nd);
  for (std::size_t d = 0; d < nd; ++d)
    rext[d] = hi[d] - lo[d] + 1;
  read_through(lo, rext);
  auto key = std::make_tuple(&src, lo, rext);
  if (auto it = gathers_.find(key); it != gathers_.end()) {
    deps.push_back(it->second);
    return InputRef{InputRef::Kind::task, it->second, nullptr};
  }
  std::vector<GatherPiece> pieces;
  std::vector<TaskId> gdeps;
  const auto rstrides = c_strides(rext);
  std::vector<index_t> bi(blo);
  for (;;) {
    const auto boff = src.grid.block_offset(bi);
    const auto bext = src.grid.block_shape(bi).extents();
    const auto bstrides = c_strides(bext);
    GatherPiece piece;
    piece.source = blocks[src.grid.block_number(bi)];
    if (piece.source.kind == InputRef::Kind::task)
      gdeps.push_back(piece.source.task);
    BlockProgram& cp = piece.program;
    cp.ndim = static_cast<int>(nd);
    Leaf leaf;
    leaf.kind = LeafKind::stored;
    leaf.dtype = src.dtype;
    leaf.input = 0;
    cp.sink.kind = Sink::Kind::store;
    for (std::size_t d = 0; d < nd; ++d) {
      const index_t ilo = std::max(lo[d], boff[d]);
      const index_t ihi = std::min(hi[d] + 1, boff[d] + bext[d]);
      cp.extent[d] = ihi - ilo;
      leaf.map.base += bstrides[d] * (ilo - boff[d]);
      leaf.map.coef[d] = bstrides[d];
      cp.sink.map.base += rstrides[d] * (ilo - lo[d]);
      cp.sink.map.coef[d] = rstrides[d];
    }
    cp.leaves.push_back(leaf);
    pieces.push_back(std::move(piece));
    std::size_t d = nd;
    while (d-- > 0) {
      if (++bi[d] <= bhi[d])
        break;
      bi[d] = blo[d];
    }
    if (d == static_cast<std::size_t>(-1))
      break;
  }
  index_t elements = 1;
  for (index_t e : rext)
    elements *= e;
  plan.gathers.push_back(std::move(pieces));
  Task t;
  t.kind = TaskKind::gather;
  t.index = static_cast<std::uint32_t>(plan.gathers.size() - 1);
  t.output = Output{Output::Kind::buffer, src.dtype, elements, -1};
  const TaskId id = add_task(t, std::move(gdeps));
  gathers_.emplace(std::move(key), id);
  deps.push_back(id);
  return InputRef{InputRef::Kind::task, id, nullptr};
}

TaskId Planner::add_program_task(std::uint32_t stage, index_t block, const Output& output) {
  std::vector<TaskId> deps;
  Task t;
  t.kind = TaskKind::program;
  t.index = stage;
  t.block = block;
  t.inputs_begin = static_cast<std::uint32_t>(plan.inputs.size());
  add_program_inputs(stage, block, deps);
  t.inputs_end = static_cast<std::uint32_t>(plan.inputs.size());
  t.output = output;
  return add_task(t, std::move(deps));
}

void Planner::add_program_inputs(std::uint32_t stage, index_t block, std::vector<TaskId>& deps) {
  const Stage& st = plan.stages[stage];
  const auto bidx = st.grid.block_index(block);
  const auto off = st.grid.block_offset(bidx);
  const auto ext = st.grid.block_shape(bidx).extents();
  std::array<index_t, max_ndim> origin{}, extent{};
  for (std::size_t k = 0; k < off.size(); ++k) {
    origin[k] = off[k];
    extent[k] = ext[k];
  }
  for (const auto& info : stage_reads_[stage]) {
    TaskInput in;
    in.leaf = info.leaf;
    in.ref = resolve_read(info, origin, extent, st.program.ndim, in.map, deps);
    plan.inputs.push_back(in);
  }
}

std::vector<InputRef> Planner::plan_elementwise(const NodePtr& n, Body body,
                                                const Output& out_template,
                                                std::vector<TaskId>* task_ids) {
  body.prog.sink.kind = Sink::Kind::store;
  const auto every_axis = static_cast<std::uint32_t>((std::uint64_t{1} << n->shape.ndim()) - 1);
  const ChunkGrid grid = split_for_tasks(n->grid, every_axis, split_);
  // A task per box of the grid, and for blocks cut into pieces a join per block.
  expect_tasks(*n, grid, 2);
  const std::uint32_t stage = add_stage(std::move(body), grid);
  std::vector<InputRef> refs;
  if (out_template.kind == Output::Kind::destination || grid == n->grid) {
    // Each task writes its own box of the destination, so any boxes will do; or one task per
    // block.
    const index_t nb = grid.numblocks();
    for (index_t b = 0; b < nb; ++b) {
      Output out = out_template;
      if (out.kind == Output::Kind::buffer)
        out.elements = grid.block_shape(grid.block_index(b)).size();
      const TaskId id = add_program_task(stage, b, out);
      refs.push_back(InputRef{InputRef::Kind::task, id, nullptr});
      if (task_ids)
        task_ids->push_back(id);
    }
    return refs;
  }
  // Materialised blocks cut into pieces: each block's pieces (C order), then its join, which
  // readers of the block depend on.
  const auto nd = static_cast<std::size_t>(n->shape.ndim());
  const index_t nb = n->grid.numblocks();
  std::vector<index_t> first(nd), count(nd), piece(nd);
  for (index_t b = 0; b < nb; ++b) {
    const auto bidx = n->grid.block_index(b);
    const auto boff = n->grid.block_offset(bidx);
    const auto bext = n->grid.block_shape(bidx).extents();
    Output out{Output::Kind::piece, n->dtype, 1, -1};
    for (std::size_t k = 0; k < nd; ++k) {
      out.origin[k] = boff[k];
      out.extent[k] = bext[k];
      out.elements *= bext[k];
      first[k] = grid.block_containing(static_cast<index_t>(k), boff[k]);
      count[k] =
          grid.block_containing(static_cast<index_t>(k), boff[k] + bext[k] - 1) - first[k] + 1;
    }
    std::vector<TaskId> pieces;
    std::fill(piece.begin(), piece.end(), 0);
    for (;;) {
      std::vector<index_t> at(nd);
      for (std::size_t k = 0; k < nd; ++k)
        at[k] = first[k] + piece[k];
      pieces.push_back(add_program_task(stage, grid.block_number(at), out));
      std::size_t k = nd;
      while (k-- > 0 && ++piece[k] == count[k])
        piece[k] = 0;
      if (k == static_cast<std::size_t>(-1))
        break;
    }
    Task join;
    join.kind = TaskKind::join;
    join.output = Output{Output::Kind::buffer, n->dtype, out.elements, -1};
    const TaskId id = add_task(join, pieces);
    for (const TaskId t : pieces)
      plan.tasks[t].output.owner = id;
    refs.push_back(InputRef{InputRef::Kind::task, id, nullptr});
    if (task_ids)
      task_ids->push_back(id);
  }
  return refs;
}

void Planner::find_shared_moments(const std::vector<Request>& requests) {
  struct Use {
    int members = 0;
    bool second_moment = false;
  };
  std::map<MomentsKey, Use> uses;
  std::unordered_set<const Node*> seen;
  std::vector<const Node*> stack;
  stack.reserve(requests.size());
  for (const auto& r : requests)
    stack.push_back(r.node.get());
  while (!stack.empty()) {
    const Node* cur = stack.back();
    stack.pop_back();
    if (!seen.insert(cur).second)
      continue;
    if (cur->kind == NodeKind::reduce) {
      const auto& p = cur->as<graph::ReduceParams>();
      if (is_moments_op(p.op)) {
        Use& u = uses[{cur->inputs[0].get(), axes_mask(p.axes)}];
        ++u.members;
        u.second_moment = u.second_moment || p.op != ReduceOp::mean;
      }
    }
    for (const auto& in : cur->inputs)
      stack.push_back(in.get());
  }
  for (const auto& [key, use] : uses)
    if (use.members > 1 && use.second_moment)
      moments_roots_.emplace(key, std::vector<TaskId>{});
}

std::vector<InputRef> Planner::plan_reduce(const NodePtr& n, Body body) {
  const auto& p = n->as<graph::ReduceParams>();
  const NodePtr& in = n->inputs[0];
  const std::uint32_t mask = axes_mask(p.axes);
  Combine comb;
  comb.op = p.op;
  comb.result = p.op;
  comb.input = in->dtype;
  comb.ddof = p.ddof;
  comb.count = 1;
  for (index_t a : p.axes)
    comb.count *= in->shape.extents()[a];

  std::vector<InputRef> refs;
  const auto shared =
      is_moments_op(p.op) ? moments_roots_.find({in.get(), mask}) : moments_roots_.end();
  if (shared == moments_roots_.end()) {
    for (TaskId root : plan_reduce_tree(in, std::move(body), p, mask, n->dtype, comb, true))
      refs.push_back(InputRef{InputRef::Kind::task, root, nullptr});
    return refs;
  }
  // One (count, mean, M2) pass serves every mean, var and std of this input over these axes;
  // each of them finalizes the combined partials into its own values.
  comb.op = ReduceOp::var;
  if (shared->second.empty()) {
    graph::ReduceParams moments = p;
    moments.op = ReduceOp::var;
    Combine tree = comb;
    tree.result = ReduceOp::var;
    shared->second = plan_reduce_tree(in, std::move(body), moments, mask, n->dtype, tree, false);
  }
  plan.combines.push_back(comb);
  const auto comb_index = static_cast<std::uint32_t>(plan.combines.size() - 1);
  for (std::size_t g = 0; g < shared->second.size(); ++g) {
    const TaskId root = shared->second[g];
    const Output values{Output::Kind::buffer, n->dtype, plan.tasks[root].output.elements, -1};
    refs.push_back(InputRef{InputRef::Kind::task,
                            add_combine_task(comb_index, static_cast<index_t>(g), {root}, values),
                            nullptr});
  }
  return refs;
}

std::vector<TaskId> Planner::plan_reduce_tree(const NodePtr& in, Body body,
                                              const graph::ReduceParams& p, std::uint32_t mask,
                                              DType result_dtype, Combine comb, bool final) {
  const int nd = static_cast<int>(in->shape.ndim());
  body.prog.sink.kind = Sink::Kind::reduce;
  body.prog.sink.op = p.op;
  body.prog.sink.reduced_axes = mask;
  // Cutting reduced axes only: the kept axes, and so the output blocks, stay the input's.
  const ChunkGrid grid = split_for_tasks(in->grid, mask, split_);
  // A task per box of the grid, and fewer combines than that.
  expect_tasks(*in, grid, 2);
  const std::uint32_t stage = add_stage(std::move(body), grid);
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
  index_t n_groups = 1, n_members = 1;
  for (index_t b : kept_blocks)
    n_groups *= b;
  for (index_t b : red_blocks)
    n_members *= b;

  std::vector<TaskId> roots;
  std::vector<index_t> bidx(static_cast<std::size_t>(nd));
  for (index_t g = 0; g < n_groups; ++g) {
    std::vector<index_t> kept(kept_blocks.size());
    for (index_t r = g, k = static_cast<index_t>(kept.size()); k-- > 0;) {
      kept[k] = r % kept_blocks[k];
      r /= kept_blocks[k];
    }
    index_t entries = 1;
    {
      std::size_t kk = 0;
      for (int k = 0; k < nd; ++k)
        if (!((mask >> k) & 1u))
          entries *= grid.lengths(k)[kept[kk++]];
      // Backends allocate entries * words * 8 bytes per partial: refuse a count that wraps.
      (void)chunked::detail::checked_mul(
          entries, index_t{8} * partial_layout(p.op, in->dtype).words,
          "the partial states of one block, in bytes (use smaller chunks)");
    }
    auto partial_task = [&](index_t member) {
      std::vector<index_t> red(red_blocks.size());
      for (index_t r = member, k = static_cast<index_t>(red.size()); k-- > 0;) {
        red[k] = r % red_blocks[k];
        r /= red_blocks[k];
      }
      std::size_t kk = 0, rr = 0;
      for (int k = 0; k < nd; ++k)
        bidx[k] = (mask >> k) & 1u ? red[rr++] : kept[kk++];
      return add_program_task(stage, grid.block_number(bidx),
                              Output{Output::Kind::partial, in->dtype, entries, -1});
    };
    auto combine_task = [&](const std::vector<TaskId>& parts, bool last) {
      return add_combine_task(comb_index, g, parts,
                              last ? Output{Output::Kind::buffer, result_dtype, entries, -1}
                                   : Output{Output::Kind::partial, in->dtype, entries, -1});
    };
    // Fixed tree over members [lo, hi): depth-first, so each combine follows its inputs closely
    // and few partials are alive at once.
    auto build = [&](auto&& self, index_t lo, index_t hi, bool last) -> TaskId {
      std::vector<TaskId> parts;
      if (hi - lo <= static_cast<index_t>(combine_fanin)) {
        for (index_t m = lo; m < hi; ++m)
          parts.push_back(partial_task(m));
      } else {
        index_t step = static_cast<index_t>(combine_fanin);
        while (step * static_cast<index_t>(combine_fanin) < hi - lo)
          step *= static_cast<index_t>(combine_fanin);
        for (index_t m = lo; m < hi; m += step)
          parts.push_back(self(self, m, std::min(hi, m + step), false));
      }
      return combine_task(parts, last);
    };
    roots.push_back(build(build, 0, n_members, final));
  }
  return roots;
}

void Planner::request(const Request& r) {
  if (r.kind == Request::Kind::destination &&
      (r.destination.shape != r.node->shape || r.destination.dtype != r.node->dtype))
    throw ShapeError("destination of shape " + r.destination.shape.to_string() + " and dtype " +
                     std::string(dtype_name(r.destination.dtype)) + " does not match the array's " +
                     r.node->shape.to_string() + " " + std::string(dtype_name(r.node->dtype)));
  plan.roots.push_back(r.node);
  Body body = lower_root(r.node);
  materialize_reads(body);
  if (r.kind == Request::Kind::blocks) {
    std::vector<TaskId> ids;
    plan_elementwise(r.node, std::move(body), Output{Output::Kind::buffer, r.node->dtype, 0, -1},
                     &ids);
    plan.result_blocks.push_back(std::move(ids));
    return;
  }
  plan.destinations.push_back(r.destination);
  Output out;
  out.kind = Output::Kind::destination;
  out.dtype = r.node->dtype;
  out.destination = static_cast<int>(plan.destinations.size() - 1);
  plan_elementwise(r.node, std::move(body), out, nullptr);
  plan.result_blocks.emplace_back();
}

void instantiate_sink(const Plan& plan, const Stage& st, const Task& task,
                      const std::array<index_t, max_ndim>& origin, BlockProgram& out) {
  const int nd = out.ndim;
  Sink& sink = out.sink;
  sink.map = AffineMap{};
  if (sink.kind == Sink::Kind::store) {
    if (task.output.kind == Output::Kind::destination) {
      const auto strides = plan.destinations[task.output.destination].shape.strides();
      for (int k = 0; k < nd; ++k) {
        sink.map.base += strides[k] * origin[k];
        sink.map.coef[k] = strides[k];
      }
    } else if (task.output.kind == Output::Kind::piece) {
      // C order over the whole block, from the piece's place in it.
      index_t acc = 1;
      for (int k = nd; k-- > 0;) {
        sink.map.coef[k] = acc;
        sink.map.base += acc * (origin[k] - task.output.origin[k]);
        acc *= task.output.extent[k];
      }
    } else {
      index_t acc = 1;
      for (int k = nd; k-- > 0;) {
        sink.map.coef[k] = acc;
        acc *= out.extent[k];
      }
    }
    return;
  }
  // Reduce: entries laid out in C order over the kept axes of this block.
  index_t acc = 1;
  for (int k = nd; k-- > 0;) {
    if ((sink.reduced_axes >> k) & 1u)
      continue;
    sink.map.coef[k] = acc;
    acc *= out.extent[k];
  }
  sink.num_partials = acc;
  sink.index_map = AffineMap{};
  if (sink.op == ReduceOp::argmin || sink.op == ReduceOp::argmax) {
    if (st.reduce_flat_index) {
      for (int k = 0; k < nd; ++k) {
        sink.index_map.base += st.reduce_input_strides[k] * origin[k];
        sink.index_map.coef[k] = st.reduce_input_strides[k];
      }
    } else {
      for (int k = 0; k < nd; ++k)
        if ((sink.reduced_axes >> k) & 1u) {
          sink.index_map.base += origin[k];
          sink.index_map.coef[k] = 1;
        }
    }
  }
}

} // namespace

void Plan::instantiate(TaskId id, BlockProgram& out) const {
  const Task& task = tasks[id];
  const Stage& st = stages[task.index];
  out = st.program;
  const int nd = out.ndim;
  std::array<index_t, max_ndim> origin{};
  index_t rest = task.block;
  for (int k = nd; k-- > 0;) {
    const auto& lengths = st.grid.lengths(k);
    const auto nb = static_cast<index_t>(lengths.size());
    const index_t b = rest % nb;
    rest /= nb;
    origin[k] = st.grid.offsets(k)[b];
    out.extent[k] = lengths[b];
  }
  for (auto& leaf : out.leaves) {
    if (leaf.kind == LeafKind::stored || leaf.kind == LeafKind::constant)
      continue;
    for (int k = 0; k < nd; ++k)
      leaf.map.base = add_mul(leaf.map.base, leaf.map.coef[k], origin[k]);
  }
  for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
    out.leaves[inputs[j].leaf].map = inputs[j].map;
  instantiate_sink(*this, st, task, origin, out);
}

std::uint64_t Plan::work_bytes(TaskId id) const {
  const Task& task = tasks[id];
  if (task.kind != TaskKind::program)
    return 0;
  const Stage& st = stages[task.index];
  index_t rest = task.block, elements = 1;
  for (int k = st.program.ndim; k-- > 0;) {
    const auto& lengths = st.grid.lengths(k);
    const auto nb = static_cast<index_t>(lengths.size());
    elements *= lengths[rest % nb];
    rest /= nb;
  }
  return static_cast<std::uint64_t>(elements) * dtype_size(st.program.result_dtype());
}

std::string Plan::describe() const {
  std::string s;
  std::vector<index_t> per_stage(stages.size(), 0);
  index_t n_gather = 0, n_combine = 0, n_join = 0;
  for (const auto& t : tasks) {
    if (t.kind == TaskKind::program)
      ++per_stage[t.index];
    else if (t.kind == TaskKind::gather)
      ++n_gather;
    else if (t.kind == TaskKind::combine)
      ++n_combine;
    else
      ++n_join;
  }
  for (std::size_t i = 0; i < stages.size(); ++i)
    s += "stage " + std::to_string(i) + ": " + std::to_string(per_stage[i]) + " tasks over grid " +
         stages[i].grid.to_string() + "\n" + stages[i].program.describe() + "\n";
  s += "gathers: " + std::to_string(n_gather) + ", combines: " + std::to_string(n_combine) +
       ", joins: " + std::to_string(n_join) + ", tasks: " + std::to_string(tasks.size()) + "\n";
  return s;
}

Plan make_plan(const std::vector<Request>& requests, const TaskSplit& split) {
  return chunked::detail::reporting_out_of_memory(
      "planning " + std::to_string(requests.size()) + " array(s)",
      "use larger chunks, so that there are fewer blocks and tasks", [&] {
        Planner p(split);
        p.find_shared_moments(requests);
        for (const auto& r : requests)
          p.request(r);
        order_for_locality(p.plan);
        return std::move(p.plan);
      });
}

} // namespace chunked::plan
