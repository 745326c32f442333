// SPDX-License-Identifier: Apache-2.0
// Shared moments: where one input is reduced over the same axes by mean, var or std more than
// once (and at least once by var or std), one (count, mean, M2) pass serves them all, and each
// finalizes the combined partials into its own values.
#include "planner.hpp"

#include <unordered_set>
#include <vector>

namespace chunked::plan::detail {

namespace {

bool is_moments_op(ReduceOp op) {
  return op == ReduceOp::mean || op == ReduceOp::var || op == ReduceOp::std;
}

} // namespace

void Planner::find_shared_moments(const std::vector<Request>& requests) {
  struct Use {
    int members = 0;
    bool second_moment = false;
  };
  std::map<MomentsKey, Use> uses;
  std::unordered_set<const graph::Node*> seen;
  std::vector<const graph::Node*> stack;
  stack.reserve(requests.size());
  for (const auto& r : requests)
    stack.push_back(r.node.get());
  while (!stack.empty()) {
    const graph::Node* cur = stack.back();
    stack.pop_back();
    if (!seen.insert(cur).second)
      continue;
    if (cur->kind == graph::NodeKind::reduce) {
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

std::vector<TaskId>* Planner::shared_moments(const graph::Node& n) {
  const auto& p = n.as<graph::ReduceParams>();
  if (!is_moments_op(p.op))
    return nullptr;
  const auto it = moments_roots_.find({n.inputs[0].get(), axes_mask(p.axes)});
  return it == moments_roots_.end() ? nullptr : &it->second;
}

std::vector<InputRef> Planner::plan_from_moments(const graph::NodePtr& n, Body body, Combine comb,
                                                 std::vector<TaskId>& roots) {
  const auto& p = n->as<graph::ReduceParams>();
  comb.op = ReduceOp::var;
  if (roots.empty()) {
    graph::ReduceParams moments = p;
    moments.op = ReduceOp::var;
    Combine tree = comb;
    tree.result = ReduceOp::var;
    roots = plan_reduce_tree(n->inputs[0], std::move(body), moments, axes_mask(p.axes), n->dtype,
                             tree, false);
  }
  plan.combines.push_back(comb);
  const auto comb_index = static_cast<std::uint32_t>(plan.combines.size() - 1);
  std::vector<InputRef> refs;
  for (std::size_t g = 0; g < roots.size(); ++g) {
    const Output values{Output::Kind::buffer, n->dtype, plan.tasks[roots[g]].output.elements, -1};
    refs.push_back(InputRef{
        InputRef::Kind::task,
        add_combine_task(comb_index, static_cast<index_t>(g), {roots[g]}, values), nullptr});
  }
  return refs;
}

} // namespace chunked::plan::detail
