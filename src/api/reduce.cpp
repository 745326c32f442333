// SPDX-License-Identifier: Apache-2.0
// Reductions and rechunking as graph nodes.
#include <chunked/array.hpp>

namespace chunked::detail {

graph::NodePtr reduce(const graph::NodePtr& node, ops::ReduceOp op, const Axes& axes, bool keepdims,
                      index_t ddof) {
  graph::ReduceParams p;
  p.op = op;
  p.keepdims = keepdims;
  p.ddof = ddof;
  if (axes.all())
    for (index_t k = 0; k < node->shape.ndim(); ++k)
      p.axes.push_back(k);
  else
    p.axes = axes.values();
  return graph::make_reduce(node, std::move(p));
}

graph::NodePtr arg_reduce(const graph::NodePtr& node, ops::ReduceOp op, std::optional<int> axis) {
  graph::ReduceParams p;
  p.op = op;
  if (axis) {
    p.axes = {*axis};
  } else {
    for (index_t k = 0; k < node->shape.ndim(); ++k)
      p.axes.push_back(k);
    p.flat_index = true;
  }
  return graph::make_reduce(node, std::move(p));
}

graph::NodePtr rechunk(const graph::NodePtr& node, const Chunks& chunks) {
  return graph::make_rechunk(node, chunks.resolve(node->shape, dtype_size(node->dtype)));
}

} // namespace chunked::detail
