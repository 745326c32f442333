// SPDX-License-Identifier: Apache-2.0
// Chunks: validation against a shape and the automatic chunk-size rule.
#include <chunked/core/chunks.hpp>

#include <algorithm>
#include <cmath>

namespace chunked {

Chunks::Chunks(std::initializer_list<index_t> lengths) : lengths_(lengths) {}
Chunks::Chunks(std::vector<index_t> lengths) : lengths_(std::move(lengths)) {}

Chunks Chunks::automatic(std::size_t target_bytes) {
  if (target_bytes == 0)
    throw ValueError("Chunks::automatic: target_bytes must be > 0");
  Chunks c;
  c.automatic_ = true;
  c.target_bytes_ = target_bytes;
  return c;
}

std::vector<index_t> Chunks::resolve(const Shape& shape, std::size_t element_size) const {
  const auto nd = static_cast<std::size_t>(shape.ndim());
  if (!automatic_) {
    if (lengths_.size() != nd)
      throw ShapeError("chunks " + to_string() + " have " + std::to_string(lengths_.size()) +
                       " axes but the shape " + shape.to_string() + " has " + std::to_string(nd));
    for (std::size_t k = 0; k < nd; ++k)
      if (lengths_[k] <= 0)
        throw ValueError("chunk length " + std::to_string(lengths_[k]) + " on axis " +
                         std::to_string(k) + " must be > 0 (chunks " + to_string() + ")");
    std::vector<index_t> out(lengths_);
    for (std::size_t k = 0; k < nd; ++k)
      out[k] = std::max<index_t>(1, std::min(out[k], shape.extents()[k]));
    return out;
  }
  // Equal share of the element budget per axis, like Dask's "auto": grow axes that are shorter
  // than their share and give the remainder to the others.
  const double budget =
      std::max(1.0, static_cast<double>(target_bytes_) / static_cast<double>(element_size));
  std::vector<index_t> out(nd, 1);
  std::vector<bool> fixed(nd, false);
  double remaining = budget;
  std::size_t free_axes = nd;
  bool changed = true;
  while (changed && free_axes > 0) {
    changed = false;
    const double share = std::pow(remaining, 1.0 / static_cast<double>(free_axes));
    for (std::size_t k = 0; k < nd; ++k) {
      if (fixed[k])
        continue;
      const index_t extent = std::max<index_t>(1, shape.extents()[k]);
      if (static_cast<double>(extent) <= share) {
        out[k] = extent;
        fixed[k] = true;
        remaining /= static_cast<double>(extent);
        --free_axes;
        changed = true;
      }
    }
  }
  if (free_axes > 0) {
    const double share = std::pow(remaining, 1.0 / static_cast<double>(free_axes));
    for (std::size_t k = 0; k < nd; ++k)
      if (!fixed[k])
        out[k] = std::max<index_t>(1, static_cast<index_t>(share));
  }
  return out;
}

std::string Chunks::to_string() const {
  if (automatic_)
    return "auto(" + std::to_string(target_bytes_) + " bytes)";
  return detail::format_tuple(lengths_);
}

} // namespace chunked
