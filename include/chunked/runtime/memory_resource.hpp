// SPDX-License-Identifier: Apache-2.0
// MemoryResource: the interface through which a host code's own allocator supplies the device and
// pinned host memory that chunked's CUDA computations use (ComputeOptions::*_memory_resource).
#pragma once

#include <cstddef>

namespace chunked {

/// A supply of memory that the host code owns, such as its pool allocator. Given as
/// ComputeOptions::device_memory_resource (device memory) or ComputeOptions::pinned_memory_resource
/// (page-locked host memory), it serves every allocation of that kind that a Cuda computation
/// makes: block buffers, partial results, scratch, copies of stored inputs, the pinned staging
/// buffers, and the blocks that persist() keeps.
///
/// - `allocate` is called with the target device current and `stream`, a `cudaStream_t` of that
///   device (as `void*`), on which the memory is first used. It returns memory of at least `bytes`
///   (aligned for any element type: 256 bytes, as cudaMalloc, is safe), or null, or throws
///   std::bad_alloc: both make the computation fail with OutOfMemory, after its other memory is
///   given back. Any other exception fails the computation as one from a user function does.
/// - `deallocate` is called once per allocation, with the same `bytes`, the device of the
///   allocation current and a stream of that device. It is stream-ordered, as cudaFreeAsync: work
///   already queued on `stream` may still use `p`, so memory handed out again must be used only
///   after that work (a stream-ordered pool, or a synchronising cudaFree, does this). It must not
///   throw. Pinned memory is deallocated only after its copies are done.
/// - Both may be called from the computation's worker threads (one per GPU) at the same time.
///
/// The resource must outlive every array persisted with it: a persisted block gives its memory
/// back to the resource when the last array holding it is destroyed.
///
/// @code
/// struct Pool : chunked::MemoryResource {
///   void* allocate(std::size_t bytes, void* stream) override {
///     void* p = nullptr;
///     auto s = static_cast<cudaStream_t>(stream);
///     return cudaMallocAsync(&p, bytes, s) == cudaSuccess ? p : nullptr;
///   }
///   void deallocate(void* p, std::size_t, void* stream) override {
///     cudaFreeAsync(p, static_cast<cudaStream_t>(stream));
///   }
/// };
/// Pool pool;
/// chunked::ComputeOptions opts;
/// opts.device_memory_resource = &pool;
/// double s = x.sum().item(opts);
/// @endcode
struct MemoryResource {
  virtual void* allocate(std::size_t bytes, void* stream) = 0;
  virtual void deallocate(void* p, std::size_t bytes, void* stream) = 0;
  virtual ~MemoryResource() = default;
};

} // namespace chunked
