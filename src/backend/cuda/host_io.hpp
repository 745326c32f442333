// SPDX-License-Identifier: Apache-2.0
// The host side of a CUDA computation's blocks outside memory: lazy leaves' blocks read ahead into
// page-locked memory by a small pool of host threads, in the order the device workers load them,
// and computed blocks handed to their sinks by the same threads, so that neither file reading
// nor writing holds up a device worker.
#pragma once

#include "backend/cuda/runtime.hpp"
#include "plan/plan.hpp"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace chunked::cuda {

/// Page-locked buffers larger than a staging buffer, kept for the next blocks of a computation:
/// allocating page-locked memory costs milliseconds, and an array's blocks are mostly of one size.
class SparePinned {
public:
  /// A kept buffer of at least `bytes` (the smallest), else a new one.
  std::unique_ptr<PinnedBuffer> take(std::size_t bytes);
  /// Keeps `buffer` for reuse, or frees it when max_kept are kept already.
  void give(std::unique_ptr<PinnedBuffer> buffer);
  static constexpr std::size_t max_kept = 8;

private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<PinnedBuffer>> kept_;
};

/// Page-locked host memory for one block: a staging buffer of the process-wide pool when the
/// block fits one, else one of `spares`, to which it goes back.
class PinnedBlock {
public:
  PinnedBlock(std::size_t bytes, SparePinned& spares);
  ~PinnedBlock();
  PinnedBlock(const PinnedBlock&) = delete;
  PinnedBlock& operator=(const PinnedBlock&) = delete;
  void* data() const { return buffer_->data(); }
  std::size_t bytes() const { return bytes_; }
  /// The page-locked bytes a block of `bytes` holds: a whole staging buffer when it fits one.
  static std::size_t footprint(std::size_t bytes) {
    return bytes <= staging_bytes ? staging_bytes : bytes;
  }

private:
  std::unique_ptr<PinnedBuffer> buffer_;
  std::size_t bytes_;
  SparePinned* spares_; ///< null for a staging buffer
};

/// One computation's block reads and writes on host threads. Thread-safe: the device workers
/// call it concurrently.
class HostIo {
public:
  /// Page-locked bytes (PinnedBlock::footprint) that reads ahead and writes in flight may hold,
  /// each: room for a block per host thread, so that large blocks are still read, decompressed,
  /// compressed and written on every thread at once, within [min_bytes, max_bytes] (at least
  /// one block is always let through, however large).
  static constexpr std::size_t min_bytes = std::size_t{256} << 20;
  static constexpr std::size_t max_bytes = std::size_t{4} << 30;
  /// Host threads at most.
  static constexpr int max_threads = 16;
  /// The in-flight budget for blocks of footprint `charge`.
  std::size_t budget(std::size_t charge) const;

  /// Starts the threads when the plan has load or write tasks.
  explicit HostIo(const plan::Plan& plan);
  /// Stops the threads once their running read or write returns; what was queued is dropped.
  ~HostIo();
  HostIo(const HostIo&) = delete;
  HostIo& operator=(const HostIo&) = delete;

  /// The block of load task `task` in page-locked memory: read ahead, waited for if its read is
  /// running, else read now on the calling thread. Rethrows the read's error.
  std::unique_ptr<PinnedBlock> take_load(plan::TaskId task);
  /// Keeps `block` until `copied` (the copy out of it) has happened, then frees it.
  void retire(std::unique_ptr<PinnedBlock> block, std::unique_ptr<Event> copied);

  /// Page-locked memory for a block to write; waits while writes in flight hold max_bytes.
  std::unique_ptr<PinnedBlock> write_buffer(std::size_t bytes);
  /// Hands `block` to the sink of `write`'s stage on a host thread once `copied` (the copy into
  /// it) has happened.
  void write_after(plan::TaskId write, std::unique_ptr<PinnedBlock> block,
                   std::unique_ptr<Event> copied);
  /// Rethrows the first error of a write, so that the computation stops at its next task.
  void check();
  /// Waits for every queued write; rethrows the first error.
  void finish();

private:
  enum class State : unsigned char { waiting, reading, ready, failed, taken };
  struct Load {
    plan::TaskId task = 0;
    std::size_t bytes = 0;  ///< of the block
    std::size_t charge = 0; ///< its footprint
    State state = State::waiting;
    std::unique_ptr<PinnedBlock> block;
    std::exception_ptr error;
  };
  struct Pending {
    plan::TaskId task = 0;
    std::unique_ptr<PinnedBlock> block;
    std::unique_ptr<Event> copied;
  };

  void work();
  /// Reads load `k` (its state set to reading and its bytes counted by the caller).
  void read(Load& load);
  /// Frees retired blocks whose copies are done; the lock is held.
  void reclaim();

  const plan::Plan& plan_;
  SparePinned spares_;                      ///< first: the blocks below go back to it
  std::vector<Load> loads_;                 ///< in task order
  std::vector<std::uint32_t> load_of_task_; ///< per task, its index in loads_
  std::size_t next_load_ = 0;               ///< the first load no reader has looked at
  std::size_t read_bytes_ = 0;              ///< read ahead, not yet copied out
  std::size_t write_bytes_ = 0;             ///< written blocks not yet handed over
  std::vector<std::pair<std::unique_ptr<PinnedBlock>, std::unique_ptr<Event>>> retired_;
  std::deque<Pending> writes_;
  int writing_ = 0;
  std::exception_ptr write_error_;
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t thread_count_ = 0; ///< set before the threads start
  std::vector<std::thread> threads_;
};

} // namespace chunked::cuda
