// SPDX-License-Identifier: Apache-2.0
// explain()'s text (explain.hpp): the requested arrays, the programs, the other stages, the
// intermediates stored and why, the tasks and the bytes.
#include "plan/explain.hpp"

#include "plan/plan_summary.hpp"

#include <array>
#include <string>

namespace chunked::plan {

namespace {

using Kind = TaskGroup::Kind;

std::string plural(index_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// "20 tasks: 17 program, 3 combine".
std::string task_line(const Plan& plan, const PlanSummary& s) {
  static constexpr std::array<const char*, 10> kinds = {"program",  "gather", "combine", "join",
                                                        "assemble", "scan",   "user",    "load",
                                                        "write",    "product"};
  std::string out = plural(static_cast<index_t>(plan.tasks.size()), "task", "tasks");
  const char* sep = ": ";
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    if (s.tasks_by_kind[k] == 0)
      continue;
    out += sep + std::to_string(s.tasks_by_kind[k]) + " " + kinds[k];
    sep = ", ";
  }
  return out + "\n";
}

std::string header(const Plan& plan, std::string_view backend) {
  std::string out;
  for (const graph::NodePtr& root : plan.roots)
    out += "explain: " + std::string(dtype_name(root->dtype)) + " array of shape " +
           grid_text(root->grid) + ", planned for the " + std::string(backend) + "\n";
  if (plan.roots.empty())
    out += "explain: an empty array, planned for the " + std::string(backend) +
           ": nothing to compute\n";
  return out;
}

/// The stages that are not programs: combines, gathers, joins, loads, ...
std::string other_stages(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves) {
  std::string out;
  for (std::uint32_t g = 0; g < s.groups.size(); ++g) {
    const TaskGroup& grp = s.groups[g];
    if (grp.kind == Kind::program || grp.kind == Kind::stored)
      continue;
    out += "  " + group_name(plan, s, leaves, g) + ": " + plural(grp.tasks, "task", "tasks");
    if (grp.kind == Kind::combine) {
      // The fixed tree: the partials it reads from other stages, folded in block order.
      index_t parts = 0;
      for (const auto& [edge, reads] : s.edges)
        if (edge.second == g && edge.first != g)
          parts += reads;
      out += " folding " + plural(parts, "partial state", "partial states") + " into " +
             (grp.blocks > 0 ? plural(grp.blocks, "result block", "result blocks")
                             : std::string("partial states that other combines finalize"));
    } else if (grp.blocks > 0) {
      out += " making " + plural(grp.blocks, "block", "blocks");
    }
    out += "\n";
  }
  return out.empty() ? "" : "other stages:\n" + out;
}

std::string intermediates(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves) {
  std::string out;
  for (std::uint32_t g = 0; g < s.groups.size(); ++g) {
    const TaskGroup& grp = s.groups[g];
    const std::string why = materialised_because(plan, s, leaves, g);
    if (why.empty())
      continue;
    out += "  " + group_name(plan, s, leaves, g) + ": " + plural(grp.blocks, "block", "blocks") +
           ", " + bytes_text(grp.bytes) + "; why: " + why + "\n";
  }
  if (out.empty())
    return "intermediates stored: none (every program computes its leaves where it reads them)\n";
  return "intermediates stored (materialised):\n" + out;
}

std::string bytes_lines(const PlanSummary& s) {
  return "bytes read: " + bytes_text(s.read_memory) + " from arrays in memory, " +
         bytes_text(s.read_storage) + " from storage\n" +
         "bytes written: " + bytes_text(s.written_destination) + " into the destination, " +
         bytes_text(s.written_sinks) + " to sinks, " + bytes_text(s.materialised) +
         " of intermediates, " + bytes_text(s.partials) + " of partial states\n";
}

/// "result: 1 block, written by 1 task into the destination".
std::string result_line(const Plan& plan, const PlanSummary& s) {
  index_t writers = 0;
  for (const TaskGroup& g : s.groups)
    writers += g.destination_tasks;
  index_t blocks = 0;
  for (const graph::NodePtr& root : plan.roots)
    blocks += root->grid.numblocks();
  if (writers == 0)
    return "";
  return "result: " + plural(blocks, "block", "blocks") + ", written by " +
         plural(writers, "task", "tasks") + " into the destination\n";
}

} // namespace

std::string explain(const Plan& plan, std::string_view backend) {
  const LeafIndex leaves(plan.roots);
  const PlanSummary s = summarize(plan, leaves);
  std::string out = header(plan, backend);
  out += task_line(plan, s);
  out += result_line(plan, s);
  for (std::uint32_t stage = 0; stage < plan.stages.size(); ++stage)
    out += "\n" + describe_stage(plan, s, leaves, stage);
  if (const std::string others = other_stages(plan, s, leaves); !others.empty())
    out += "\n" + others;
  out += "\n" + intermediates(plan, s, leaves);
  out += "\n" + bytes_lines(s);
  return out;
}

} // namespace chunked::plan
