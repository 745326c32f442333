// SPDX-License-Identifier: Apache-2.0
// CUDA runtime objects as RAII types: error checks, device selection, streams, events, device and
// pinned buffers, and the per-device state that outlives one computation.
#pragma once

#include <chunked/core/buffer.hpp>
#include <chunked/core/error.hpp>
#include <chunked/runtime/compute_options.hpp>
#include <chunked/runtime/memory_resource.hpp>

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace chunked::cuda {

/// Throws BackendError (OutOfMemory for allocation failures) naming `call`, the device and
/// `what` (sizes, the task) when `status` is not cudaSuccess. Clears a non-sticky error first so
/// the next call on this thread starts clean.
void check(cudaError_t status, const char* call, int device, const std::string& what = {});

/// Checks `call`, naming it in the error: CHUNKED_CUDA_TRY(cudaMemcpy(...), device, "what").
#define CHUNKED_CUDA_TRY(call, device, what) ::chunked::cuda::check((call), #call, (device), (what))

/// Makes `device` current for this thread and restores the previous device on destruction.
class DeviceGuard {
public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
  int previous_ = -1;
  int device_;
};

/// A non-blocking stream on one device.
class Stream {
public:
  explicit Stream(int device);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  int device() const { return device_; }
  /// Waits for all work queued so far; throws on a failed kernel or copy.
  void synchronize(const std::string& what = {}) const;

private:
  cudaStream_t stream_ = nullptr;
  int device_;
};

/// An event for ordering streams (timing disabled unless asked for).
class Event {
public:
  explicit Event(int device, bool timing = false);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(const Stream& stream);
  void synchronize() const;
  cudaEvent_t get() const { return event_; }
  /// Milliseconds from `start` to this event (both recorded with timing).
  float elapsed_since(const Event& start) const;

private:
  cudaEvent_t event_ = nullptr;
  int device_;
};

/// Bytes one computation may hold on one device; shared by the buffers charged to it, so a
/// buffer that outlives the computation (persist) still returns its bytes on destruction.
struct MemoryBudget {
  std::size_t limit = 0;
  std::atomic<std::size_t> used{0};
};

/// Most compute streams per device (ComputeOptions::streams_per_device is clamped to it).
constexpr int max_streams_per_device = 16;

/// Per-device state that lives as long as the process: a stream-ordered memory pool, the stream
/// that frees are ordered on, and the compute streams that executors enqueue work on. Never
/// destroyed: CUDA objects must not be released after the driver has shut down at exit.
struct DeviceState {
  int device = 0;
  cudaMemPool_t pool = nullptr;
  /// Orders the allocations and frees of buffers made outside a computation's streams.
  Stream* stream = nullptr;
  int cc_major = 0, cc_minor = 0;
  /// Compute stream k (0 <= k < max_streams_per_device), created on first use. Thread-safe.
  Stream& compute_stream(int k);

private:
  std::mutex mutex_;
  Stream* compute_[max_streams_per_device] = {};
};

/// Whether `host` is page-locked host memory (which copies reach without staging).
bool is_pinned_host(const void* host);

/// The devices a computation runs on: ComputeOptions::devices, or all `count` visible ones;
/// BackendError when there is none or one named does not exist.
std::vector<int> select_devices(const ComputeOptions& options, int count);

/// The process-wide state of `device`, created on first use.
DeviceState& device_state(int device);

/// Bytes of one pinned staging buffer: host copies of pageable memory go through them in pieces.
constexpr std::size_t staging_bytes = std::size_t{32} << 20;

/// A pinned staging buffer of staging_bytes from a process-wide pool (allocating page-locked
/// memory costs milliseconds, so buffers are reused across computations).
std::unique_ptr<class PinnedBuffer> acquire_staging();
/// Returns a buffer of acquire_staging() to the pool (which keeps a bounded number).
void release_staging(std::unique_ptr<PinnedBuffer> buffer);

/// Device memory from the device's pool, or from the host code's MemoryResource, freed in order
/// on the device's stream. A Buffer in MemorySpace{device, d}: data() is a device pointer.
class DeviceBuffer final : public Buffer {
public:
  /// Allocates `bytes`, ordered on `stream` (the device state's stream when null), charged to
  /// `budget`, from `resource` when given (which must outlive the buffer), else from the device's
  /// pool; OutOfMemory when the budget, the device or the resource has no room. The free is
  /// ordered on the same stream: whoever uses the buffer on another stream makes that stream wait
  /// for the use (an event) before the buffer is dropped.
  DeviceBuffer(int device, std::size_t bytes, std::shared_ptr<MemoryBudget> budget,
               const Stream* stream = nullptr, MemoryResource* resource = nullptr);
  ~DeviceBuffer() override;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// The stream the allocation and the free are ordered on.
  cudaStream_t stream() const { return stream_; }

private:
  std::shared_ptr<MemoryBudget> budget_;
  cudaStream_t stream_;
  MemoryResource* resource_;
};

/// Page-locked host memory, so copies to and from devices run at full speed and asynchronously.
class PinnedBuffer final : public Buffer {
public:
  /// `fill`, when given, writes the contents first (see make_transfer_buffer).
  explicit PinnedBuffer(std::size_t bytes, const std::function<void(void*)>& fill = {});
  /// `bytes` from the host code's `resource` (which must outlive the buffer), asked with `device`
  /// current and its `stream`, and given back the same way; OutOfMemory when it refuses.
  PinnedBuffer(std::size_t bytes, MemoryResource& resource, int device, cudaStream_t stream);
  ~PinnedBuffer() override;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

private:
  MemoryResource* resource_ = nullptr;
  int device_ = -1;
  cudaStream_t stream_ = nullptr;
};

/// Bytes asked of a MemoryResource for a buffer of `bytes`: empty blocks still need a distinct,
/// valid pointer, and a resource may answer null for 0 bytes. Given back with the same count.
constexpr std::size_t resource_bytes(std::size_t bytes) { return bytes == 0 ? 1 : bytes; }

/// Memory of `bytes` (resource_bytes) from `resource`, with `device` current: OutOfMemory naming
/// `kind` ("device", "pinned") when it returns null or throws std::bad_alloc.
void* allocate_from(MemoryResource& resource, std::size_t bytes, void* stream, int device,
                    const char* kind);
/// Gives memory of allocate_from back to `resource` with `device` current; never throws.
void deallocate_to(MemoryResource& resource, void* p, std::size_t bytes, void* stream,
                   int device) noexcept;

} // namespace chunked::cuda
