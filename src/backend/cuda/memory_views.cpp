// SPDX-License-Identifier: Apache-2.0
// Interop copies of DeviceMemory (memory.hpp): regions of borrowed memory (from_host_view,
// from_device) copied packed to the device that reads them, and dense blocks copied into device
// destinations (to_device).
#include "backend/cuda/memory.hpp"
#include "runtime/parallel_for.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

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

/// cudaMemcpy2D's and cudaMemcpy3DPeer's limit on pitches (cudaDevAttrMaxPitch is 2^31 - 1 on
/// every GPU of CUDA 12 and 13): rows further apart are copied one by one.
constexpr std::size_t max_pitch = (std::size_t{1} << 31) - 1;

/// One end of a copy of rows: memory, the bytes between its rows, and its device (-1: host).
struct RowsAt {
  char* data;
  std::size_t pitch;
  int device;
};

/// Copies `height` rows of `row` bytes from `from` to `to`, enqueued on `stream` of `device`: one
/// copy where the rows are contiguous at both ends, else a 2-D copy (a 3-D peer copy across
/// devices), else, for pitches past the limit, one copy per row.
void copy_rows(const RowsAt& to, const RowsAt& from, std::size_t row, std::size_t height,
               cudaStream_t stream, int device, const std::string& what) {
  const bool peer = from.device >= 0 && to.device >= 0 && from.device != to.device;
  const cudaMemcpyKind kind =
      from.device < 0 ? cudaMemcpyHostToDevice
                      : (to.device < 0 ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice);
  auto one = [&](char* dst, const char* src, std::size_t bytes) {
    if (peer)
      CHUNKED_CUDA_TRY(cudaMemcpyPeerAsync(dst, to.device, src, from.device, bytes, stream), device,
                       what);
    else
      CHUNKED_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kind, stream), device, what);
  };
  if (height == 1 || (from.pitch == row && to.pitch == row)) {
    one(to.data, from.data, row * height);
    return;
  }
  if (from.pitch > max_pitch || to.pitch > max_pitch) {
    for (std::size_t r = 0; r < height; ++r)
      one(to.data + r * to.pitch, from.data + r * from.pitch, row);
    return;
  }
  if (!peer) {
    CHUNKED_CUDA_TRY(
        cudaMemcpy2DAsync(to.data, to.pitch, from.data, from.pitch, row, height, kind, stream),
        device, what);
    return;
  }
  cudaMemcpy3DPeerParms p{};
  p.srcPtr = make_cudaPitchedPtr(from.data, from.pitch, row, height);
  p.srcDevice = from.device;
  p.dstPtr = make_cudaPitchedPtr(to.data, to.pitch, row, height);
  p.dstDevice = to.device;
  p.extent = make_cudaExtent(row, height, 1);
  CHUNKED_CUDA_TRY(cudaMemcpy3DPeerAsync(&p, stream), device, what);
}

/// Bytes from which packing a staging piece is worth one more thread.
constexpr std::size_t pack_part = std::size_t{2} << 20;

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
    const auto pitch = static_cast<std::size_t>(copies->pitch) * esize;
    const int source = from_device ? space.device : -1;
    const std::string what =
        fmt::format("(copy of {} x {} bytes of {})", height, row,
                    from_device ? fmt::format("device {}'s memory", source) : "a host view");
    for (index_t o = 0; o < copies->outer; ++o)
      copy_rows({out + static_cast<std::size_t>(o) * height * row, row, device_},
                {const_cast<char*>(src) + pitched_copy_offset(scatter, o) * e, pitch, source}, row,
                height, stream.get(), device_, what);
    return dev;
  }
  // Pageable memory: packed into the staging ring piece by piece on the host (while the GPU
  // copies the pieces before), each piece one copy to the device. A piece is packed on several
  // threads: one thread moves pageable memory at a fraction of what the GPU's copy takes.
  const auto piece = std::max<index_t>(1, static_cast<index_t>(staging_bytes / esize));
  const std::size_t packers = std::min<std::size_t>(runtime::hardware_threads(), 8);
  for (index_t t0 = 0; t0 < elements; t0 += piece) {
    const index_t t1 = std::min(elements, t0 + piece);
    StagingSlot& slot = next_staging(stream);
    auto* staged = static_cast<char*>(slot.buffer->data());
    const auto parts = static_cast<index_t>(
        std::min<std::size_t>(packers, static_cast<std::size_t>(t1 - t0) * esize / pack_part + 1));
    runtime::parallel_for(
        static_cast<std::size_t>(parts), static_cast<std::size_t>(parts), [&](std::size_t q) {
          const index_t a = t0 + (t1 - t0) * static_cast<index_t>(q) / parts;
          const index_t b = t0 + (t1 - t0) * static_cast<index_t>(q + 1) / parts;
          char* to = staged + (a - t0) * e;
          for_each_row(scatter, a, b, [&](index_t offset, index_t step, index_t len, index_t j) {
            if (step == 1) {
              std::memcpy(to + j * e, src + offset * e, static_cast<std::size_t>(len) * esize);
              return;
            }
            for (index_t k = 0; k < len; ++k)
              std::memcpy(to + (j + k) * e, src + (offset + k * step) * e, esize);
          });
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
  auto* src = static_cast<char*>(const_cast<void*>(block));
  const auto row = static_cast<std::size_t>(copies->width) * esize;
  const auto height = static_cast<std::size_t>(copies->height);
  const auto pitch = static_cast<std::size_t>(copies->pitch) * esize;
  const std::string what =
      fmt::format("(copy of {} x {} bytes to device {})", height, row, dst_device);
  for (index_t o = 0; o < copies->outer; ++o)
    copy_rows(
        {dst + pitched_copy_offset(scatter, o) * static_cast<index_t>(esize), pitch, dst_device},
        {src + static_cast<std::size_t>(o) * height * row, row, device_}, row, height, stream.get(),
        device_, what);
}

} // namespace chunked::cuda
