// SPDX-License-Identifier: Apache-2.0
// Plan: the block tasks that compute a set of arrays, as data every backend's executor reads.
#pragma once

#include "plan/block_program.hpp"
#include "plan/partial.hpp"
#include "plan/task_split.hpp"
#include <chunked/core/buffer.hpp>
#include <chunked/core/chunk_grid.hpp>
#include <chunked/graph/node.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace chunked::plan {

using TaskId = std::uint32_t;

/// A buffer a task reads: the output of an earlier task, or a block already in memory.
struct InputRef {
  enum class Kind : std::uint8_t { task, stored };
  Kind kind = Kind::task;
  TaskId task = 0;
  const Buffer* stored = nullptr;
};

/// A caller-owned dense array that results are written into (compute(), to_host()): C-order
/// strides over the full shape.
struct Destination {
  void* data = nullptr;
  DType dtype = DType::float64;
  Shape shape;
  MemorySpace space;
  /// Per axis, in elements, when the array is not dense: the one buffer of a persisted stencil
  /// (graph::StoredData::frame), which only the tasks of user functions that take strided views
  /// write (Request::node is such a user node). Empty: C order.
  std::vector<index_t> strides;
};

/// Where a task's result goes.
struct Output {
  enum class Kind : std::uint8_t {
    buffer,      ///< a new buffer of `elements` values of `dtype` (a materialised block)
    partial,     ///< a new buffer of `elements` partial entries
    destination, ///< written into destinations[destination] at the task's box
    /// a piece of a materialised block: the task's box written into the block's buffer, which
    /// the join task `owner` holds once every piece has run (the first piece to run allocates
    /// it: `elements` values of `dtype`, the block at `origin` with extents `extent`)
    piece,
  };
  Kind kind = Kind::buffer;
  DType dtype = DType::float64;
  index_t elements = 0;
  int destination = -1;
  std::array<index_t, max_ndim> origin{}; ///< pieces: the block's origin in the stage grid
  std::array<index_t, max_ndim> extent{}; ///< pieces: the block's extents
  std::uint32_t owner = 0;                ///< pieces: the block's join task
};

/// Bytes of a task's output buffer: `out.elements` values of its dtype, or as many partial
/// entries of `op` (the reduction that produces them) over inputs of its dtype.
inline std::size_t output_bytes(const Output& out, ReduceOp op) {
  if (out.kind == Output::Kind::partial)
    return static_cast<std::size_t>(out.elements) * 8u *
           static_cast<std::size_t>(partial_layout(op, out.dtype).words);
  return static_cast<std::size_t>(out.elements) * dtype_size(out.dtype);
}

/// A fused program over the blocks of one grid. Leaf maps of non-stored leaves are given for a
/// block at the origin; a block at origin o adds sum_k coef[k] * o[k] to their base.
struct Stage {
  BlockProgram program;
  ChunkGrid grid;
  std::vector<int> stored_leaves; ///< leaves whose map and input come per task
  /// Reduce stages: shape of the reduction input (for flat argmin/argmax indices).
  std::vector<index_t> reduce_input_strides;
  bool reduce_flat_index = false;
  /// Where `grid` cuts an array's blocks into several tasks each (plan::TaskSplit): that array's
  /// grid, so that progress counts its blocks rather than the tasks.
  bool cut = false;
  ChunkGrid blocks;
  /// Reduce stages whose every task is the only one along the reduced axes: the combine
  /// (Plan::combines) whose finalize each task applies to its own partials, its output being the
  /// result's values rather than partials (no combine task follows); -1: tasks output partials.
  std::int32_t finalize = -1;
};

/// A copy of one piece of a source block into a gather buffer.
struct GatherPiece {
  InputRef source;
  BlockProgram program; ///< one stored leaf (input 0), store sink into the gather buffer
};

/// One reduction's combine parameters, shared by all its combine tasks (Task::block is the
/// output block). Partials combine by `op`'s rules; a task whose output is a buffer then finalizes
/// them into values of `result`, which is `op` itself, or `mean`, `var` or `std` from the
/// (count, mean, M2) partials of `var`/`std` (one moments pass shared by several reductions).
struct Combine {
  ReduceOp op = ReduceOp::sum;
  ReduceOp result = ReduceOp::sum;
  DType input = DType::float64; ///< dtype of the reduced values
  index_t count = 0;            ///< elements reduced into each entry (mean/var/std)
  index_t ddof = 0;
};

/// One scan's parameters, shared by its scan tasks (Task::block is the block number in `grid`).
/// A scan task's inputs (Plan::inputs, leaf -1) are the block to scan and, unless the block is
/// the first along the axis, the output of the scan task of the block before it along the axis:
/// that block's last row along the axis is the carried prefix (scan.cpp says why it is exactly
/// the running total of all earlier blocks, combined in block order).
struct ScanStage {
  graph::ScanParams::Op op = graph::ScanParams::Op::sum;
  int axis = 0;
  DType dtype = DType::float64; ///< of the input and the output: int64, float or double
  ChunkGrid grid;
};

/// program: a stage's program over one box of its grid; gather: copies of source pieces into
/// one buffer; combine: partials folded in order; join: a block whose pieces (its dependencies)
/// have been written, its output being their buffer; assemble: a block of a reshape or
/// concatenate, copied together from pieces of its inputs' blocks (its pieces are in
/// Plan::gathers, as a gather's are, and every output element is written by one of them); scan:
/// one block scanned along an axis with the carried prefix of the blocks before it (Plan::scans);
/// user: a user block function called on its inputs, into a new buffer (Plan::users); load: a
/// block of a lazy leaf read from its source into a new buffer (Plan::loads); write: a computed
/// block handed to a sink in host memory (Plan::writes; its one input in Plan::inputs).
enum class TaskKind : std::uint8_t {
  program,
  gather,
  combine,
  join,
  assemble, // reshape helper
  scan,     // scans helper (issue 21)
  user,     // usercode helper: Plan::users[index] on output block `block`
  load,     // Plan::loads[index] read for block `block` of its grid
  write,    // block `block` of Plan::writes[index]'s grid handed to its sink
  product   // linalg helper: Plan::product_terms[index] added into output block `block`
};

/// "program", "gather", "combine", ...: the kind's name in traces and NVTX ranges.
const char* task_kind_name(TaskKind kind);

struct Task {
  TaskKind kind = TaskKind::program;
  std::uint32_t index = 0; ///< stage, gather, combine or scan number (joins: unused)
  index_t block = 0;       ///< program and scan tasks: block number in the stage (scan) grid
  std::uint32_t inputs_begin = 0, inputs_end = 0; ///< range in Plan::inputs (combines:
                                                  ///< Plan::combine_inputs)
  Output output;
};

/// A user block function (map_blocks, map_overlap) over its output grid. Its tasks' inputs (in
/// Plan::inputs, leaf -1) are, per input array, input block b widened by the halo as one C-order
/// buffer of input_shape(b); the task writes output block b into a new buffer.
struct UserStage {
  std::shared_ptr<const chunked::detail::BlockFunction> fn;
  ChunkGrid grid;             ///< the output's
  ChunkGrid input_grid;       ///< input block b is read for output block b
  std::vector<index_t> depth; ///< per axis (empty: no halo)
  Boundary boundary;
  DType dtype = DType::float64;

  /// The halo below and above input block `index` along `axis` (none on outer sides when the
  /// boundary is Boundary::none).
  std::pair<index_t, index_t> halo(const std::vector<index_t>& index, index_t axis) const;
  /// The shape of every input buffer of output block `block`: the input block and its halo.
  Shape input_shape(index_t block) const;
  /// What the function is told about output block `block` (device -1, no stream).
  BlockInfo info(index_t block) const;
};

/// The strides of a user task's input `ref` of `shape` as its function sees it: a region of a
/// whole array read in place (a persisted stencil, borrowed memory) has the array's, anything
/// else is dense (C order). `packed`: the backend reads a packed copy of the region.
std::vector<index_t> user_input_strides(const InputRef& ref, const Shape& shape, bool packed);
/// Where a user task writing into destination `d` puts output block `block` of `u`: the block's
/// first element, with d's strides.
chunked::detail::RawView user_destination(const Destination& d, const UserStage& u, index_t block);

/// A lazy leaf whose blocks are read by load tasks (Task::block is the block number in `grid`),
/// each made only when some task reads the block, at most once per plan.
struct LoadStage {
  std::shared_ptr<const graph::BlockSource> source;
  ChunkGrid grid;
  DType dtype = DType::float64;
};

/// An array whose blocks are handed to `sink` (detail::write_blocks): one write task per block
/// of `grid`, reading the block (its one input) and calling the sink with it in host memory.
struct WriteStage {
  graph::BlockSink* sink = nullptr; ///< the caller's, alive for the whole computation
  ChunkGrid grid;
  DType dtype = DType::float64;
};

/// A product of blocks (graph::ContractParams): block o of `grid` is the sum, over the blocks of
/// the contracted axes in C order, of the products of a block of `a_grid` and one of `b_grid`.
/// Each term is one product task (Plan::product_terms), whose inputs (Plan::inputs, leaf -1) are
/// the two operand blocks and, after the first term, the output of the term before: the task
/// adds its product into that buffer, which becomes its own output (nothing else reads it), so
/// the terms add in a fixed order and a block's sum needs one buffer.
struct ProductStage {
  DType dtype = DType::float64;
  ChunkGrid grid, a_grid, b_grid;
  graph::ContractParams axes;
};
struct ProductTerm {
  std::uint32_t stage = 0;
  index_t a_block = 0, b_block = 0; ///< C order over a_grid and b_grid
};
/// The matrices of one product term: `batch` products of (m, k) by (k, n) matrices, each operand
/// and the output C-order stacks of them; `accumulate` when the term adds into the term before.
struct ProductShape {
  index_t batch = 1, m = 1, n = 1, k = 1;
  bool accumulate = false;
};
struct Plan;
ProductShape product_shape(const Plan& plan, const Task& task);

/// Per-task input of a program (a stored leaf's buffer and its map for this block) or of a
/// combine (a partial, leaf = -1).
struct TaskInput {
  InputRef ref;
  int leaf = -1;
  AffineMap map;
  /// Borrowed regions (plan/borrowed.hpp): the leaf's map into a packed C-order copy of the
  /// region, for backends that copy it rather than read it in place through `map`.
  AffineMap packed;
};

struct Plan {
  std::vector<Stage> stages;
  std::vector<std::vector<GatherPiece>> gathers; ///< pieces of gather and assemble tasks
  std::vector<Combine> combines;
  std::vector<ScanStage> scans;
  std::vector<UserStage> users;       ///< usercode helper: user block functions (TaskKind::user)
  std::vector<LoadStage> loads;       ///< lazy leaves read by load tasks
  std::vector<WriteStage> writes;     ///< arrays written block by block by write tasks
  std::vector<ProductStage> products; ///< linalg helper: products of blocks
  std::vector<ProductTerm> product_terms; ///< one per product task
  std::vector<Task> tasks;
  std::vector<TaskInput> inputs;
  std::vector<InputRef> combine_inputs;  ///< combine tasks: partials in combine order
  std::vector<std::vector<TaskId>> deps; ///< per task, the tasks it waits for
  std::vector<Destination> destinations;
  /// Per requested array: for persist(), the task producing each block (C order over its grid);
  /// empty for the other kinds.
  std::vector<std::vector<TaskId>> result_blocks;
  /// Keeps the graph (and so the stored buffers that InputRefs point at) alive.
  std::vector<graph::NodePtr> roots;
  /// The regions of borrowed memory that stored InputRefs point at (plan/borrowed.hpp).
  std::vector<std::shared_ptr<const Buffer>> borrowed_regions;

  /// Fills `out` with the program of a program task, for this block.
  void instantiate(TaskId task, BlockProgram& out) const;
  /// Bytes of values a task computes, for progress rates: a program task's whole iteration box
  /// (before any reduction) in its result dtype; other tasks count nothing, so rates measure
  /// the work the user asked for.
  std::uint64_t work_bytes(TaskId task) const;
  /// Human-readable summary for tests and debugging: stages with their programs and task counts.
  std::string describe() const;

  /// What a task is called in traces and reports.
  struct TaskLabel {
    std::string name;  ///< its program or kind, e.g. "program 0: normal \u00b7 sum", "combine sum"
    const char* kind;  ///< "program", "gather", "combine", ...
    std::string block; ///< the block it makes, e.g. "(0, 3)"; empty when it has none
  };
  TaskLabel task_label(TaskId task) const;
  /// task_label(task).block alone: the name depends only on the task's kind and stage.
  std::string task_block(TaskId task) const;
  /// The grid of the block `task` makes, the one task_block() names its block in; null for a
  /// task without one (gathers, joins, assembles) and for a combine, whose block is its number.
  const ChunkGrid* task_grid(TaskId task) const;
};

/// The combine whose finalize task `task` ends with: a combine task's that outputs values, or a
/// program task's whose stage finalizes its own partials (Stage::finalize); null for a task that
/// finalizes nothing.
inline const Combine* finalizing_combine(const Plan& plan, const Task& task) {
  if (task.output.kind != Output::Kind::buffer)
    return nullptr;
  if (task.kind == TaskKind::combine)
    return &plan.combines[task.index];
  if (task.kind == TaskKind::program && plan.stages[task.index].finalize >= 0)
    return &plan.combines[static_cast<std::size_t>(plan.stages[task.index].finalize)];
  return nullptr;
}

/// "(i, j, ...)" ("(i,)" in one dimension, "()" in none): block `block` of `grid` as traces and
/// reports name it.
std::string block_name(const ChunkGrid& grid, index_t block);
/// block_name(grid, block) appended to `out`, with no allocation of its own.
void append_block_name(std::string& out, const ChunkGrid& grid, index_t block);

/// What to produce for each requested array.
struct Request {
  graph::NodePtr node;
  /// destination: into caller memory; blocks: kept as buffers (persist); write: each block
  /// handed to `sink` once it is computed, then freed.
  enum class Kind : std::uint8_t { destination, blocks, write } kind = Kind::destination;
  Destination destination;          ///< for Kind::destination
  graph::BlockSink* sink = nullptr; ///< for Kind::write
};

/// Lowers arrays to one plan. Materialised intermediates shared between requests are computed
/// once; reductions and destination results are cut into tasks as `split` says. Throws
/// chunked::Error for programs it cannot plan.
Plan make_plan(const std::vector<Request>& requests, const TaskSplit& split = {});

} // namespace chunked::plan
