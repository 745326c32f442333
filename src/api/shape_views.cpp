// SPDX-License-Identifier: Apache-2.0
// Shape operations that only change indexing, as view nodes: each output axis reads one input
// axis whole (a permutation), or is a new axis of length 1; input axes of length 1 may be
// dropped. The planner pushes these views into block programs as it does slices.
#include <chunked/shape_ops.hpp>

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

namespace chunked::detail {

namespace {

/// `axis` normalised against `ndim`, or an IndexError that names the operation.
index_t checked_axis(const char* what, index_t axis, index_t ndim) {
  try {
    return normalize_axis(axis, ndim);
  } catch (const IndexError& e) {
    throw IndexError(std::string(what) + ": " + e.what());
  }
}

/// The axes of `given` normalised against `ndim`: IndexError for one out of range, ValueError
/// for one given twice.
std::vector<index_t> distinct_axes(const char* what, const std::vector<index_t>& given,
                                   index_t ndim) {
  std::vector<index_t> out;
  std::vector<bool> seen(static_cast<std::size_t>(ndim), false);
  for (index_t a : given) {
    const index_t k = checked_axis(what, a, ndim);
    if (seen[static_cast<std::size_t>(k)])
      throw ValueError(std::string(what) + ": axis " + std::to_string(a) + " repeats axis " +
                       std::to_string(k) + " in " + format_tuple(given) +
                       "; expected each axis at most once");
    seen[static_cast<std::size_t>(k)] = true;
    out.push_back(k);
  }
  return out;
}

/// The view whose output axis k reads input axis `source[k]` whole, or is a new axis of length
/// 1 where source[k] is -1. Input axes that no output axis reads have length 1 (the callers
/// check it) and are read at index 0. The node itself when nothing changes.
graph::NodePtr axes_view(const graph::NodePtr& node, const std::vector<index_t>& source) {
  const index_t nd = node->shape.ndim();
  graph::ViewParams v;
  v.fixed.assign(static_cast<std::size_t>(nd), 0);
  bool identity = static_cast<index_t>(source.size()) == nd;
  for (std::size_t k = 0; k < source.size(); ++k) {
    const index_t d = source[k];
    identity = identity && d == static_cast<index_t>(k);
    v.source.push_back(static_cast<int>(d));
    v.length.push_back(d < 0 ? 1 : node->shape.extents()[static_cast<std::size_t>(d)]);
    v.start.push_back(0);
    v.step.push_back(1);
    if (d >= 0)
      v.fixed[static_cast<std::size_t>(d)] = -1;
  }
  if (identity)
    return node;
  return graph::make_view(node, std::move(v));
}

} // namespace

graph::NodePtr transpose(const graph::NodePtr& node,
                         const std::optional<std::vector<index_t>>& axes) {
  const index_t nd = node->shape.ndim();
  if (!axes) {
    std::vector<index_t> reversed(static_cast<std::size_t>(nd));
    std::iota(reversed.rbegin(), reversed.rend(), index_t{0});
    return axes_view(node, reversed);
  }
  if (static_cast<index_t>(axes->size()) != nd)
    throw ValueError("transpose: axes " + format_tuple(*axes) + " do not match an array of rank " +
                     std::to_string(nd) + "; expected a permutation of " + std::to_string(nd) +
                     " axes");
  return axes_view(node, distinct_axes("transpose", *axes, nd));
}

graph::NodePtr moveaxis(const graph::NodePtr& node, const std::vector<index_t>& source,
                        const std::vector<index_t>& destination) {
  if (source.size() != destination.size())
    throw ValueError("moveaxis: source " + format_tuple(source) + " and destination " +
                     format_tuple(destination) +
                     " have different lengths; expected one destination per source axis");
  const index_t nd = node->shape.ndim();
  const auto from = distinct_axes("moveaxis (source)", source, nd);
  const auto to = distinct_axes("moveaxis (destination)", destination, nd);
  // The axes that stay keep their order in the free positions (NumPy's rule).
  std::vector<index_t> order(static_cast<std::size_t>(nd), -1);
  std::vector<bool> moved(static_cast<std::size_t>(nd), false);
  for (std::size_t j = 0; j < from.size(); ++j) {
    order[static_cast<std::size_t>(to[j])] = from[j];
    moved[static_cast<std::size_t>(from[j])] = true;
  }
  std::size_t next = 0;
  for (index_t d = 0; d < nd; ++d) {
    if (moved[static_cast<std::size_t>(d)])
      continue;
    while (order[next] >= 0)
      ++next;
    order[next] = d;
  }
  return axes_view(node, order);
}

graph::NodePtr swapaxes(const graph::NodePtr& node, index_t axis1, index_t axis2) {
  const index_t nd = node->shape.ndim();
  const index_t a = checked_axis("swapaxes", axis1, nd), b = checked_axis("swapaxes", axis2, nd);
  std::vector<index_t> order(static_cast<std::size_t>(nd));
  std::iota(order.begin(), order.end(), index_t{0});
  std::swap(order[static_cast<std::size_t>(a)], order[static_cast<std::size_t>(b)]);
  return axes_view(node, order);
}

graph::NodePtr expand_dims(const graph::NodePtr& node, const std::vector<index_t>& axes) {
  const index_t out_nd = node->shape.ndim() + static_cast<index_t>(axes.size());
  const auto added = distinct_axes("expand_dims", axes, out_nd);
  std::vector<index_t> source(static_cast<std::size_t>(out_nd), 0);
  for (index_t k : added)
    source[static_cast<std::size_t>(k)] = -1;
  index_t next = 0;
  for (index_t& s : source)
    if (s == 0)
      s = next++;
  return axes_view(node, source);
}

graph::NodePtr squeeze(const graph::NodePtr& node, const Axes& axes) {
  const Shape& shape = node->shape;
  const index_t nd = shape.ndim();
  std::vector<bool> dropped(static_cast<std::size_t>(nd), false);
  if (axes.all()) {
    for (index_t d = 0; d < nd; ++d)
      dropped[static_cast<std::size_t>(d)] = shape.extents()[static_cast<std::size_t>(d)] == 1;
  } else {
    for (index_t d : distinct_axes("squeeze", axes.values(), nd)) {
      const index_t n = shape.extents()[static_cast<std::size_t>(d)];
      if (n != 1)
        throw ValueError("squeeze: axis " + std::to_string(d) + " of shape " + shape.to_string() +
                         " has length " + std::to_string(n) +
                         "; only axes of length 1 can be squeezed");
      dropped[static_cast<std::size_t>(d)] = true;
    }
  }
  std::vector<index_t> source;
  for (index_t d = 0; d < nd; ++d)
    if (!dropped[static_cast<std::size_t>(d)])
      source.push_back(d);
  return axes_view(node, source);
}

graph::NodePtr broadcast_to(const graph::NodePtr& node, const Shape& shape) {
  return graph::broadcast_to(node, shape);
}

} // namespace chunked::detail
