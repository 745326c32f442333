// SPDX-License-Identifier: Apache-2.0
// The CUDA entry points of a build without CUDA: nothing is usable, and asking for it says why.
#include "backend/cuda/runtime_api.hpp"
#include <chunked/config.hpp>

#if !CHUNKED_HAS_CUDA
namespace chunked::cuda {

bool built() { return false; }
int usable_device_count() { return 0; }
std::vector<std::shared_ptr<Buffer>> execute(const plan::Plan&, const ComputeOptions&, int) {
  throw BackendError("Cuda backend: this build of chunked has no CUDA support; use chunked::Auto "
                     "for CPU fallback");
}

std::shared_ptr<Buffer> make_transfer_buffer(std::size_t bytes,
                                             const std::function<void(void*)>& fill) {
  auto buffer = make_host_buffer(bytes);
  if (fill)
    fill(buffer->data());
  return buffer;
}

std::shared_ptr<Buffer> download(const Buffer&) {
  throw BackendError(
      "Cuda backend: this build of chunked has no CUDA support, so it holds no device buffers");
}

void copy_bytes(void*, MemorySpace, const void*, MemorySpace, std::size_t) {
  throw BackendError(
      "Cuda backend: this build of chunked has no CUDA support, so it holds no device memory");
}

int single_device(const ComputeOptions&, int) { return -1; }

std::shared_ptr<Buffer> allocate_framed(int, std::size_t, MemoryResource*) {
  throw BackendError(
      "Cuda backend: this build of chunked has no CUDA support, so it holds no device memory");
}

void fill_frame(const runtime::Frame&) {
  throw BackendError(
      "Cuda backend: this build of chunked has no CUDA support, so it holds no device memory");
}

int pointer_device(const void*) { return -1; }
double device_copy_rate() { return 0; }
void wait_for_kernels() {}

} // namespace chunked::cuda
#endif
