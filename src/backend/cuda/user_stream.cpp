// SPDX-License-Identifier: Apache-2.0
// Ordering a computation's streams against the host code's stream (user_stream.hpp).
#include "backend/cuda/user_stream.hpp"

#include <fmt/format.h>

namespace chunked::cuda {

namespace {
/// An event of `device` recorded on `stream` (which may be a handle that Stream does not own).
void record_on(const Event& event, cudaStream_t stream, int device) {
  CHUNKED_CUDA_TRY(cudaEventRecord(event.get(), stream), device,
                   "(an event on ComputeOptions::stream)");
}
} // namespace

UserStream::UserStream(void* stream) : stream_(static_cast<cudaStream_t>(stream)) {
  if (!stream_)
    return;
  const cudaError_t status = cudaStreamGetDevice(stream_, &device_);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw BackendError(fmt::format("Cuda backend: ComputeOptions::stream is not a CUDA stream "
                                   "of this process (cudaStreamGetDevice: {})",
                                   cudaGetErrorString(status)));
  }
}

void UserStream::precede(std::span<Stream* const> streams) const {
  if (!stream_ || streams.empty())
    return;
  DeviceGuard guard(device_);
  // Destroying the event once the waits are queued is safe: CUDA keeps it until they are done.
  const Event queued(device_);
  record_on(queued, stream_, device_);
  for (Stream* s : streams) {
    DeviceGuard on_library_device(s->device());
    CHUNKED_CUDA_TRY(cudaStreamWaitEvent(s->get(), queued.get(), 0), s->device(),
                     "(waiting for ComputeOptions::stream)");
  }
}

void UserStream::follow(std::span<Stream* const> streams) const {
  if (!stream_)
    return;
  for (Stream* s : streams) {
    Event done(s->device());
    {
      DeviceGuard on_library_device(s->device());
      done.record(*s);
    }
    DeviceGuard guard(device_);
    CHUNKED_CUDA_TRY(cudaStreamWaitEvent(stream_, done.get(), 0), device_,
                     "(ComputeOptions::stream waiting for the computation)");
  }
}

} // namespace chunked::cuda
