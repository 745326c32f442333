// SPDX-License-Identifier: Apache-2.0
// The planner (planner internals): lowers requested arrays to the block tasks of one Plan. Its
// passes live one per file: planner.cpp (requests, materialisation order, task bookkeeping),
// elementwise_tasks.cpp (a program's tasks over a grid), reads.cpp and gathers.cpp (what a task
// reads, aligned to the blocks it reads from), reduction.cpp (stage and combine tree of a
// reduction), shared_moments.cpp (one moments pass serving several mean, var and std), scan.cpp
// (the chain of scan tasks along a scanned axis), block_io.cpp (load and write tasks).
#pragma once

#include "index_maps.hpp"
#include "lowering.hpp"

#include "plan/plan.hpp"
#include "plan/task_split.hpp"
#include <chunked/core/chunk_grid.hpp>
#include <chunked/graph/node.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace chunked::plan::detail {

/// Bit k set for each axis k in `axes`.
inline std::uint32_t axes_mask(const std::vector<index_t>& axes) {
  std::uint32_t mask = 0;
  for (index_t a : axes)
    mask |= 1u << a;
  return mask;
}

class Planner {
public:
  explicit Planner(const TaskSplit& split) : split_(split) {}

  Plan plan;

  /// Plans one requested array after those requested before it.
  void request(const Request& r);
  /// Reductions that share one moments pass: (input, reduced-axes mask) pairs reduced by `mean`,
  /// `var` or `std` more than once in the requested graphs, at least once by var or std.
  void find_shared_moments(const std::vector<Request>& requests);

private:
  // ---- planner.cpp: materialisation order and task bookkeeping

  /// The program computing n's blocks (n itself unless its blocks already exist in memory or
  /// come from a reduction: then the program copies them), with intermediates stored where one
  /// program would pass the caps.
  Body lower_root(const graph::NodePtr& n);
  /// Plans every materialised node that `body` reads and all they read in turn, each before its
  /// readers, with an explicit stack: chains of stored intermediates may be any length.
  void materialize_reads(const Body& body);
  /// For a persist of `n` whose lowered `body` only copies its blocks: when each block is
  /// already one task's own buffer, those tasks (in block order) in `ids`, and true.
  bool planned_blocks(const graph::Node& n, const Body& body, std::vector<TaskId>& ids);
  /// The program a materialised node's blocks are computed by (empty for stored data).
  Body materialize_program(const graph::NodePtr& n);
  /// The tasks of a materialised node from its program, once what that reads is planned.
  std::vector<InputRef> materialize_tasks(const graph::NodePtr& n, Body body);
  std::uint32_t add_stage(Body body, const ChunkGrid& grid);
  /// Records on `stage` that its grid `cut` cuts the blocks of `blocks` (nothing when equal).
  void mark_cut(std::uint32_t stage, const ChunkGrid& cut, const ChunkGrid& blocks);
  /// Refuses, before making any, the tasks of n over `grid` (up to `per_box` per box of it)
  /// where they would not fit in memory or in a TaskId.
  void expect_tasks(const graph::Node& n, const ChunkGrid& grid, std::uint64_t per_box) const;
  TaskId add_task(Task t, std::vector<TaskId> deps);
  /// A combine task of combines[comb] over `parts` (in that order) for output block `block`.
  TaskId add_combine_task(std::uint32_t comb, index_t block, const std::vector<TaskId>& parts,
                          const Output& output);
  /// A task running stage's program on one block, with its stored-leaf inputs resolved.
  TaskId add_program_task(std::uint32_t stage, index_t block, const Output& output);

  // ---- reads.cpp, gathers.cpp: what a program task reads

  void add_program_inputs(std::uint32_t stage, index_t block, std::vector<TaskId>& deps);
  /// The buffer a stored leaf reads over the box at `origin` of `extent`, and in `map` its
  /// index map into that buffer; the tasks it waits for are added to `deps`.
  InputRef resolve_read(const StoredLeafInfo& info, const std::array<index_t, max_ndim>& origin,
                        const std::array<index_t, max_ndim>& extent, int ndim, AffineMap& map,
                        std::vector<TaskId>& deps);
  /// A read of borrowed memory (from_host_view, from_device) over the box at `origin`: the
  /// region of the caller's array it reads in place (the block holding the read, else its
  /// bounding box; one per plan), `map` into it with the array's strides and `packed` into a
  /// C-order copy of it. No task: the memory is there already.
  InputRef read_borrowed(const StoredLeafInfo& info, const std::array<index_t, max_ndim>& origin,
                         const std::array<index_t, max_ndim>& extent, int ndim, AffineMap& map,
                         AffineMap& packed);
  /// The region of borrowed (or persisted stencil's) array `src` at `lo` of `extent`, read with
  /// the array's `strides`: one per box and plan (plan/borrowed.hpp).
  InputRef borrowed_region(const graph::Node& src, const std::array<index_t, max_ndim>& lo,
                           const std::array<index_t, max_ndim>& extent,
                           const std::array<index_t, max_ndim>& strides);
  /// The gather task copying the box of src at `lo` of extents `rext` (spanning its blocks
  /// `blo` to `bhi`) into one C-order buffer, made once per box.
  TaskId add_gather(const graph::Node& src, const std::vector<index_t>& lo,
                    const std::vector<index_t>& rext, const std::vector<index_t>& blo,
                    const std::vector<index_t>& bhi);

  // ---- elementwise_tasks.cpp

  /// The tasks computing n's blocks (buffer outputs) or writing n into a destination by n's
  /// program `body`; where the split asks for more tasks than blocks, each block is cut into
  /// pieces.
  std::vector<InputRef> plan_elementwise(const graph::NodePtr& n, Body body,
                                         const Output& out_template, std::vector<TaskId>* task_ids);
  /// The pieces of each of n's blocks over the finer `grid` of `stage`, then a join per block.
  std::vector<InputRef> plan_pieces(const graph::Node& n, std::uint32_t stage,
                                    const ChunkGrid& grid, std::vector<TaskId>* task_ids);

  // ---- reduction.cpp

  std::vector<InputRef> plan_reduce(const graph::NodePtr& n, Body body);
  /// The stage and combine tree of reducing `in` (by its program `body`) by `op` over the axes
  /// in `mask`: per output block (kept-axis block indices in C order), the root combine task,
  /// which finalizes into `comb.result` when `final` and otherwise leaves the combined partial.
  std::vector<TaskId> plan_reduce_tree(const graph::NodePtr& in, Body body,
                                       const graph::ReduceParams& p, std::uint32_t mask,
                                       DType result_dtype, Combine comb, bool final);

  // ---- assemble.cpp

  /// The assemble tasks of reshape or concatenate node n (its inputs' blocks planned): per
  /// output block, one task copying its pieces, or the input block itself where the block is
  /// one whole input block in its own layout.
  std::vector<InputRef> plan_assemble(const graph::NodePtr& n);

  // ---- scan.cpp

  /// The scan tasks of scan node n, after the tasks computing its input's blocks by `body`.
  std::vector<InputRef> plan_scan(const graph::NodePtr& n, Body body);

  // ---- user_tasks.cpp (usercode helper)

  /// A user node's "program": no instructions, its inputs as the reads to materialise first.
  static Body user_reads(const graph::Node& n);
  /// One user task per output block of n, each reading its inputs' blocks widened by the halo,
  /// writing into a new buffer or, given `destination`, into plan.destinations[destination]
  /// (a persisted stencil's strided buffer).
  std::vector<InputRef> plan_user(const graph::Node& n, int destination = -1);
  /// Input `src`'s block for user stage `u`'s output block `block`, with its halo: the block
  /// itself where it is one block of src without halo, else a gather task padding it.
  InputRef user_input(const graph::Node& src, const UserStage& u, index_t block,
                      std::vector<TaskId>& deps);
  /// Input `src`'s block with its halo where it lies in src's one buffer (no task).
  InputRef in_place_region(const graph::Node& src, const UserStage& u, index_t block);

  // ---- contract.cpp (linalg helper)

  /// Whether a contract node's operand is computed into each term's block by its program (else
  /// its blocks are read where they are).
  bool computed_per_term(const graph::Node& operand) const;
  /// A contract node's "program": no instructions; as the reads to materialise first, each
  /// operand that is read from memory, and what the programs of the others read.
  Body contract_reads(const graph::Node& n);
  /// The chains of product tasks of contract node n (what its operands read planned): per
  /// output block, one task per block of the contracted axes, each adding into the one before.
  std::vector<InputRef> plan_contract(const graph::Node& n);

  // ---- block_io.cpp: lazy leaves' load tasks, and write tasks

  /// A lazy leaf's blocks before any is read: placeholders, each replaced by its load task when
  /// block_ref first reads it.
  std::vector<InputRef> plan_source(const graph::Node& n);
  /// Block `block` (C order over its grid) of materialised node `src`: for a lazy leaf, its load
  /// task, made on this first read. Every read of a planned block goes through here.
  InputRef block_ref(const graph::Node& src, index_t block);
  /// Every block of `src` (block_ref of each).
  std::vector<InputRef> all_blocks(const graph::Node& src);
  /// What a read of an empty box of `src` points at: no block of a lazy leaf is loaded for it.
  InputRef empty_read(const graph::Node& src);
  /// The write tasks handing each of n's blocks (made by `blocks`, C order) to `sink`.
  void add_writes(const graph::Node& n, graph::BlockSink* sink, const std::vector<TaskId>& blocks);

  // ---- shared_moments.cpp

  using MomentsKey = std::pair<const graph::Node*, std::uint32_t>;
  /// The shared moments pass n (a reduction) belongs to, or nullptr.
  std::vector<TaskId>* shared_moments(const graph::Node& n);
  /// n's values finalized from the shared moments pass `roots` (planned first if it is not yet,
  /// from `body`), with combine parameters `comb`.
  std::vector<InputRef> plan_from_moments(const graph::NodePtr& n, Body body, Combine comb,
                                          std::vector<TaskId>& roots);

  std::map<MomentsKey, std::vector<TaskId>> moments_roots_; ///< shared keys; roots once planned
  std::unordered_map<const graph::Node*, std::vector<InputRef>> blocks_of_;
  std::vector<std::vector<StoredLeafInfo>> stage_reads_;
  ForcedSet forced_;
  std::map<std::tuple<const graph::Node*, std::vector<index_t>, std::vector<index_t>>, TaskId>
      gathers_;
  /// Borrowed regions made so far, by (node, lo, extents).
  std::map<std::tuple<const graph::Node*, std::vector<index_t>, std::vector<index_t>>,
           const Buffer*>
      borrowed_;
  TaskSplit split_;
  /// Per lazy leaf, its LoadStage in plan.loads, made with its first load task.
  std::unordered_map<const graph::Node*, std::uint32_t> load_stages_;
  /// Reductions across blocks planned so far: the passes over their inputs. A lazy leaf's loads
  /// are shared within a pass only (block_ref).
  std::uint32_t passes_ = 0;
  /// Per lazy leaf, the pass its load tasks in blocks_of_ were made in.
  std::unordered_map<const graph::Node*, std::uint32_t> load_pass_;
  const Buffer* empty_block_ = nullptr; ///< empty_read's buffer, once made
};

} // namespace chunked::plan::detail
