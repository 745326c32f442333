// SPDX-License-Identifier: Apache-2.0
// ChunkGrid: how an array's index space is cut into blocks, axis by axis.
#pragma once

#include <chunked/core/chunks.hpp>
#include <chunked/core/shape.hpp>

#include <span>
#include <string>
#include <vector>

namespace chunked {

/// Per axis, the lengths of consecutive blocks (not necessarily equal: slicing a regular grid
/// yields ragged ones, as in Dask). Blocks are numbered in C order over the grid.
class ChunkGrid {
public:
  ChunkGrid() = default;
  /// Regular grid: every block of axis i has length chunk[i] except a shorter last one.
  ChunkGrid(const Shape& shape, std::span<const index_t> chunk);
  /// Explicit per-axis block lengths (each must be >= 0 and sum to the axis extent).
  explicit ChunkGrid(std::vector<std::vector<index_t>> lengths);

  index_t ndim() const { return static_cast<index_t>(lengths_.size()); }
  Shape shape() const;
  /// Block lengths along an axis.
  const std::vector<index_t>& lengths(index_t axis) const { return lengths_[axis]; }
  /// Start offset of each block along an axis, plus the extent as a final entry.
  const std::vector<index_t>& offsets(index_t axis) const { return offsets_[axis]; }
  /// Blocks per axis.
  std::vector<index_t> blocks_per_axis() const;
  /// Total number of blocks (product over axes; 1 for rank 0).
  index_t numblocks() const;

  /// Multi-index of a block from its C-order number, and back.
  std::vector<index_t> block_index(index_t flat) const;
  index_t block_number(std::span<const index_t> index) const;
  /// Shape and start of a block given by multi-index.
  Shape block_shape(std::span<const index_t> index) const;
  std::vector<index_t> block_offset(std::span<const index_t> index) const;
  /// The block along `axis` that contains element position `pos`.
  index_t block_containing(index_t axis, index_t pos) const;

  /// True when every block but the last of each axis has the same length.
  bool is_regular() const;

  friend bool operator==(const ChunkGrid& a, const ChunkGrid& b) {
    return a.lengths_ == b.lengths_;
  }
  std::string to_string() const;

private:
  void build_offsets();
  std::vector<std::vector<index_t>> lengths_;
  std::vector<std::vector<index_t>> offsets_;
};

} // namespace chunked
