// SPDX-License-Identifier: Apache-2.0
// Blocks that live outside memory: where a lazy leaf's blocks are read from (load_npy, from_zarr)
// and where a written array's blocks go (save_npy, to_zarr). The storage formats implement these
// interfaces; the planner and the executors call them.
#pragma once

#include <chunked/core/types.hpp>

#include <string>
#include <vector>

namespace chunked::graph {

/// The values of a lazy leaf, read block by block when a computation needs them. A block that no
/// task of a computation reads is never read (a slice reads only the blocks it touches).
class BlockSource {
public:
  virtual ~BlockSource() = default;
  /// What the values are, for messages and explain(): e.g. "npy file 'x.npy'".
  virtual std::string describe() const = 0;
  /// Writes block `block` (its index per axis in the leaf's grid; `lo` its first element,
  /// `extent` its shape) into `out`: C order, native byte order, the leaf's dtype. Called from any
  /// host thread, concurrently for different blocks, once per block per computation. Throws a
  /// chunked::Error naming the file and what was wrong when the values cannot be read.
  virtual void read(const std::vector<index_t>& block, const std::vector<index_t>& lo,
                    const std::vector<index_t>& extent, void* out) const = 0;
};

/// Where an array's computed blocks go (detail::write_blocks).
class BlockSink {
public:
  virtual ~BlockSink() = default;
  /// Block `block` of the written array's grid (`lo` its first element, `extent` its shape): its
  /// values in `data`, host memory, C order, native byte order, the array's dtype, valid during
  /// the call only. Called once per block, from any host thread, concurrently for different
  /// blocks. An exception thrown here stops the computation and surfaces from write_blocks.
  virtual void write(const std::vector<index_t>& block, const std::vector<index_t>& lo,
                     const std::vector<index_t>& extent, const void* data) = 0;
};

} // namespace chunked::graph
