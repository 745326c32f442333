// SPDX-License-Identifier: Apache-2.0
// The CUDA backend's memory for one device and one computation: device buffers charged to the
// computation's budget, the pinned staging ring that copies of pageable host memory go through,
// the cache of stored inputs copied to the device, and downloads of dense blocks into host
// destinations.
#pragma once

#include "backend/cuda/launch_geometry.hpp"

#include "backend/cuda/runtime.hpp"
#include "plan/borrowed.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace chunked::cuda {

/// Pinned staging buffers per device: while the GPU copies through one, the worker fills or
/// empties the others.
inline constexpr int staging_ring = 4;

/// One device's memory for one computation. Used by the device's one worker (the stored-input
/// cache is locked all the same).
class DeviceMemory {
public:
  /// `limit`: bytes the computation may hold on the device; 0 takes 80 % of what is free now
  /// (80 % of the device's total memory with a `device_resource`, whose pool's reserve the
  /// device counts as used). `device_resource` / `pinned_resource`, when given, supply every
  /// device buffer / pinned staging buffer (ComputeOptions' memory resources).
  DeviceMemory(int device, std::size_t limit, MemoryResource* device_resource = nullptr,
               MemoryResource* pinned_resource = nullptr);
  /// Gives the staging buffers back; the streams that copy through them must be idle.
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  int device() const { return device_; }

  /// `bytes` of device memory, allocated and freed in order on `stream`, charged to the budget.
  std::shared_ptr<Buffer> allocate(std::size_t bytes, const Stream& stream);
  /// A device copy of a host buffer, enqueued on `stream`: straight from pinned memory, else
  /// through the staging ring in pieces.
  std::shared_ptr<Buffer> upload(const Buffer& host, const Stream& stream);
  /// A copy on this device of a buffer on another device, enqueued on `stream`.
  std::shared_ptr<Buffer> copy_from_peer(const Buffer& source, const Stream& stream);

  /// Counts one more read of the stored buffer by this device's tasks (before any runs).
  void expect_read(const Buffer* stored);
  /// The device pointer of a stored input for a task on `stream`: the buffer itself when it is
  /// on this device, else a copy made once and kept for the device's later readers while they
  /// exist and the copies leave half the budget to the computation's own buffers.
  const void* stored_input(const Buffer& stored, const Stream& stream);
  /// Frees the copies of stored inputs that the task just queued read last: each free is ordered
  /// on the copy's stream, after everything queued so far on the streams that read it.
  void free_retired_uploads();

  /// Copies the dense block at `block` (device, `size` elements of `esize` bytes) into the host
  /// destination `dst` where `scatter` places it, enqueued on `stream`: with 2-D copies straight
  /// into pinned memory when its rows allow, else through the staging ring, each piece spread
  /// into `dst` once its copy is done while later work runs. `block` must live until the copies
  /// are done (free it in order on `stream`).
  void download(const void* block, index_t size, std::size_t esize, const Scatter& scatter,
                char* dst, bool pinned_destination, const Stream& stream);
  /// Waits for the staging ring's copies and does the host work that waited for them.
  void settle_staging();

  // ---- Views (interop): borrowed regions and device destinations
  /// Copies the dense block at `block` (on this device) into device memory of `dst_device` at
  /// `dst` where `scatter` places it, enqueued on `stream`: 2-D copies within the device, 3-D peer
  /// copies across devices.
  void copy_to_device(const void* block, std::size_t esize, const Scatter& scatter, char* dst,
                      int dst_device, const Stream& stream);

private:
  /// One pinned staging buffer of the ring, with the event of the last copy through it and the
  /// host work that waits for that copy (spreading a downloaded piece into its destination).
  struct StagingSlot {
    std::unique_ptr<PinnedBuffer> buffer;
    std::unique_ptr<Event> copied;
    std::function<void()> after_copy;
  };
  /// A stored input copied to the device for this computation, with the event that ends the
  /// copy and the streams whose work has read it.
  struct Upload {
    std::shared_ptr<Buffer> buffer;
    std::unique_ptr<Event> done;
    cudaStream_t stream = nullptr;
    std::vector<const Stream*> readers;
  };

  static void settle(StagingSlot& slot);
  /// The next staging buffer of the ring, free for a new copy on `stream`.
  StagingSlot& next_staging(const Stream& stream);
  bool copy_to_pinned(const void* block, const Scatter& scatter, char* dst, std::size_t esize,
                      const Stream& stream);
  /// A packed C-order device copy of a borrowed region (plan/borrowed.hpp) in host memory or on
  /// another device: straight 2-D copies from page-locked memory, through the staging ring from
  /// pageable memory, 3-D peer copies from another device.
  std::shared_ptr<Buffer> copy_region(const plan::BorrowedRegion& region, const Stream& stream);
  /// Whether host memory at `p` is page-locked, asked of CUDA once per computation and address.
  bool page_locked(const void* p);

  int device_;
  MemoryResource* device_resource_;
  MemoryResource* pinned_resource_;
  std::shared_ptr<MemoryBudget> budget_;
  StagingSlot ring_[staging_ring];
  int next_staging_ = 0;
  std::mutex uploads_mutex_;
  std::unordered_map<const Buffer*, Upload> uploads_;         ///< stored inputs on this device
  std::unordered_map<const Buffer*, std::size_t> reads_left_; ///< by this device's tasks
  std::vector<Upload> retired_; ///< freed once the running task's work is queued
  std::unordered_map<const void*, bool> page_locked_; ///< borrowed host arrays, by address
};

/// Makes `stream` wait for `event` (recorded on device `device`).
void wait_for(cudaStream_t stream, const Event& event, int device);

} // namespace chunked::cuda
