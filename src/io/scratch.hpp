// SPDX-License-Identifier: Apache-2.0
// Memory for a chunk's stored bytes between the file and the codec, kept for the next chunk.
#pragma once

#include <cstddef>
#include <memory>

namespace chunked::io {

/// A buffer of at least `size` bytes, not zeroed, taken from a process-wide pool of buffers that
/// earlier chunks gave back when one is large enough, and given back to it when destroyed.
/// Reading chunk after chunk into fresh memory costs a page fault per page, more than the read
/// itself from the page cache; the pool keeps a buffer per hardware thread, none over 256 MiB,
/// 1 GiB in all at most.
class Scratch {
public:
  explicit Scratch(std::size_t size);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  char* data() const { return data_.get(); }

  /// Bytes the pool keeps for later chunks now.
  static std::size_t kept_bytes();

private:
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
};

} // namespace chunked::io
