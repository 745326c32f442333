// SPDX-License-Identifier: Apache-2.0
// apply_exact_sums (exact_sums.hpp): the graph rewrite of ComputeOptions::exact_sums.
#include "api/exact_sums.hpp"

#include <chunked/core/error.hpp>
#include <chunked/ops.hpp>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

namespace chunked::detail {

namespace {

using graph::NodePtr;
using ops::OpCode;
using ops::ReduceOp;

/// Whether `n` is a reduction that exact_sums changes.
bool rewritten(const graph::Node& n) {
  if (n.kind != graph::NodeKind::reduce || !is_floating(n.inputs[0]->dtype))
    return false;
  const ReduceOp op = n.as<graph::ReduceParams>().op;
  return op == ReduceOp::sum || op == ReduceOp::mean || op == ReduceOp::var || op == ReduceOp::std;
}

/// Whether `n` is a cumsum that exact_sums makes exact.
bool exact_scan(const graph::Node& n) {
  return n.kind == graph::NodeKind::scan && is_floating(n.dtype) &&
         n.as<graph::ScanParams>().op == graph::ScanParams::Op::sum;
}

NodePtr exact_reduce(const NodePtr& x, ReduceOp op, std::vector<index_t> axes, bool keepdims) {
  graph::ReduceParams p;
  p.op = op;
  p.axes = std::move(axes);
  p.keepdims = keepdims;
  return graph::make_reduce(x, std::move(p));
}

/// var and std of x as NumPy computes them, over exact sums.
NodePtr exact_moments(const graph::Node& n, const NodePtr& x) {
  const auto& p = n.as<graph::ReduceParams>();
  constexpr DType f64 = DType::float64;
  const NodePtr xd = graph::cast(x, f64);
  const NodePtr mean = exact_reduce(xd, ReduceOp::exact_mean, p.axes, true);
  const NodePtr d = binary(OpCode::sub, f64, f64, xd, mean);
  const NodePtr squares = graph::make_elementwise(OpCode::mul, f64, {d, d});
  const NodePtr sum = exact_reduce(squares, ReduceOp::exact_sum, p.axes, p.keepdims);
  double count = 1;
  for (index_t a : p.axes)
    count *= static_cast<double>(x->shape.extents()[static_cast<std::size_t>(a)]);
  const double dof = std::max(count - static_cast<double>(p.ddof), 0.0);
  NodePtr v = binary(OpCode::div, f64, f64, sum, scalar(f64, dof, 0));
  if (p.op == ReduceOp::std)
    v = unary(OpCode::sqrt, f64, f64, v);
  return graph::cast(v, n.dtype);
}

/// The replacement of `n` (rewritten(n)) over its rewritten input.
NodePtr exact_node(const graph::Node& n, const NodePtr& x) {
  const auto& p = n.as<graph::ReduceParams>();
  switch (p.op) {
  case ReduceOp::sum:
    return exact_reduce(x, ReduceOp::exact_sum, p.axes, p.keepdims);
  case ReduceOp::mean:
    return exact_reduce(x, ReduceOp::exact_mean, p.axes, p.keepdims);
  default:
    return exact_moments(n, x);
  }
}

/// The rewritten graphs, node by node.
class Rewrite {
public:
  NodePtr operator()(const NodePtr& root) {
    std::vector<std::pair<const NodePtr*, bool>> stack{{&root, false}};
    while (!stack.empty()) {
      auto [node, expanded] = stack.back();
      stack.pop_back();
      const graph::Node* n = node->get();
      if (done_.count(n) != 0)
        continue;
      if (!expanded) {
        stack.push_back({node, true});
        for (const NodePtr& in : (*node)->inputs)
          if (done_.count(in.get()) == 0)
            stack.push_back({&in, false});
        continue;
      }
      done_.emplace(n, rebuild(*node));
    }
    return done_.at(root.get());
  }

private:
  NodePtr rebuild(const NodePtr& node) {
    const graph::Node& n = *node;
    std::vector<NodePtr> inputs;
    bool changed = false;
    for (const NodePtr& in : n.inputs) {
      inputs.push_back(done_.at(in.get()));
      changed = changed || inputs.back() != in;
    }
    if (rewritten(n))
      return exact_node(n, inputs[0]);
    if (exact_scan(n)) {
      graph::ScanParams p = n.as<graph::ScanParams>();
      p.op = graph::ScanParams::Op::exact_sum;
      return graph::make_scan(inputs[0], p);
    }
    return changed ? graph::with_inputs(n, std::move(inputs)) : node;
  }

  std::unordered_map<const graph::Node*, NodePtr> done_;
};

} // namespace

void apply_exact_sums(std::vector<plan::Request>& requests) {
  Rewrite rewrite;
  for (auto& r : requests)
    r.node = rewrite(r.node);
}

} // namespace chunked::detail
