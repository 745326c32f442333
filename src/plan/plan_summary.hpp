// SPDX-License-Identifier: Apache-2.0
// PlanSummary: a plan's tasks grouped by stage (a program's tasks, a reduction's combines, the
// gathers reading one array, ...), the data flowing between the groups and the bytes moved: what
// explain() and to_dot() show, so that a plan of 100,000 tasks reads as a handful of stages.
#pragma once

#include "plan/leaf_index.hpp"
#include "plan/plan.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace chunked::plan {

/// Tasks of one kind that do one thing, or an array already in memory that tasks read.
struct TaskGroup {
  enum class Kind : std::uint8_t {
    stored,
    program,
    join,
    gather,
    assemble,
    combine,
    scan,
    user,
    load,
    write,
    product
  };
  Kind kind = Kind::program;
  /// program, join: the stage; combine, scan, user, load, write, product: the number in the Plan's
  /// list of
  /// them; gather, assemble: the group that their first piece reads; stored: the StoredArray
  /// number (0 for memory of no stored array).
  std::uint32_t index = 0;
  index_t tasks = 0;
  index_t blocks = 0;                 ///< buffers of values it leaves for other tasks to read
  std::uint64_t bytes = 0;            ///< of those buffers
  std::uint64_t partial_bytes = 0;    ///< of the reduction partial states it leaves
  index_t destination_tasks = 0;      ///< tasks that write into the caller's array
  bool result = false;                ///< its blocks are a requested result (persist, write)
  std::vector<std::uint32_t> readers; ///< groups reading what it leaves, ascending
  std::vector<std::uint32_t> sources; ///< groups it reads, ascending
};

struct PlanSummary {
  std::vector<TaskGroup> groups; ///< in the order their first task (or read) comes in the plan
  std::vector<std::uint32_t> group_of_task;
  /// (from, to) group pairs with the number of reads: a task waiting for another, or reading a
  /// buffer of a stored array.
  std::map<std::pair<std::uint32_t, std::uint32_t>, index_t> edges;
  std::array<index_t, 10> tasks_by_kind{}; ///< indexed by TaskKind
  std::vector<TaskId> stage_task;        ///< per stage, its task of the lowest block (to show maps)
  std::uint64_t read_memory = 0;         ///< bytes read from stored arrays and borrowed memory
  std::uint64_t read_storage = 0;        ///< bytes lazy leaves load from outside memory
  std::uint64_t written_destination = 0; ///< into the caller's array
  std::uint64_t written_sinks = 0;       ///< handed to sinks (save_npy, to_zarr)
  std::uint64_t materialised = 0;        ///< buffers of values made for other tasks to read
  std::uint64_t partials = 0;            ///< partial states of reductions

  /// The group of (kind, index), or -1 when the plan has none.
  int find(TaskGroup::Kind kind, std::uint32_t index) const;
};

/// Groups the tasks of `plan`, following its reads.
PlanSummary summarize(const Plan& plan, const LeafIndex& leaves);

/// How explain() and to_dot() name a group: "program 0", "combine 1 (sum)", "gathers from
/// program 2", "stored array 1 (from_host or persist)".
std::string group_name(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves,
                       std::uint32_t group);

/// Why a group's buffers are stored rather than computed where they are read (its readers
/// named), or empty when the group leaves none.
std::string materialised_because(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves,
                                 std::uint32_t group);

/// A chunk grid in a few words: "(500, 500) in 4x4 blocks of (125, 125)", with the first length
/// and a range per axis where blocks differ (a plan may have 100,000 of them).
std::string grid_text(const ChunkGrid& grid);

/// "12.3 MB" (decimal units), or "0 B".
std::string bytes_text(std::uint64_t bytes);

/// The lines explain() gives for program `stage`: its tasks, grid, leaves (with the views pushed
/// into them), operations and sink.
std::string describe_stage(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves,
                           std::uint32_t stage);

/// One line per leaf, the operations and the sink of program `stage`, short, for to_dot().
std::string stage_summary(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves,
                          std::uint32_t stage);

} // namespace chunked::plan
