// SPDX-License-Identifier: Apache-2.0
// ChunkGrid: block lengths and offsets per axis, block numbering.
#include "core/checked.hpp"
#include "core/memory_budget.hpp"
#include <chunked/core/chunk_grid.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace chunked {

ChunkGrid::ChunkGrid(const Shape& shape, std::span<const index_t> chunk) {
  if (static_cast<index_t>(chunk.size()) != shape.ndim())
    throw ShapeError("chunk lengths of rank " + std::to_string(chunk.size()) +
                     " do not match shape " + shape.to_string());
  lengths_.resize(chunk.size());
  for (std::size_t k = 0; k < chunk.size(); ++k) {
    const index_t n = shape.extents()[k];
    const index_t c = chunk[k];
    if (c <= 0)
      throw ValueError("chunk length " + std::to_string(c) + " on axis " + std::to_string(k) +
                       " must be > 0");
    if (n == 0) {
      lengths_[k] = {0};
      continue;
    }
    const index_t blocks = n / c + (n % c != 0);
    // Each block of an axis costs a length and an offset here, before any data exists.
    if (!detail::bookkeeping_fits(static_cast<std::uint64_t>(blocks), 2 * sizeof(index_t)))
      detail::throw_bookkeeping_too_large(static_cast<std::uint64_t>(blocks), 2 * sizeof(index_t),
                                          "a chunk grid with " + std::to_string(blocks) +
                                              " blocks along axis " + std::to_string(k) +
                                              " (shape " + shape.to_string() + ", chunk length " +
                                              std::to_string(c) + ")",
                                          "block records", "use larger chunks");
    // Counted rather than stepped (start += c), which could overflow past an extent near 2^63.
    const index_t full = n / c, rest = n % c;
    lengths_[k].assign(static_cast<std::size_t>(full), c);
    if (rest)
      lengths_[k].push_back(rest);
  }
  build_offsets();
}

ChunkGrid::ChunkGrid(std::vector<std::vector<index_t>> lengths) : lengths_(std::move(lengths)) {
  for (std::size_t k = 0; k < lengths_.size(); ++k) {
    if (lengths_[k].empty())
      throw ValueError("chunk grid axis " + std::to_string(k) + " has no blocks");
    for (index_t l : lengths_[k])
      if (l < 0)
        throw ValueError("chunk grid axis " + std::to_string(k) + " has a negative block length");
  }
  build_offsets();
}

void ChunkGrid::build_offsets() {
  offsets_.assign(lengths_.size(), {});
  index_t blocks = 1;
  for (std::size_t k = 0; k < lengths_.size(); ++k) {
    auto& o = offsets_[k];
    o.reserve(lengths_[k].size() + 1);
    index_t acc = 0;
    for (index_t l : lengths_[k]) {
      o.push_back(acc);
      acc = detail::checked_add(acc, l, "chunk grid: the block lengths of an axis sum past int64");
    }
    o.push_back(acc);
    blocks = detail::checked_mul(blocks, static_cast<index_t>(lengths_[k].size()),
                                 "chunk grid: the number of blocks");
  }
  (void)shape(); // a grid's shape is a valid Shape: ValueError when its size overflows
}

Shape ChunkGrid::shape() const {
  std::vector<index_t> e(lengths_.size());
  for (std::size_t k = 0; k < lengths_.size(); ++k)
    e[k] = offsets_[k].back();
  return Shape(std::move(e));
}

std::vector<index_t> ChunkGrid::blocks_per_axis() const {
  std::vector<index_t> b(lengths_.size());
  for (std::size_t k = 0; k < lengths_.size(); ++k)
    b[k] = static_cast<index_t>(lengths_[k].size());
  return b;
}

index_t ChunkGrid::numblocks() const {
  index_t n = 1;
  for (const auto& l : lengths_)
    n *= static_cast<index_t>(l.size()); // checked when made
  return n;
}

std::vector<index_t> ChunkGrid::block_index(index_t flat) const {
  std::vector<index_t> idx(lengths_.size());
  for (std::size_t k = lengths_.size(); k-- > 0;) {
    const auto nb = static_cast<index_t>(lengths_[k].size());
    idx[k] = flat % nb;
    flat /= nb;
  }
  return idx;
}

index_t ChunkGrid::block_number(std::span<const index_t> index) const {
  index_t flat = 0;
  for (std::size_t k = 0; k < lengths_.size(); ++k)
    flat = flat * static_cast<index_t>(lengths_[k].size()) + index[k];
  return flat;
}

Shape ChunkGrid::block_shape(std::span<const index_t> index) const {
  if (index.size() != lengths_.size())
    throw ShapeError("block index of rank " + std::to_string(index.size()) +
                     " for a chunk grid of rank " + std::to_string(lengths_.size()));
  std::vector<index_t> e(lengths_.size());
  for (std::size_t k = 0; k < lengths_.size(); ++k) {
    if (index[k] < 0 || index[k] >= static_cast<index_t>(lengths_[k].size()))
      throw IndexError("block " + std::to_string(index[k]) + " is out of range on axis " +
                       std::to_string(k) + " with " + std::to_string(lengths_[k].size()) +
                       " blocks");
    e[k] = lengths_[k][static_cast<std::size_t>(index[k])];
  }
  return Shape(std::move(e));
}

std::vector<index_t> ChunkGrid::block_offset(std::span<const index_t> index) const {
  std::vector<index_t> o(lengths_.size());
  for (std::size_t k = 0; k < lengths_.size(); ++k)
    o[k] = offsets_[k][static_cast<std::size_t>(index[k])];
  return o;
}

index_t ChunkGrid::block_containing(index_t axis, index_t pos) const {
  const auto& o = offsets_[static_cast<std::size_t>(axis)];
  // Last offset <= pos among block starts (zero-length blocks only occur on empty axes).
  auto it = std::upper_bound(o.begin(), o.end() - 1, pos);
  return std::max<index_t>(0, static_cast<index_t>(it - o.begin()) - 1);
}

bool ChunkGrid::is_regular() const {
  for (const auto& l : lengths_)
    for (std::size_t b = 1; b + 1 < l.size(); ++b)
      if (l[b] != l[0])
        return false;
  for (const auto& l : lengths_)
    if (l.size() > 1 && l.back() > l[0])
      return false;
  return true;
}

std::string ChunkGrid::to_string() const {
  std::string s = "(";
  for (std::size_t k = 0; k < lengths_.size(); ++k) {
    if (k)
      s += ", ";
    s += detail::format_tuple(lengths_[k]);
  }
  if (lengths_.size() == 1)
    s += ",";
  return s + ")";
}

} // namespace chunked
