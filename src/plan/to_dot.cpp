// SPDX-License-Identifier: Apache-2.0
// to_dot() (explain.hpp): the plan's stages as a Graphviz digraph, one node per stage and per
// stored array read, whatever the number of tasks.
#include "plan/explain.hpp"

#include "plan/plan_summary.hpp"

#include <algorithm>
#include <string>

namespace chunked::plan {

namespace {

using Kind = TaskGroup::Kind;

/// Most stage nodes drawn: a plan with more (thousands of stored arrays concatenated, say)
/// draws these and says how many it left out, so that the graph stays readable.
constexpr std::size_t max_nodes = 200;

/// `text` as the inside of a DOT string: quotes and backslashes escaped, each line ended by
/// `\l` (left-justified), so that a label holds any path or name.
std::string dot_label(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n')
      out += "\\l";
    else if (static_cast<unsigned char>(c) >= 0x20)
      out += c;
  }
  if (!text.empty() && text.back() != '\n')
    out += "\\l";
  return out;
}

const char* shape_of(Kind kind) {
  switch (kind) {
  case Kind::stored:
  case Kind::load:
    return "cylinder";
  case Kind::program:
    return "box";
  case Kind::write:
    return "note";
  case Kind::join:
  case Kind::gather:
  case Kind::assemble:
  case Kind::combine:
  case Kind::scan:
  case Kind::user:
  case Kind::product:
    break;
  }
  return "ellipse";
}

std::string node_text(const Plan& plan, const PlanSummary& s, const LeafIndex& leaves,
                      std::uint32_t g) {
  const TaskGroup& grp = s.groups[g];
  std::string text = group_name(plan, s, leaves, g) + "\n";
  if (grp.kind == Kind::stored) {
    if (grp.index > 0) {
      const graph::Node& n = *leaves.arrays()[grp.index - 1].node;
      text += std::string(dtype_name(n.dtype)) + " " + grid_text(n.grid) + "\n";
    }
    return text;
  }
  text += std::to_string(grp.tasks) + (grp.tasks == 1 ? " task" : " tasks");
  if (grp.kind == Kind::program)
    return text + " over " + grid_text(plan.stages[grp.index].grid) + "\n" +
           stage_summary(plan, s, leaves, grp.index);
  if (grp.blocks > 0)
    text += ", " + std::to_string(grp.blocks) + (grp.blocks == 1 ? " block, " : " blocks, ") +
            bytes_text(grp.bytes);
  return text + "\n";
}

} // namespace

std::string to_dot(const Plan& plan) {
  const LeafIndex leaves(plan.roots);
  const PlanSummary s = summarize(plan, leaves);
  std::string out = "digraph chunked {\n  rankdir=TB;\n"
                    "  node [shape=box, fontname=\"monospace\", fontsize=10];\n"
                    "  edge [fontname=\"monospace\", fontsize=9];\n";
  const std::size_t shown = std::min(s.groups.size(), max_nodes);
  for (std::uint32_t g = 0; g < shown; ++g)
    out += "  g" + std::to_string(g) + " [label=\"" + dot_label(node_text(plan, s, leaves, g)) +
           "\", shape=" + shape_of(s.groups[g].kind) + "];\n";
  if (shown < s.groups.size())
    out += "  more [label=\"" + std::to_string(s.groups.size() - shown) +
           " more stages not drawn\", shape=plaintext];\n";
  bool destination = false;
  for (const auto& [edge, reads] : s.edges) {
    if (edge.first == edge.second || edge.first >= shown || edge.second >= shown)
      continue;
    out += "  g" + std::to_string(edge.first) + " -> g" + std::to_string(edge.second) +
           " [label=\"" + std::to_string(reads) + "\"];\n";
  }
  for (std::uint32_t g = 0; g < shown; ++g) {
    if (s.groups[g].destination_tasks == 0)
      continue;
    destination = true;
    out += "  g" + std::to_string(g) + " -> destination [label=\"" +
           std::to_string(s.groups[g].destination_tasks) + "\"];\n";
  }
  if (destination) {
    std::string text = "destination\n";
    for (const graph::NodePtr& root : plan.roots)
      text += std::string(dtype_name(root->dtype)) + " " + root->shape.to_string() + "\n";
    out += "  destination [label=\"" + dot_label(text) + "\", shape=note];\n";
  }
  return out + "}\n";
}

} // namespace chunked::plan
