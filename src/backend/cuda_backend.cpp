// SPDX-License-Identifier: Apache-2.0
// runtime::cuda_backend(): the CUDA backend's entry points (runtime_api.hpp) behind the backend
// interface. Compiled in every build: without CUDA, no_cuda.cpp defines those entry points to
// report absence.
#include "backend/cuda/runtime_api.hpp"
#include "runtime/backend.hpp"

namespace chunked::runtime {

namespace {

class CudaBackend final : public Backend {
public:
  const char* name() const override { return "Cuda"; }
  bool built() const override { return cuda::built(); }
  int usable_devices() const override { return cuda::usable_device_count(); }
  /// One task per block: on a GPU one block's kernel already spreads over every multiprocessor.
  plan::TaskSplit task_split() const override { return plan::TaskSplit{}; }
  void wait_for_kernels() const override { cuda::wait_for_kernels(); }
  std::vector<std::shared_ptr<Buffer>> execute(plan::Plan& plan, const ComputeOptions& options,
                                               int devices) const override {
    return cuda::execute(plan, options, devices);
  }
  std::shared_ptr<Buffer> host_buffer(std::size_t bytes,
                                      const std::function<void(void*)>& fill) const override {
    return cuda::make_transfer_buffer(bytes, fill);
  }
  std::shared_ptr<Buffer> to_host(const Buffer& buffer) const override {
    return cuda::download(buffer);
  }
  void copy_bytes(void* dst, MemorySpace to, const void* src, MemorySpace from,
                  std::size_t bytes) const override {
    cuda::copy_bytes(dst, to, src, from, bytes);
  }
  std::shared_ptr<Buffer> framed_buffer(std::size_t bytes, const ComputeOptions& options,
                                        int devices) const override {
    const int device = cuda::single_device(options, devices);
    return device < 0 ? nullptr
                      : cuda::allocate_framed(device, bytes, options.device_memory_resource);
  }
  void fill_frame(const Frame& frame) const override { cuda::fill_frame(frame); }
  CopyRate copy_rate() const override {
    return {cuda::device_copy_rate(), "device-to-device copy on GPU 0, bytes read and written"};
  }
};

} // namespace

const Backend& cuda_backend() {
  static const CudaBackend backend;
  return backend;
}

} // namespace chunked::runtime
