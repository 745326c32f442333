// SPDX-License-Identifier: Apache-2.0
// Spillable blocks: persisted blocks whose host memory can move to a file and back, managed by
// one process-wide manager with a least-recently-used list and a resident byte count.
#pragma once

#include <chunked/core/buffer.hpp>

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace chunked::runtime {

/// Makes host memory of a given size for a block coming back from its file (page-locked for a
/// CUDA block, so that its copies to the device stay asynchronous).
using HostAllocator = std::function<std::shared_ptr<Buffer>(std::size_t)>;

/// A persisted host block that the spill manager may write to a file and free while no task reads
/// it. Readers pin it first (SpillPin): data() is valid only while pinned.
class SpillableBuffer final : public Buffer {
public:
  /// Takes over `resident` (host memory) and registers it with the manager, which may spill it
  /// (or older blocks) at once to stay within its limit.
  SpillableBuffer(std::shared_ptr<Buffer> resident, std::string directory, HostAllocator allocate);
  ~SpillableBuffer() override;
  SpillableBuffer(const SpillableBuffer&) = delete;
  SpillableBuffer& operator=(const SpillableBuffer&) = delete;

  /// The host memory holding the block now (page-locked or not); null while spilled.
  std::shared_ptr<Buffer> resident() const;

private:
  friend class SpillManager;
  /// Where the block's bytes are. A block moves between memory and its file by one thread at a
  /// time, outside the manager's lock; others that need it wait for the move to end.
  enum class Where : unsigned char { memory, writing, file, reading };
  std::shared_ptr<Buffer> resident_; // null while spilled
  std::string directory_;
  HostAllocator allocate_;
  std::string file_;
  Where where_ = Where::memory;
  int pins_ = 0;
  std::list<SpillableBuffer*>::iterator lru_; // position among the resident, unpinned blocks
  bool listed_ = false;
};

/// The process-wide owner of the spill limit and of the order in which blocks spill.
class SpillManager {
public:
  static SpillManager& instance();

  /// Host bytes that resident spillable blocks may take; 0 = no limit. Spills at once to meet it.
  void set_limit(std::size_t bytes);
  std::size_t limit() const;
  /// Bytes of spillable blocks now in host memory.
  std::size_t resident_bytes() const;

  /// Makes every block resident and keeps it so until unpin(). OutOfMemory when the blocks
  /// together exceed the limit; a chunked::Error naming the file when one cannot be read back.
  /// Files are read and written outside the manager's lock, so that tasks whose blocks are in
  /// memory go on while others wait for the disk.
  void pin(std::span<SpillableBuffer* const> blocks);
  /// Ends pin(); the blocks become the most recently used.
  void unpin(std::span<SpillableBuffer* const> blocks) noexcept;

private:
  friend class SpillableBuffer;
  using Lock = std::unique_lock<std::mutex>;
  void add(SpillableBuffer& block);
  void remove(SpillableBuffer& block) noexcept;
  /// Spills least recently used unpinned blocks until at most `target` bytes are resident and
  /// not on their way to a file, or none is left to spill. Called and returns with `lock` held;
  /// releases it while writing.
  void evict_to(Lock& lock, std::size_t target);
  /// Brings a spilled block back (its state set to reading by the caller), reading outside the
  /// lock.
  void load(Lock& lock, SpillableBuffer& block);
  /// Writes an unpinned resident block to a new file, outside the lock; frees its memory unless a
  /// task pinned it meanwhile.
  void spill(Lock& lock, SpillableBuffer& block);
  /// Waits while another thread moves `block` to or from its file.
  void settle(Lock& lock, const SpillableBuffer& block);
  /// Puts a resident, unpinned block at the most recently used end of the list.
  void list(SpillableBuffer& block);
  void unlist(SpillableBuffer& block);

  mutable std::mutex mutex_;
  std::condition_variable moved_;   // a block finished moving to or from its file
  std::list<SpillableBuffer*> lru_; // front: least recently used
  std::size_t limit_ = 0;
  std::size_t resident_ = 0; // bytes in memory, those being written out included
  std::size_t leaving_ = 0;  // bytes being written out
  std::size_t next_file_ = 0;
};

/// The directory for spill files that `requested` (ComputeOptions::spill_directory) names, or
/// the system's temporary one when empty; created when missing. chunked::Error naming it when it
/// cannot be created or written.
std::string spill_directory(const std::string& requested);

/// Pins the spillable blocks among a task's inputs for the task's lifetime.
class SpillPin {
public:
  explicit SpillPin(std::vector<SpillableBuffer*> blocks);
  ~SpillPin();
  SpillPin(const SpillPin&) = delete;
  SpillPin& operator=(const SpillPin&) = delete;

private:
  std::vector<SpillableBuffer*> blocks_;
};

} // namespace chunked::runtime
