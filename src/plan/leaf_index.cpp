// SPDX-License-Identifier: Apache-2.0
// LeafIndex (the graph behind a plan's leaves) and describe_view (a leaf's map spelt as a slice).
#include "plan/leaf_index.hpp"

#include "index_maps.hpp"

#include "plan/borrowed.hpp"

#include <algorithm>
#include <bit>
#include <unordered_set>

namespace chunked::plan {

namespace {

/// Calls f(node) once for every node of the graphs below `roots`, inputs in order, without
/// recursion: graphs may be chains of any length.
template <class F> void for_each_node(const std::vector<graph::NodePtr>& roots, F&& f) {
  std::unordered_set<const graph::Node*> seen;
  std::vector<const graph::Node*> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it)
    stack.push_back(it->get());
  while (!stack.empty()) {
    const graph::Node* n = stack.back();
    stack.pop_back();
    if (!n || !seen.insert(n).second)
      continue;
    f(*n);
    for (auto it = n->inputs.rbegin(); it != n->inputs.rend(); ++it)
      stack.push_back(it->get());
  }
}

} // namespace

LeafIndex::GeneratedKey LeafIndex::key_of(const Leaf& leaf) {
  return {static_cast<int>(leaf.kind),
          static_cast<int>(leaf.dtype),
          leaf.seed,
          leaf.stream,
          std::bit_cast<std::uint64_t>(leaf.a.f),
          leaf.a.i,
          std::bit_cast<std::uint64_t>(leaf.b.f),
          leaf.b.i};
}

LeafIndex::LeafIndex(const std::vector<graph::NodePtr>& roots) {
  // The leaf each generated node lowers to (lowering.cpp), keyed by what the plan keeps of it.
  auto add_generated = [this](const Leaf& leaf, const Shape& shape) {
    auto [it, fresh] = generated_.try_emplace(key_of(leaf), shape);
    if (!fresh && it->second && *it->second != shape)
      it->second.reset(); // two arrays of one generator call but different shapes: say neither
  };
  for_each_node(roots, [&](const graph::Node& n) {
    Leaf leaf;
    leaf.dtype = n.dtype;
    if (n.kind == graph::NodeKind::random) {
      const auto& p = n.as<graph::RandomParams>();
      leaf.kind = p.dist;
      leaf.seed = p.seed;
      leaf.stream = p.stream;
      leaf.a = p.a;
      leaf.b = p.b;
      add_generated(leaf, n.shape);
    } else if (n.kind == graph::NodeKind::arange) {
      const auto& p = n.as<graph::ArangeParams>();
      leaf.kind = LeafKind::arange;
      leaf.a = p.start;
      leaf.b = p.step;
      add_generated(leaf, n.shape);
    } else if (n.kind == graph::NodeKind::stored) {
      const graph::StoredData& data = *n.as<graph::StoredParams>().data;
      StoredArray array{&n, static_cast<int>(arrays_.size()) + 1, data.borrowed != nullptr};
      arrays_.push_back(array);
      if (data.borrowed)
        borrowed_.emplace(data.borrowed.get(), arrays_.size() - 1);
      for (std::size_t b = 0; b < data.blocks.size(); ++b)
        blocks_.emplace(data.blocks[b].get(), BlockOf{nullptr, static_cast<index_t>(b)});
    }
  });
  // Pointers into arrays_ only now that it has stopped growing.
  for (auto& [buffer, of] : blocks_)
    for (const StoredArray& a : arrays_) {
      const auto& blocks = a.node->as<graph::StoredParams>().data->blocks;
      if (of.block < static_cast<index_t>(blocks.size()) &&
          blocks[static_cast<std::size_t>(of.block)].get() == buffer) {
        of.array = &a;
        break;
      }
    }
}

std::optional<Shape> LeafIndex::generated_shape(const Leaf& leaf) const {
  const auto it = generated_.find(key_of(leaf));
  return it == generated_.end() ? std::nullopt : it->second;
}

std::optional<LeafIndex::BlockOf> LeafIndex::stored_block(const Buffer* buffer) const {
  if (const auto it = blocks_.find(buffer); it != blocks_.end() && it->second.array)
    return it->second;
  if (const auto* region = dynamic_cast<const BorrowedRegion*>(buffer))
    if (const auto it = borrowed_.find(&region->whole()); it != borrowed_.end())
      return BlockOf{&arrays_[it->second], -1};
  return std::nullopt;
}

namespace {

/// "2nd", "3rd", "11th": how often a strided slice reads.
std::string ordinal(index_t n) {
  const index_t tens = n % 100, ones = n % 10;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : ones == 1                ? "st"
                       : ones == 2                ? "nd"
                       : ones == 3                ? "rd"
                                                  : "th";
  return std::to_string(n) + suffix;
}

/// NumPy's spelling of the slice reading `len` elements from `start` by `step` of an axis of
/// `n`, with every part left out that NumPy would infer.
std::string slice_text(index_t start, index_t step, index_t len, index_t n) {
  const index_t last = start + step * (len - 1);
  std::string from, to;
  if (step > 0) {
    if (start != 0)
      from = std::to_string(start);
    if (last + step < n) // the read stops before the axis ends
      to = std::to_string(last + 1);
  } else {
    if (start != n - 1)
      from = std::to_string(start);
    if (last + step >= 0)
      to = std::to_string(last - 1);
  }
  const std::string by = step == 1 ? "" : ":" + std::to_string(step);
  return from + ":" + to + by;
}

/// Which array axis output axis k reads and by what step: -1 for a broadcast axis.
struct AxisRead {
  int axis = -1;
  index_t step = 0;
};

/// The array axis not yet `taken` whose stride in the buffer divides `coef`, outermost first,
/// along which `len` elements by that step from `start` stay inside the array; nullopt when
/// there is none.
std::optional<AxisRead> axis_read(index_t coef, index_t len, std::span<const index_t> strides,
                                  std::span<const index_t> start, std::span<const index_t> shape,
                                  const std::vector<bool>& taken) {
  for (std::size_t d = 0; d < strides.size(); ++d) {
    if (taken[d] || strides[d] == 0 || coef % strides[d] != 0)
      continue;
    const index_t step = len == 1 ? 1 : coef / strides[d];
    const index_t last = start[d] + step * (len - 1);
    if (last >= 0 && last < shape[d])
      return AxisRead{static_cast<int>(d), step};
  }
  return std::nullopt;
}

/// The words for what a view does beyond reading its array whole, one phrase per effect.
std::vector<std::string> view_words(const std::vector<AxisRead>& reads,
                                    std::span<const index_t> out_shape,
                                    std::span<const index_t> start,
                                    std::span<const index_t> shape) {
  std::vector<std::string> words;
  std::vector<int> order;
  std::vector<int> read_by(shape.size(), -1);
  for (std::size_t k = 0; k < reads.size(); ++k) {
    if (reads[k].axis < 0) {
      words.push_back("broadcast along output axis " + std::to_string(k));
      continue;
    }
    read_by[static_cast<std::size_t>(reads[k].axis)] = static_cast<int>(k);
    order.push_back(reads[k].axis);
  }
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const std::string axis = " along axis " + std::to_string(d);
    if (read_by[d] < 0) {
      words.push_back("index " + std::to_string(start[d]) + " of axis " + std::to_string(d));
      continue;
    }
    const auto k = static_cast<std::size_t>(read_by[d]);
    const index_t step = reads[k].step, len = out_shape[k];
    if (step < 0)
      words.push_back("reversed" + axis);
    if (step > 1 || step < -1)
      words.push_back("every " + ordinal(step < 0 ? -step : step) + " element" + axis);
    else if (len < shape[d])
      words.push_back("elements " + std::to_string(start[d]) + " to " +
                      std::to_string(start[d] + step * (len - 1)) + axis);
  }
  if (!std::is_sorted(order.begin(), order.end())) {
    std::string perm = "axes permuted (output axes read axes";
    for (std::size_t j = 0; j < order.size(); ++j)
      perm += (j ? ", " : " ") + std::to_string(order[j]);
    words.push_back(perm + ")");
  }
  return words;
}

} // namespace

std::optional<std::string> describe_view(const AffineMap& map, std::span<const index_t> out_shape,
                                         const BufferBox& box, std::string_view name) {
  const std::size_t m = box.extent.size();
  if (box.origin.size() != m || box.shape.size() != m || out_shape.size() > max_ndim)
    return std::nullopt;
  const Layout layout = c_order(box.extent);
  for (const index_t e : out_shape)
    if (e == 0)
      return std::nullopt;
  if (map.base < 0 || map.base >= layout.elements)
    return std::nullopt;
  // The element the iteration starts at, in the array's coordinates.
  std::vector<index_t> start(m);
  unflatten(map.base, box.extent, start);
  for (std::size_t d = 0; d < m; ++d)
    start[d] += box.origin[d];
  std::vector<index_t> strides(layout.map.coef.begin(), layout.map.coef.begin() + m);
  std::vector<AxisRead> reads(out_shape.size());
  std::vector<bool> taken(m, false);
  for (std::size_t k = 0; k < out_shape.size(); ++k) {
    if (map.coef[k] == 0)
      continue; // a broadcast, or a new axis of length 1
    const auto read = axis_read(map.coef[k], out_shape[k], strides, start, box.shape, taken);
    if (!read)
      return std::nullopt; // no slice reads like this (a diagonal reads one axis twice)
    taken[static_cast<std::size_t>(read->axis)] = true;
    reads[k] = *read;
  }
  const auto words = view_words(reads, out_shape, start, box.shape);
  if (words.empty() && out_shape.size() == m)
    return std::string(); // the array itself, read in place
  std::string text = std::string(name) + "[";
  for (std::size_t d = 0; d < m; ++d) {
    text += d ? ", " : "";
    const auto k = std::find_if(reads.begin(), reads.end(),
                                [&](const AxisRead& r) { return r.axis == static_cast<int>(d); });
    text += k == reads.end()
                ? std::to_string(start[d])
                : slice_text(start[d], k->step,
                             out_shape[static_cast<std::size_t>(k - reads.begin())], box.shape[d]);
  }
  text += "]";
  for (std::size_t j = 0; j < words.size(); ++j)
    text += (j ? ", " : " (") + words[j];
  return words.empty() ? text : text + ")";
}

} // namespace chunked::plan
