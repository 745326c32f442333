// SPDX-License-Identifier: Apache-2.0
// Interop copies of DeviceMemory (memory.hpp): regions of borrowed memory (from_host_view,
// from_device) copied packed to the device that reads them, and dense blocks copied into device
// destinations (to_device).
#include "backend/cuda/memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace chunked::cuda {

namespace {

/// Where the packed C-order copy of `region` reads from: the region's extents over a target map
/// of source offsets (elements from the region's first element), with the trailing axes that are
/// contiguous in the source merged into one and axes of extent 1 dropped, so that rows are as
/// long as the memory allows (one 2-D copy, or one memcpy, moves as much as it can).
Scatter region_scatter(const plan::BorrowedRegion& region) {
  const auto& ext = region.extent();
  const auto& str = region.strides();
  // Axes from the innermost out: (extent, stride), merging each into the run inside it while the
  // run is contiguous.
  index_t e[plan::max_ndim] = {}, st[plan::max_ndim] = {};
  int n = 0; // axes kept, innermost first
  for (int k = region.ndim(); k-- > 0;) {
    if (ext[k] == 1)
      continue;
    if (n > 0 && st[n - 1] * e[n - 1] == str[k]) {
      e[n - 1] *= ext[k]; // rows of the inner axis follow each other in memory: one longer axis
      continue;
    }
    e[n] = ext[k];
    st[n] = str[k];
    ++n;
  }
  if (n == 0 || st[0] != 1) { // a single element, or an innermost axis that is not contiguous
    e[n] = 1;
    st[n] = 1;
    ++n;
    std::rotate(e, e + n - 1, e + n);
    std::rotate(st, st + n - 1, st + n);
  }
  Scatter s;
  s.ndim = n;
  for (int k = 0; k < n; ++k) {
    s.extent[n - 1 - k] = e[k];
    s.target.coef[n - 1 - k] = st[k];
  }
  return s;
}

} // namespace

bool DeviceMemory::page_locked(const void* p) {
  const auto [it, fresh] = page_locked_.try_emplace(p, false);
  if (fresh) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, p) == cudaSuccess)
      it->second = attributes.type == cudaMemoryTypeHost;
    else
      cudaGetLastError();
  }
  return it->second;
}

std::shared_ptr<Buffer> DeviceMemory::copy_region(const plan::BorrowedRegion& region,
                                                  const Stream& stream) {
  const std::size_t esize = region.element_bytes();
  const index_t elements = region.elements();
  // Never empty: an empty read still binds a pointer.
  auto dev =
      allocate(std::max<std::size_t>(static_cast<std::size_t>(elements) * esize, esize), stream);
  if (elements == 0)
    return dev;
  const Scatter scatter = region_scatter(region);
  const auto* src = static_cast<const char*>(region.data());
  auto* out = static_cast<char*>(dev->data());
  const auto e = static_cast<index_t>(esize);
  const MemorySpace space = region.space();
  const bool from_device = space.kind == MemorySpace::Kind::device;
  if (from_device || page_locked(region.whole().data())) {
    // Straight from the memory: the region's rows are the source of 2-D copies (pitch: the
    // array's stride), the packed copy their destination.
    const auto copies = pitched_copies(scatter);
    if (!copies)
      throw BackendError("Cuda backend: internal: a borrowed region has no 2-D copy geometry");
    const auto row = static_cast<std::size_t>(copies->width) * esize;
    const auto height = static_cast<std::size_t>(copies->height);
    for (index_t o = 0; o < copies->outer; ++o) {
      const char* from = src + pitched_copy_offset(scatter, o) * e;
      char* to = out + static_cast<std::size_t>(o) * height * row;
      const auto pitch = static_cast<std::size_t>(copies->pitch) * esize;
      if (!from_device) {
        CHUNKED_CUDA_TRY(cudaMemcpy2DAsync(to, row, from, pitch, row, height,
                                           cudaMemcpyHostToDevice, stream.get()),
                         device_,
                         fmt::format("(copy of {} x {} bytes of a host view)", height, row));
        continue;
      }
      cudaMemcpy3DPeerParms p{};
      p.srcPtr = make_cudaPitchedPtr(const_cast<char*>(from), pitch, row, height);
      p.srcDevice = space.device;
      p.dstPtr = make_cudaPitchedPtr(to, row, row, height);
      p.dstDevice = device_;
      p.extent = make_cudaExtent(row, height, 1);
      CHUNKED_CUDA_TRY(
          cudaMemcpy3DPeerAsync(&p, stream.get()), device_,
          fmt::format("(copy of {} x {} bytes of device {}'s memory)", height, row, space.device));
    }
    return dev;
  }
  // Pageable memory: packed into the staging ring piece by piece on the host (while the GPU
  // copies the pieces before), each piece one copy to the device.
  const auto piece = std::max<index_t>(1, static_cast<index_t>(staging_bytes / esize));
  for (index_t t0 = 0; t0 < elements; t0 += piece) {
    const index_t t1 = std::min(elements, t0 + piece);
    StagingSlot& slot = next_staging();
    auto* staged = static_cast<char*>(slot.buffer->data());
    for_each_row(scatter, t0, t1, [&](index_t offset, index_t step, index_t len, index_t j) {
      if (step == 1) {
        std::memcpy(staged + j * e, src + offset * e, static_cast<std::size_t>(len) * esize);
        return;
      }
      for (index_t k = 0; k < len; ++k)
        std::memcpy(staged + (j + k) * e, src + (offset + k * step) * e, esize);
    });
    const auto bytes = static_cast<std::size_t>(t1 - t0) * esize;
    CHUNKED_CUDA_TRY(
        cudaMemcpyAsync(out + t0 * e, staged, bytes, cudaMemcpyHostToDevice, stream.get()), device_,
        fmt::format("(copy of {} bytes of a host view)", bytes));
    slot.copied->record(stream);
  }
  return dev;
}

void DeviceMemory::copy_to_device(const void* block, std::size_t esize, const Scatter& scatter,
                                  char* dst, int dst_device, const Stream& stream) {
  const auto copies = pitched_copies(scatter);
  if (!copies)
    throw BackendError("Cuda backend: internal: a device destination has no 2-D copy geometry");
  const auto* src = static_cast<const char*>(block);
  const auto row = static_cast<std::size_t>(copies->width) * esize;
  const auto height = static_cast<std::size_t>(copies->height);
  const auto pitch = static_cast<std::size_t>(copies->pitch) * esize;
  for (index_t o = 0; o < copies->outer; ++o) {
    char* to = dst + pitched_copy_offset(scatter, o) * static_cast<index_t>(esize);
    const char* from = src + static_cast<std::size_t>(o) * height * row;
    if (dst_device == device_) {
      CHUNKED_CUDA_TRY(cudaMemcpy2DAsync(to, pitch, from, row, row, height,
                                         cudaMemcpyDeviceToDevice, stream.get()),
                       device_,
                       fmt::format("(copy of {} x {} bytes to device memory)", height, row));
      continue;
    }
    cudaMemcpy3DPeerParms p{};
    p.srcPtr = make_cudaPitchedPtr(const_cast<char*>(from), row, row, height);
    p.srcDevice = device_;
    p.dstPtr = make_cudaPitchedPtr(to, pitch, row, height);
    p.dstDevice = dst_device;
    p.extent = make_cudaExtent(row, height, 1);
    CHUNKED_CUDA_TRY(cudaMemcpy3DPeerAsync(&p, stream.get()), device_,
                     fmt::format("(copy of {} x {} bytes to device {})", height, row, dst_device));
  }
}

} // namespace chunked::cuda
