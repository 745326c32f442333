// SPDX-License-Identifier: Apache-2.0
// Persisted stencils on a GPU (runtime_api.hpp): their one buffer, and the fill of its frame, one
// kernel per slab of the frame, each element copied from where frame_source says.
#include "backend/cuda/runtime.hpp"
#include "backend/cuda/runtime_api.hpp"
#include "runtime/frame.hpp"
#include "runtime/frame_map.hpp"

#include <algorithm>
#include <cstdint>

namespace chunked::cuda {

namespace {

/// One slab of a frame, passed by value to its kernel.
struct SlabArgs {
  long long lo[max_ndim], extent[max_ndim], n[max_ndim], stride[max_ndim];
  long long count;
  int ndim, mode;
  unsigned long long constant;
};

template <class E> __global__ void fill_slab(E* interior, SlabArgs a) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < a.count;
       e += step) {
    long long rest = e, dst = 0, src = 0;
    bool constant = false;
    for (int k = a.ndim; k-- > 0;) {
      const long long p = a.lo[k] + rest % a.extent[k];
      rest /= a.extent[k];
      const long long s = frame::frame_source(p, a.n[k], a.mode);
      constant = constant || s < 0;
      dst += p * a.stride[k];
      src += s * a.stride[k];
    }
    E c;
    memcpy(&c, &a.constant, sizeof(E));
    interior[dst] = constant ? c : interior[src];
  }
}

template <class E> void launch(const runtime::Frame& f, const SlabArgs& a, cudaStream_t s) {
  constexpr int threads = 256;
  const long long blocks = std::min<long long>((a.count + threads - 1) / threads, 4096);
  fill_slab<E><<<static_cast<unsigned>(blocks), threads, 0, s>>>(static_cast<E*>(f.interior), a);
}

} // namespace

void fill_frame(const runtime::Frame& f) {
  const int device = f.space.device;
  DeviceGuard guard(device);
  const Stream& stream = *device_state(device).stream;
  for (const runtime::FrameBox& b : runtime::frame_boxes(f)) {
    SlabArgs a{};
    a.ndim = f.ndim;
    a.mode = f.mode;
    a.constant = f.constant;
    a.count = 1;
    for (int k = 0; k < f.ndim; ++k) {
      a.lo[k] = b.lo[k];
      a.extent[k] = b.extent[k];
      a.n[k] = f.extent[k];
      a.stride[k] = f.strides[k];
      a.count *= b.extent[k];
    }
    switch (f.element_bytes) {
    case 1:
      launch<std::uint8_t>(f, a, stream.get());
      break;
    case 4:
      launch<std::uint32_t>(f, a, stream.get());
      break;
    default:
      launch<std::uint64_t>(f, a, stream.get());
      break;
    }
    CHUNKED_CUDA_TRY(cudaGetLastError(), device, "(filling a stencil's frame)");
  }
  stream.synchronize("filling a stencil's frame");
}

std::shared_ptr<Buffer> allocate_framed(int device, std::size_t bytes, MemoryResource* resource) {
  auto buffer = std::make_shared<DeviceBuffer>(device, bytes, std::make_shared<MemoryBudget>(),
                                               nullptr, resource);
  // Allocated in order on the device state's stream; the computation's streams come after it.
  device_state(device).stream->synchronize("allocating a stencil's buffer");
  return buffer;
}

int single_device(const ComputeOptions& options, int count) {
  const std::vector<int> devices = select_devices(options, count);
  return devices.size() == 1 ? devices[0] : -1;
}

} // namespace chunked::cuda
