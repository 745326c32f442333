// SPDX-License-Identifier: Apache-2.0
// reshape, concatenate and stack (reshape.hpp): argument resolution, then the graph's
// constructors (graph/assemble.hpp), which check the rest.
#include <chunked/graph/assemble.hpp>
#include <chunked/reshape.hpp>
#include <chunked/shape_ops.hpp>

#include <string>

namespace chunked::detail {

graph::NodePtr reshape(const graph::NodePtr& node, const std::vector<index_t>& shape,
                       const Chunks* chunks) {
  if (!chunks)
    return graph::make_reshape(node, shape, std::nullopt);
  const Shape target = graph::reshape_target(node->shape, shape);
  return graph::make_reshape(node, shape, chunks->resolve(target, dtype_size(node->dtype)));
}

graph::NodePtr concatenate(const std::vector<graph::NodePtr>& nodes, index_t axis) {
  return graph::make_concatenate(nodes, axis);
}

graph::NodePtr stack(const std::vector<graph::NodePtr>& nodes, index_t axis) {
  if (nodes.empty())
    throw ValueError("stack: need at least one array to stack");
  const Shape& first = nodes[0]->shape;
  index_t a;
  try {
    a = normalize_axis(axis, first.ndim() + 1);
  } catch (const IndexError& e) {
    throw IndexError(std::string("stack: ") + e.what());
  }
  std::vector<graph::NodePtr> expanded;
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    if (nodes[j]->shape != first)
      throw ShapeError("stack: array " + std::to_string(j) + " has shape " +
                       nodes[j]->shape.to_string() + " and array 0 " + first.to_string() +
                       "; expected all arrays of one shape");
    expanded.push_back(expand_dims(nodes[j], {a}));
  }
  return graph::make_concatenate(std::move(expanded), a);
}

} // namespace chunked::detail
