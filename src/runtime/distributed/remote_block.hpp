// SPDX-License-Identifier: Apache-2.0
// RemoteBlock: a persisted block that another rank of a cluster holds.
#pragma once

#include <chunked/core/buffer.hpp>

namespace chunked::runtime {

/// Stands for a block of an array persisted over a cluster on the ranks that do not hold it:
/// its size, no memory. A computation that reads it receives a copy from its owner
/// (fetch_stored_blocks); nothing else may read it.
class RemoteBlock final : public Buffer {
public:
  RemoteBlock(std::size_t bytes, int owner)
      : Buffer(nullptr, bytes, MemorySpace{}), owner_(owner) {}
  /// The rank that holds the block.
  int owner() const { return owner_; }

private:
  int owner_;
};

} // namespace chunked::runtime
