// SPDX-License-Identifier: Apache-2.0
// CUDA runtime objects: checked calls, streams, events, pools and buffers.
#include "backend/cuda/runtime.hpp"
#include "backend/cuda/runtime_api.hpp"
#include "core/memory_counters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <new>
#include <vector>

namespace chunked::cuda {

void check(cudaError_t status, const char* call, int device, const std::string& what) {
  if (status == cudaSuccess)
    return;
  cudaGetLastError(); // a non-sticky error would otherwise be reported again by a later call
  const std::string message = fmt::format("Cuda backend: {} failed on device {}{}{}: {} ({})", call,
                                          device, what.empty() ? "" : " ", what,
                                          cudaGetErrorName(status), cudaGetErrorString(status));
  if (status == cudaErrorMemoryAllocation)
    throw OutOfMemory(message);
  throw BackendError(message);
}

DeviceGuard::DeviceGuard(int device) : device_(device) {
  CHUNKED_CUDA_TRY(cudaGetDevice(&previous_), device, "");
  if (previous_ != device)
    CHUNKED_CUDA_TRY(cudaSetDevice(device), device, "");
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0 && previous_ != device_)
    cudaSetDevice(previous_);
}

Stream::Stream(int device) : device_(device) {
  DeviceGuard guard(device);
  CHUNKED_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), device, "");
}

Stream::~Stream() {
  if (stream_)
    cudaStreamDestroy(stream_);
}

void Stream::synchronize(const std::string& what) const {
  CHUNKED_CUDA_TRY(cudaStreamSynchronize(stream_), device_, what);
}

Event::Event(int device, bool timing) : device_(device) {
  DeviceGuard guard(device);
  CHUNKED_CUDA_TRY(
      cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming), device,
      "");
}

Event::~Event() {
  if (event_)
    cudaEventDestroy(event_);
}

void Event::record(const Stream& stream) {
  CHUNKED_CUDA_TRY(cudaEventRecord(event_, stream.get()), device_, "");
}

void Event::synchronize() const { CHUNKED_CUDA_TRY(cudaEventSynchronize(event_), device_, ""); }

float Event::elapsed_since(const Event& start) const {
  float ms = 0;
  CHUNKED_CUDA_TRY(cudaEventElapsedTime(&ms, start.event_, event_), device_, "");
  return ms;
}

bool is_pinned_host(const void* host) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

std::vector<int> select_devices(const ComputeOptions& options, int count) {
  if (count == 0)
    throw BackendError(
        "Cuda backend: no CUDA device is visible; use chunked::Auto for CPU fallback");
  std::vector<int> devices = options.devices;
  if (devices.empty())
    for (int i = 0; i < count; ++i)
      devices.push_back(i);
  for (int id : devices)
    if (id < 0 || id >= count)
      throw BackendError(fmt::format("Cuda backend: ComputeOptions::devices names device {}, but "
                                     "devices 0 to {} are visible",
                                     id, count - 1));
  return devices;
}

DeviceState& device_state(int device) {
  static std::mutex mutex;
  static std::array<DeviceState*, 64> states{};
  if (device < 0 || device >= static_cast<int>(states.size()))
    throw BackendError(fmt::format("Cuda backend: device {} is out of range", device));
  std::lock_guard lock(mutex);
  if (DeviceState* s = states[device])
    return *s;
  auto state = std::make_unique<DeviceState>();
  state->device = device;
  DeviceGuard guard(device);
  CHUNKED_CUDA_TRY(
      cudaDeviceGetAttribute(&state->cc_major, cudaDevAttrComputeCapabilityMajor, device), device,
      "");
  CHUNKED_CUDA_TRY(
      cudaDeviceGetAttribute(&state->cc_minor, cudaDevAttrComputeCapabilityMinor, device), device,
      "");
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  CHUNKED_CUDA_TRY(cudaMemPoolCreate(&state->pool, &props), device, "");
  // Keep freed memory in the pool between tasks: the budget, not the pool, bounds what is held.
  std::uint64_t threshold = ~std::uint64_t{0};
  CHUNKED_CUDA_TRY(
      cudaMemPoolSetAttribute(state->pool, cudaMemPoolAttrReleaseThreshold, &threshold), device,
      "");
  state->stream = new Stream(device);
  states[device] = state.release();
  return *states[device];
}

Stream& DeviceState::compute_stream(int k) {
  if (k < 0 || k >= max_streams_per_device)
    throw BackendError(
        fmt::format("Cuda backend: compute stream {} of device {} is outside [0, {})", k, device,
                    max_streams_per_device));
  std::lock_guard lock(mutex_);
  if (!compute_[k])
    compute_[k] = new Stream(device);
  return *compute_[k];
}

void* allocate_from(MemoryResource& resource, std::size_t bytes, void* stream, int device,
                    const char* kind) {
  DeviceGuard guard(device);
  void* p = nullptr;
  try {
    p = resource.allocate(resource_bytes(bytes), stream);
  } catch (const std::bad_alloc&) {
    p = nullptr; // refused, as by returning null
  }
  if (!p)
    throw OutOfMemory(fmt::format("Cuda backend: the {} memory resource of ComputeOptions refused "
                                  "{} bytes for device {}",
                                  kind, resource_bytes(bytes), device));
  return p;
}

void deallocate_to(MemoryResource& resource, void* p, std::size_t bytes, void* stream,
                   int device) noexcept {
  int previous = -1;
  cudaGetDevice(&previous);
  if (previous != device)
    cudaSetDevice(device);
  try {
    resource.deallocate(p, resource_bytes(bytes), stream);
  } catch (...) {
    // A destructor cannot report it; MemoryResource::deallocate is documented not to throw.
  }
  if (previous >= 0 && previous != device)
    cudaSetDevice(previous);
}

namespace {
void* allocate_device(int device, std::size_t bytes, MemoryBudget& budget, const Stream* stream,
                      MemoryResource* resource) {
  const std::size_t before = budget.used.fetch_add(bytes);
  if (budget.limit != 0 && before + bytes > budget.limit) {
    budget.used.fetch_sub(bytes);
    throw OutOfMemory(fmt::format("Cuda backend: allocating {} bytes on device {} would exceed the "
                                  "device memory limit of {} bytes ({} in use); raise "
                                  "ComputeOptions::device_memory_limit or use smaller chunks",
                                  bytes, device, budget.limit, before));
  }
  DeviceState& state = device_state(device);
  if (resource) {
    try {
      return allocate_from(*resource, bytes, (stream ? stream : state.stream)->get(), device,
                           "device");
    } catch (...) {
      budget.used.fetch_sub(bytes);
      throw;
    }
  }
  DeviceGuard guard(device);
  void* p = nullptr;
  const cudaError_t status = cudaMallocFromPoolAsync(&p, bytes == 0 ? 1 : bytes, state.pool,
                                                     (stream ? stream : state.stream)->get());
  if (status != cudaSuccess) {
    budget.used.fetch_sub(bytes);
    check(status, "cudaMallocFromPoolAsync", device, fmt::format("({} bytes)", bytes));
  }
  return p;
}
} // namespace

DeviceBuffer::DeviceBuffer(int device, std::size_t bytes, std::shared_ptr<MemoryBudget> budget,
                           const Stream* stream, MemoryResource* resource)
    : Buffer(allocate_device(device, bytes, *budget, stream, resource), bytes,
             MemorySpace{MemorySpace::Kind::device, device}),
      budget_(std::move(budget)),
      stream_(stream ? stream->get() : device_state(device).stream->get()), resource_(resource) {
  detail::count_memory(detail::MemoryKind::device, static_cast<std::int64_t>(bytes));
}

DeviceBuffer::~DeviceBuffer() {
  const int device = space().device;
  detail::count_memory(detail::MemoryKind::device, -static_cast<std::int64_t>(bytes()));
  if (resource_) {
    // Stream-ordered like cudaFreeAsync (MemoryResource::deallocate).
    deallocate_to(*resource_, data(), bytes(), stream_, device);
    budget_->used.fetch_sub(bytes());
    return;
  }
  int previous = -1;
  cudaGetDevice(&previous);
  if (previous != device)
    cudaSetDevice(device);
  // Ordered after every use: users on other streams made this stream wait for them.
  cudaFreeAsync(data(), stream_);
  if (previous >= 0 && previous != device)
    cudaSetDevice(previous);
  budget_->used.fetch_sub(bytes());
}

namespace {
/// Large blocks are ordinary host memory on huge pages, page-locked with cudaHostRegister, which
/// is many times faster than cudaMallocHost and cudaFreeHost for the same transfer rate
/// (benchmarks/RESULTS.md, M3). Freed blocks go back to the host allocator's cache, so a block of
/// a size used before costs only its registration. Contents given at allocation are written
/// before the registration: page-locked pages are much slower to write first (M4).
bool registered(std::size_t bytes) { return bytes >= detail::large_host_block; }

/// Runs `fill` (when given) on memory `p` owns, releasing p if it throws.
template <class Release>
void fill_owned(void* p, const std::function<void(void*)>& fill, Release release) {
  if (!fill)
    return;
  try {
    fill(p);
  } catch (...) {
    release(p);
    throw;
  }
}

void* allocate_pinned(std::size_t bytes, const std::function<void(void*)>& fill) {
  const std::string what = fmt::format("({} bytes of pinned host memory)", bytes);
  void* p = nullptr;
  if (!registered(bytes)) {
    check(cudaMallocHost(&p, bytes == 0 ? 1 : bytes), "cudaMallocHost", -1, what);
    fill_owned(p, fill, [](void* q) { cudaFreeHost(q); });
    return p;
  }
  p = detail::allocate_host(bytes);
  fill_owned(p, fill, [bytes](void* q) { detail::free_host(q, bytes); });
  const cudaError_t status = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
  if (status != cudaSuccess)
    detail::free_host(p, bytes);
  check(status, "cudaHostRegister", -1, what);
  return p;
}
} // namespace

PinnedBuffer::PinnedBuffer(std::size_t bytes, const std::function<void(void*)>& fill)
    : Buffer(allocate_pinned(bytes, fill), bytes, MemorySpace{}) {
  detail::count_memory(detail::MemoryKind::pinned, static_cast<std::int64_t>(bytes));
}

PinnedBuffer::PinnedBuffer(std::size_t bytes, MemoryResource& resource, int device,
                           cudaStream_t stream)
    : Buffer(allocate_from(resource, bytes, stream, device, "pinned"), bytes, MemorySpace{}),
      resource_(&resource), device_(device), stream_(stream) {
  detail::count_memory(detail::MemoryKind::pinned, static_cast<std::int64_t>(bytes));
}

PinnedBuffer::~PinnedBuffer() {
  detail::count_memory(detail::MemoryKind::pinned, -static_cast<std::int64_t>(bytes()));
  if (resource_) {
    deallocate_to(*resource_, data(), bytes(), stream_, device_);
    return;
  }
  if (registered(bytes())) {
    cudaHostUnregister(data());
    detail::free_host(data(), bytes());
  } else {
    cudaFreeHost(data());
  }
}

namespace {
struct StagingPool {
  std::mutex mutex;
  std::vector<std::unique_ptr<PinnedBuffer>> free;
};
StagingPool& staging_pool() {
  static auto* pool = new StagingPool; // never destroyed: pinned memory outlives static teardown
  return *pool;
}
/// Buffers kept for reuse: enough for the rings of several devices' executors.
constexpr std::size_t staging_kept = 32;
} // namespace

std::unique_ptr<PinnedBuffer> acquire_staging() {
  StagingPool& pool = staging_pool();
  {
    std::lock_guard lock(pool.mutex);
    if (!pool.free.empty()) {
      auto buffer = std::move(pool.free.back());
      pool.free.pop_back();
      return buffer;
    }
  }
  return std::make_unique<PinnedBuffer>(staging_bytes);
}

void release_staging(std::unique_ptr<PinnedBuffer> buffer) {
  StagingPool& pool = staging_pool();
  std::lock_guard lock(pool.mutex);
  if (buffer && pool.free.size() < staging_kept)
    pool.free.push_back(std::move(buffer));
}

std::shared_ptr<Buffer> make_transfer_buffer(std::size_t bytes,
                                             const std::function<void(void*)>& fill) {
  if (usable_device_count() != 0) {
    try {
      return std::make_shared<PinnedBuffer>(bytes, fill);
    } catch (const Error&) {
      // Pinned memory speeds copies up; pageable memory still works (and is filled again).
    }
  }
  auto buffer = make_host_buffer(bytes);
  if (fill)
    fill(buffer->data());
  return buffer;
}

void copy_bytes(void* dst, MemorySpace to, const void* src, MemorySpace from, std::size_t bytes) {
  if (bytes == 0)
    return;
  const int device = to.kind == MemorySpace::Kind::device ? to.device : from.device;
  DeviceGuard guard(std::max(device, 0));
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy", device,
        std::to_string(bytes) + " bytes");
}

} // namespace chunked::cuda

namespace chunked::cuda {

bool built() { return true; }

int usable_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

int pointer_device(const void* p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  const bool on_device =
      attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
  return on_device ? attributes.device : -1;
}

std::shared_ptr<Buffer> download(const Buffer& device_buffer) {
  auto host = make_host_buffer(device_buffer.bytes());
  const int device = device_buffer.space().device;
  DeviceGuard guard(device);
  check(
      cudaMemcpy(host->data(), device_buffer.data(), device_buffer.bytes(), cudaMemcpyDeviceToHost),
      "cudaMemcpy (device to host)", device, std::to_string(device_buffer.bytes()) + " bytes");
  return host;
}

} // namespace chunked::cuda
