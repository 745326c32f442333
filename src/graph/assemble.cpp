// SPDX-License-Identifier: Apache-2.0
// Reshape and concatenate nodes (graph/assemble.hpp): the target shape and its checks, the chunk
// grid the result gets, and the cases that need no data movement (views, the input itself).
#include <chunked/graph/assemble.hpp>

#include <algorithm>
#include <string>

namespace chunked::graph {

namespace {

/// Block lengths of `n` elements in chunks of `c` (one block of 0 for an empty axis).
std::vector<index_t> regular(index_t n, index_t c) {
  if (n == 0)
    return {0};
  std::vector<index_t> out(static_cast<std::size_t>(n / c), c);
  if (n % c != 0)
    out.push_back(n % c);
  return out;
}

/// The reshape as a view when it only adds or drops axes of length 1 (the other extents equal,
/// in order): output axis k reads the matching input axis whole, or is a new axis.
std::optional<NodePtr> unit_axes_view(const NodePtr& input, const Shape& shape) {
  const auto& in = input->shape.extents();
  const auto& out = shape.extents();
  std::vector<index_t> kept;
  for (std::size_t d = 0; d < in.size(); ++d)
    if (in[d] != 1)
      kept.push_back(static_cast<index_t>(d));
  std::size_t non_unit = 0;
  for (index_t e : out)
    non_unit += e != 1;
  if (non_unit != kept.size())
    return std::nullopt;
  ViewParams v;
  v.fixed.assign(in.size(), 0);
  std::size_t next = 0;
  bool identity = in.size() == out.size();
  for (std::size_t k = 0; k < out.size(); ++k) {
    int source = -1;
    if (out[k] != 1) {
      const index_t d = kept[next++];
      if (in[static_cast<std::size_t>(d)] != out[k])
        return std::nullopt;
      source = static_cast<int>(d);
      v.fixed[static_cast<std::size_t>(d)] = -1;
    } else if (in.size() == out.size() && in[k] == 1) {
      source = static_cast<int>(k); // an axis of length 1 in both at k: kept as it is
      v.fixed[k] = -1;
    }
    identity = identity && source == static_cast<int>(k);
    v.source.push_back(source);
    v.length.push_back(out[k]);
    v.start.push_back(0);
    v.step.push_back(1);
  }
  if (identity)
    return input;
  return make_view(input, std::move(v));
}

/// Per-axis block offsets of several grids merged: every block boundary of any of them.
std::vector<index_t> common_refinement(const std::vector<NodePtr>& inputs, index_t axis) {
  std::vector<index_t> cuts;
  for (const auto& in : inputs)
    for (index_t o : in->grid.offsets(axis))
      cuts.push_back(o);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<index_t> lengths;
  for (std::size_t j = 1; j < cuts.size(); ++j)
    lengths.push_back(cuts[j] - cuts[j - 1]);
  if (lengths.empty())
    lengths.push_back(0);
  return lengths;
}

} // namespace

Shape reshape_target(const Shape& from, const std::vector<index_t>& spec) {
  int inferred = -1;
  for (std::size_t k = 0; k < spec.size(); ++k) {
    if (spec[k] >= 0)
      continue;
    if (spec[k] != -1)
      throw ValueError("reshape: extent " + std::to_string(spec[k]) + " in " +
                       chunked::detail::format_tuple(spec) +
                       " is negative; only one -1 (an extent to infer) is allowed");
    if (inferred >= 0)
      throw ValueError("reshape: " + chunked::detail::format_tuple(spec) +
                       " has more than one -1; only one extent can be inferred");
    inferred = static_cast<int>(k);
  }
  const index_t total = from.size();
  // The product of the given extents, saturated: past `total` it cannot match anyway.
  index_t known = 1;
  bool over = false;
  bool zero = false;
  for (std::size_t k = 0; k < spec.size(); ++k) {
    if (static_cast<int>(k) == inferred)
      continue;
    zero = zero || spec[k] == 0;
    if (!over && __builtin_mul_overflow(known, spec[k], &known))
      over = true;
  }
  if (zero) {
    known = 0;
    over = false;
  }
  std::vector<index_t> extents(spec);
  const std::string what = "reshape: cannot reshape an array of shape " + from.to_string() + " (" +
                           std::to_string(total) + " elements) into " +
                           chunked::detail::format_tuple(spec);
  if (inferred >= 0) {
    if (known == 0)
      throw ShapeError(what + ": the -1 cannot be inferred when the other extents multiply to 0");
    if (over || total % known != 0)
      throw ShapeError(what + ": " + std::to_string(total) + " is not a multiple of " +
                       (over ? std::string("the other extents' product") : std::to_string(known)));
    extents[static_cast<std::size_t>(inferred)] = total / known;
  } else if (over || known != total) {
    throw ShapeError(what + ": the sizes differ");
  }
  return Shape(std::move(extents));
}

ChunkGrid reshape_grid(const Node& input, const Shape& shape) {
  const auto& in = input.shape.extents();
  const auto& out = shape.extents();
  std::vector<std::vector<index_t>> lengths(out.size());
  for (std::size_t k = 0; k < out.size(); ++k)
    lengths[k] = {out[k]}; // axes of length 1, and every axis of an empty array
  if (shape.size() == 0)
    return ChunkGrid(std::move(lengths));
  // Axes of length 1 aside, the extents (all >= 2) fall into groups of equal products: a group's
  // output elements are, in C order, exactly its input elements.
  std::vector<std::size_t> a, b;
  for (std::size_t d = 0; d < in.size(); ++d)
    if (in[d] != 1)
      a.push_back(d);
  for (std::size_t k = 0; k < out.size(); ++k)
    if (out[k] != 1)
      b.push_back(k);
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    std::vector<std::size_t> gin{a[i]}, gout{b[j]};
    index_t pi = in[a[i++]], po = out[b[j++]];
    while (pi != po) {
      if (pi < po) {
        pi *= in[a[i]];
        gin.push_back(a[i++]);
      } else {
        po *= out[b[j]];
        gout.push_back(b[j++]);
      }
    }
    if (gin.size() == 1 && gout.size() == 1) {
      lengths[gout[0]] = input.grid.lengths(static_cast<index_t>(gin[0]));
      continue;
    }
    index_t target = 1;
    for (std::size_t d : gin)
      target *= input.grid.lengths(static_cast<index_t>(d))[0];
    for (auto it = gout.rbegin(); it != gout.rend(); ++it) {
      const index_t e = out[*it];
      const index_t c = e <= target ? e : std::max<index_t>(target, 1);
      target = e <= target ? target / e : 1;
      lengths[*it] = regular(e, c);
    }
  }
  return ChunkGrid(std::move(lengths));
}

NodePtr make_reshape(NodePtr input, const std::vector<index_t>& spec,
                     const std::optional<std::vector<index_t>>& chunks) {
  Shape shape = reshape_target(input->shape, spec);
  if (shape.ndim() > max_ndim)
    throw ValueError("reshape: arrays of rank " + std::to_string(shape.ndim()) +
                     " are not supported; the most is " + std::to_string(max_ndim));
  std::optional<ChunkGrid> wanted;
  if (chunks)
    wanted = ChunkGrid(shape, *chunks);
  if (auto view = unit_axes_view(input, shape)) {
    if (wanted && (*view)->grid != *wanted)
      return make_rechunk(*view, *chunks);
    return *view;
  }
  ChunkGrid grid = wanted ? std::move(*wanted) : reshape_grid(*input, shape);
  AssembleParams p;
  p.kind = AssembleParams::Kind::reshape;
  return make_assemble({std::move(input)}, std::move(shape), std::move(grid), p);
}

NodePtr make_concatenate(std::vector<NodePtr> inputs, index_t axis) {
  if (inputs.empty())
    throw ValueError("concatenate: need at least one array to concatenate");
  const Shape& first = inputs[0]->shape;
  const index_t nd = first.ndim();
  if (nd == 0)
    throw ValueError("concatenate: arrays of rank 0 cannot be concatenated");
  index_t a;
  try {
    a = chunked::normalize_axis(axis, nd);
  } catch (const IndexError& e) {
    throw IndexError(std::string("concatenate: ") + e.what());
  }
  index_t along = 0;
  for (std::size_t j = 0; j < inputs.size(); ++j) {
    const Shape& s = inputs[j]->shape;
    bool match = s.ndim() == nd;
    for (index_t k = 0; match && k < nd; ++k)
      match = k == a || s.extents()[k] == first.extents()[k];
    if (!match)
      throw ShapeError("concatenate: array " + std::to_string(j) + " has shape " + s.to_string() +
                       " and array 0 " + first.to_string() +
                       "; expected the same rank and the same extents off axis " +
                       std::to_string(a));
    if (inputs[j]->dtype != inputs[0]->dtype)
      throw ValueError("concatenate: array " + std::to_string(j) + " is " +
                       std::string(dtype_name(inputs[j]->dtype)) + " and array 0 " +
                       std::string(dtype_name(inputs[0]->dtype)) + "; expected one element type");
    along += s.extents()[a];
  }
  if (inputs.size() == 1)
    return inputs[0];
  std::vector<std::vector<index_t>> lengths(static_cast<std::size_t>(nd));
  for (index_t k = 0; k < nd; ++k) {
    if (k != a) {
      lengths[k] = common_refinement(inputs, k);
      continue;
    }
    for (const auto& in : inputs)
      if (in->shape.extents()[a] > 0)
        for (index_t l : in->grid.lengths(a))
          lengths[k].push_back(l);
    if (lengths[k].empty())
      lengths[k].push_back(0);
  }
  std::vector<index_t> extents = first.extents();
  extents[a] = along;
  AssembleParams p;
  p.kind = AssembleParams::Kind::concatenate;
  p.axis = a;
  return make_assemble(std::move(inputs), Shape(std::move(extents)), ChunkGrid(std::move(lengths)),
                       p);
}

} // namespace chunked::graph
