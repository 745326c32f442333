// SPDX-License-Identifier: Apache-2.0
// Borrowed memory (from_host_view, from_device) as stored nodes that the planner reads in place,
// and to_device: results computed straight into caller device memory.
#include "backend/cuda/runtime_api.hpp"
#include "runtime/backend.hpp"
#include <chunked/views.hpp>

#include <cstdint>
#include <string>

namespace chunked::detail {

namespace {

/// The caller's memory as a Buffer: owns nothing, frees nothing.
class Borrowed final : public Buffer {
public:
  Borrowed(const void* data, std::size_t bytes, MemorySpace space)
      : Buffer(const_cast<void*>(data), bytes, space) {}
};

/// ValueError unless `data` may hold `count` elements aligned to `align`.
void check_pointer(const char* what, const void* data, std::size_t count, std::size_t align) {
  if (data == nullptr && count > 0)
    throw ValueError(std::string(what) + ": the pointer is null but the array has " +
                     std::to_string(count) + " elements");
  if (reinterpret_cast<std::uintptr_t>(data) % align != 0)
    throw ValueError(std::string(what) + ": the pointer is not aligned for its element type (" +
                     std::to_string(align) + "-byte alignment needed)");
}

/// BackendError unless this build has CUDA.
void check_built(const char* what) {
  if (!runtime::cuda_backend().built())
    throw BackendError(std::string(what) +
                       ": this build of chunked has no CUDA support (configure with "
                       "CHUNKED_ENABLE_CUDA=ON)");
}

/// BackendError unless CUDA device `device` exists.
void check_device(const char* what, int device) {
  const int count = runtime::cuda_backend().usable_devices();
  if (device < 0 || device >= count)
    throw BackendError(std::string(what) + ": CUDA device " + std::to_string(device) +
                       " does not exist (" + std::to_string(count) + " device(s) visible)");
}

/// ValueError unless `data` (with elements) points into memory of `device`.
void check_on_device(const char* what, const void* data, std::size_t count, int device) {
  if (count == 0)
    return;
  const int on = cuda::pointer_device(data);
  if (on != device)
    throw ValueError(std::string(what) + ": the pointer is not memory of CUDA device " +
                     std::to_string(device) +
                     (on < 0 ? std::string(" (it is host memory, or unknown to CUDA)")
                             : " (it is memory of device " + std::to_string(on) + ")"));
}

graph::NodePtr borrowed_node(const void* data, DType dtype, const Shape& shape,
                             const Chunks& chunks, MemorySpace space) {
  auto stored = std::make_shared<graph::StoredData>();
  stored->dtype = dtype;
  stored->grid = ChunkGrid(shape, chunks.resolve(shape, dtype_size(dtype)));
  stored->borrowed = std::make_shared<Borrowed>(
      data, static_cast<std::size_t>(shape.size()) * dtype_size(dtype), space);
  stored->strides = shape.strides();
  return graph::make_stored(std::move(stored));
}

} // namespace

graph::NodePtr borrow_host(const void* data, std::size_t count, std::size_t align, DType dtype,
                           const Shape& shape, const Chunks& chunks) {
  if (static_cast<index_t>(count) != shape.size())
    throw ShapeError("from_host_view: " + std::to_string(count) + " values given for shape " +
                     shape.to_string() + " of " + std::to_string(shape.size()) + " elements");
  check_pointer("from_host_view", data, count, align);
  return borrowed_node(data, dtype, shape, chunks, MemorySpace{});
}

graph::NodePtr borrow_device(const void* data, std::size_t align, DType dtype, const Shape& shape,
                             const Chunks& chunks, int device, BackendKind backend) {
  // Checked from what is wrong everywhere to what depends on this machine's devices.
  check_built("from_device");
  if (backend == BackendKind::cpu)
    throw ValueError("from_device: device memory is read by the Cuda or Auto backend, not Cpu");
  const auto count = static_cast<std::size_t>(shape.size());
  check_pointer("from_device", data, count, align);
  check_device("from_device", device);
  check_on_device("from_device", data, count, device);
  return borrowed_node(data, dtype, shape, chunks, MemorySpace{MemorySpace::Kind::device, device});
}

void compute_to_device(const graph::NodePtr& node, void* out, std::size_t align, int device,
                       BackendKind backend, const ComputeOptions& options) {
  check_built("to_device");
  if (backend == BackendKind::cpu)
    throw ValueError("to_device: a Cpu array is computed on the CPU; compute it on the GPU as "
                     "x.to<chunked::Cuda>() (or chunked::Auto) to write device memory");
  const auto count = static_cast<std::size_t>(node->shape.size());
  check_pointer("to_device", out, count, align);
  check_device("to_device", device);
  check_on_device("to_device", out, count, device);
  // By default the whole computation runs on the device that holds the result, so that every
  // kernel writes its block straight into it.
  ComputeOptions opts = options;
  if (opts.devices.empty())
    opts.devices = {device};
  compute_into({{node, out, MemorySpace{MemorySpace::Kind::device, device}}}, BackendKind::cuda,
               opts);
}

} // namespace chunked::detail
