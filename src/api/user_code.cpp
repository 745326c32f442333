// SPDX-License-Identifier: Apache-2.0
// map_blocks and map_overlap: their arguments checked, and the user node made (DESIGN 8.3, 8.9).
#include <chunked/user_code.hpp>

#include <string>
#include <utility>

namespace chunked::detail {

namespace {

std::string block_counts(const ChunkGrid& g) {
  std::string s = "(";
  const auto per_axis = g.blocks_per_axis();
  for (std::size_t k = 0; k < per_axis.size(); ++k)
    s += (k ? ", " : "") + std::to_string(per_axis[k]);
  return s + (per_axis.size() == 1 ? ",)" : ")");
}

} // namespace

graph::NodePtr map_blocks_node(std::shared_ptr<const BlockFunction> fn, DType result,
                               const ChunkGrid* grid, std::vector<graph::NodePtr> inputs) {
  Shape shape = inputs[0]->shape;
  for (std::size_t i = 1; i < inputs.size(); ++i)
    shape = graph::broadcast_shapes(shape, inputs[i]->shape);
  for (graph::NodePtr& in : inputs)
    in = graph::broadcast_to(in, shape);
  graph::UserParams p;
  p.fn = std::move(fn);
  p.input_grid = inputs[0]->grid;
  ChunkGrid out = grid ? *grid : p.input_grid;
  if (out.ndim() != p.input_grid.ndim() || out.blocks_per_axis() != p.input_grid.blocks_per_axis())
    throw ShapeError("map_blocks: the output grid " + out.to_string() + " has blocks " +
                     block_counts(out) + " per axis, but the inputs' grid " +
                     p.input_grid.to_string() + " has " + block_counts(p.input_grid) +
                     "; give one output block per input block");
  return graph::make_user(result, std::move(out), std::move(inputs), std::move(p));
}

graph::NodePtr map_overlap_node(std::shared_ptr<const BlockFunction> fn, DType result,
                                graph::NodePtr input, std::vector<index_t> depth, bool uniform,
                                index_t uniform_depth, Boundary boundary) {
  const index_t nd = input->shape.ndim();
  if (uniform)
    depth.assign(static_cast<std::size_t>(nd), uniform_depth);
  if (static_cast<index_t>(depth.size()) != nd)
    throw ShapeError("map_overlap: " + std::to_string(depth.size()) +
                     " depths given for an array of rank " + std::to_string(nd) + " (shape " +
                     input->shape.to_string() + "); give one depth per axis");
  for (index_t k = 0; k < nd; ++k) {
    const index_t d = depth[static_cast<std::size_t>(k)];
    const index_t n = input->shape.extents()[static_cast<std::size_t>(k)];
    if (d < 0)
      throw ValueError("map_overlap: depth " + std::to_string(d) + " on axis " + std::to_string(k) +
                       " is negative; depths are >= 0");
    if (d > n)
      throw ValueError("map_overlap: depth " + std::to_string(d) + " on axis " + std::to_string(k) +
                       " is larger than the axis (length " + std::to_string(n) + ", shape " +
                       input->shape.to_string() + ")");
  }
  graph::UserParams p;
  p.fn = std::move(fn);
  p.input_grid = input->grid;
  p.depth = std::move(depth);
  p.boundary = boundary;
  ChunkGrid out = input->grid;
  return graph::make_user(result, std::move(out), {std::move(input)}, std::move(p));
}

} // namespace chunked::detail
