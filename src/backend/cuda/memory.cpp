// SPDX-License-Identifier: Apache-2.0
// One device's memory for one computation (memory.hpp).
#include "backend/cuda/memory.hpp"
#include "backend/cuda/gpu_trace.hpp"
#include "runtime/spill.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace chunked::cuda {

void wait_for(cudaStream_t stream, const Event& event, int device) {
  CHUNKED_CUDA_TRY(cudaStreamWaitEvent(stream, event.get(), 0), device, "(stream wait)");
}

DeviceMemory::DeviceMemory(int device, std::size_t limit, MemoryResource* device_resource,
                           MemoryResource* pinned_resource)
    : device_(device), device_resource_(device_resource), pinned_resource_(pinned_resource),
      budget_(std::make_shared<MemoryBudget>()) {
  budget_->limit = limit;
  if (budget_->limit == 0) {
    DeviceGuard guard(device);
    std::size_t free = 0, total = 0;
    CHUNKED_CUDA_TRY(cudaMemGetInfo(&free, &total), device, "");
    // A resource's pool may hold much of the device in reserve for us, which counts as used: the
    // resource itself says when it has no more, and the budget only keeps its scale for the
    // stored-input cache.
    budget_->limit = (device_resource ? total : free) / 10 * 8;
  }
}

DeviceMemory::~DeviceMemory() {
  for (StagingSlot& staging : ring_) {
    if (pinned_resource_)
      staging.buffer.reset(); // back to the host code's resource
    else
      release_staging(std::move(staging.buffer));
  }
}

std::shared_ptr<Buffer> DeviceMemory::allocate(std::size_t bytes, const Stream& stream) {
  return std::make_shared<DeviceBuffer>(device_, bytes, budget_, &stream, device_resource_);
}

void DeviceMemory::settle(StagingSlot& slot) {
  if (!slot.copied)
    return; // never used
  slot.copied->synchronize();
  if (auto work = std::exchange(slot.after_copy, nullptr))
    work();
}

void DeviceMemory::settle_staging() {
  for (StagingSlot& slot : ring_)
    settle(slot);
}

DeviceMemory::StagingSlot& DeviceMemory::next_staging(const Stream& stream) {
  StagingSlot& slot = ring_[next_staging_];
  if (!slot.buffer) {
    slot.buffer = pinned_resource_ ? std::make_unique<PinnedBuffer>(
                                         staging_bytes, *pinned_resource_, device_, stream.get())
                                   : acquire_staging();
    slot.copied = std::make_unique<Event>(device_);
  } else {
    settle(slot);
  }
  // Advanced only once the slot is usable: after a refused allocation the ring stays consistent.
  next_staging_ = (next_staging_ + 1) % staging_ring;
  return slot;
}

std::shared_ptr<Buffer> DeviceMemory::upload(const Buffer& host, const Stream& stream) {
  if (const auto* region = dynamic_cast<const plan::BorrowedRegion*>(&host))
    return copy_region(*region, stream);
  auto dev = allocate(host.bytes(), stream);
  const GpuSpan span(stream, "copy host to device", "copy", host.bytes());
  // A persisted block that may spill sits in pinned memory while its task holds it: copied
  // straight from there, and waited for, since the block may leave that memory once the task ends.
  if (const auto* spillable = dynamic_cast<const runtime::SpillableBuffer*>(&host))
    if (const auto resident = spillable->resident();
        dynamic_cast<const PinnedBuffer*>(resident.get())) {
      CHUNKED_CUDA_TRY(cudaMemcpyAsync(dev->data(), resident->data(), host.bytes(),
                                       cudaMemcpyHostToDevice, stream.get()),
                       device_, fmt::format("(upload of {} bytes)", host.bytes()));
      Event copied(device_);
      copied.record(stream);
      copied.synchronize();
      return dev;
    }
  if (dynamic_cast<const PinnedBuffer*>(&host)) {
    CHUNKED_CUDA_TRY(cudaMemcpyAsync(dev->data(), host.data(), host.bytes(), cudaMemcpyHostToDevice,
                                     stream.get()),
                     device_, fmt::format("(upload of {} bytes)", host.bytes()));
    return dev;
  }
  const auto* src = static_cast<const char*>(host.data());
  for (std::size_t off = 0; off < host.bytes(); off += staging_bytes) {
    const std::size_t n = std::min(staging_bytes, host.bytes() - off);
    StagingSlot& slot = next_staging(stream);
    std::memcpy(slot.buffer->data(), src + off, n);
    CHUNKED_CUDA_TRY(cudaMemcpyAsync(static_cast<char*>(dev->data()) + off, slot.buffer->data(), n,
                                     cudaMemcpyHostToDevice, stream.get()),
                     device_, fmt::format("(upload of {} bytes)", n));
    slot.copied->record(stream);
  }
  return dev;
}

std::shared_ptr<Buffer> DeviceMemory::copy_from_peer(const Buffer& source, const Stream& stream) {
  if (const auto* region = dynamic_cast<const plan::BorrowedRegion*>(&source))
    return copy_region(*region, stream);
  auto dev = allocate(source.bytes(), stream);
  const GpuSpan span(stream, "copy from another device", "copy", source.bytes());
  CHUNKED_CUDA_TRY(
      cudaMemcpyPeerAsync(dev->data(), device_, source.data(), source.space().device,
                          source.bytes(), stream.get()),
      device_,
      fmt::format("(copy of {} bytes from device {})", source.bytes(), source.space().device));
  return dev;
}

void DeviceMemory::expect_read(const Buffer* stored) { ++reads_left_[stored]; }

const void* DeviceMemory::stored_input(const Buffer& stored, const Stream& stream) {
  const MemorySpace space = stored.space();
  if (space.kind == MemorySpace::Kind::device && space.device == device_)
    return stored.data();
  std::lock_guard lock(uploads_mutex_);
  const auto it = uploads_.try_emplace(&stored).first;
  Upload& cached = it->second;
  if (!cached.buffer) {
    cached.buffer = space.kind == MemorySpace::Kind::host ? upload(stored, stream)
                                                          : copy_from_peer(stored, stream);
    cached.done = std::make_unique<Event>(device_);
    cached.done->record(stream);
    cached.stream = stream.get();
  } else if (cached.stream != stream.get()) {
    wait_for(stream.get(), *cached.done, device_);
  }
  if (std::find(cached.readers.begin(), cached.readers.end(), &stream) == cached.readers.end())
    cached.readers.push_back(&stream);
  const void* data = cached.buffer->data();
  // Keeping every copy would hold the whole input on the device: a / a.sum() of an array larger
  // than the budget would then fail, not stream. A later reader of a dropped copy copies again.
  std::size_t& left = reads_left_[&stored];
  left = left > 0 ? left - 1 : 0;
  if (left == 0 || budget_->used.load() > budget_->limit / 2) {
    retired_.push_back(std::move(cached));
    uploads_.erase(it);
  }
  return data;
}

void DeviceMemory::free_retired_uploads() {
  std::lock_guard lock(uploads_mutex_);
  for (Upload& u : retired_) {
    const auto* buffer = dynamic_cast<const DeviceBuffer*>(u.buffer.get());
    for (const Stream* reader : u.readers)
      if (buffer && reader->get() != buffer->stream()) {
        Event read(device_);
        read.record(*reader);
        wait_for(buffer->stream(), read, device_);
      }
  }
  retired_.clear();
}

bool DeviceMemory::copy_to_pinned(const void* block, const Scatter& scatter, char* dst,
                                  std::size_t esize, const Stream& stream) {
  const auto copies = pitched_copies(scatter);
  if (!copies)
    return false;
  const auto* src = static_cast<const char*>(block);
  const std::size_t row_bytes = static_cast<std::size_t>(copies->width) * esize;
  const auto height = static_cast<std::size_t>(copies->height);
  for (index_t o = 0; o < copies->outer; ++o)
    CHUNKED_CUDA_TRY(
        cudaMemcpy2DAsync(dst + pitched_copy_offset(scatter, o) * static_cast<index_t>(esize),
                          static_cast<std::size_t>(copies->pitch) * esize,
                          src + static_cast<std::size_t>(o) * height * row_bytes, row_bytes,
                          row_bytes, height, cudaMemcpyDeviceToHost, stream.get()),
        device_, fmt::format("(copy of {} x {} bytes to pinned host memory)", height, row_bytes));
  return true;
}

void DeviceMemory::download(const void* block, index_t size, std::size_t esize,
                            const Scatter& scatter, char* dst, bool pinned_destination,
                            const Stream& stream) {
  const GpuSpan span(stream, "copy device to host", "copy",
                     static_cast<std::uint64_t>(size) * esize);
  if (pinned_destination && copy_to_pinned(block, scatter, dst, esize, stream))
    return;
  const auto piece = static_cast<index_t>(staging_bytes / esize);
  const auto* from = static_cast<const char*>(block);
  for (index_t t0 = 0; t0 < size; t0 += piece) {
    const index_t t1 = std::min(size, t0 + piece);
    StagingSlot& slot = next_staging(stream);
    CHUNKED_CUDA_TRY(
        cudaMemcpyAsync(slot.buffer->data(), from + t0 * static_cast<index_t>(esize),
                        static_cast<std::size_t>(t1 - t0) * esize, cudaMemcpyDeviceToHost,
                        stream.get()),
        device_,
        fmt::format("(copy of {} bytes to the host)", static_cast<std::size_t>(t1 - t0) * esize));
    slot.copied->record(stream);
    const auto* src = static_cast<const char*>(slot.buffer->data());
    slot.after_copy = [scatter, t0, t1, esize, dst, src] {
      for_each_row(scatter, t0, t1, [&](index_t offset, index_t step, index_t len, index_t j) {
        if (step == 1) {
          std::memcpy(dst + offset * static_cast<index_t>(esize),
                      src + j * static_cast<index_t>(esize), static_cast<std::size_t>(len) * esize);
        } else {
          for (index_t k = 0; k < len; ++k)
            std::memcpy(dst + (offset + k * step) * static_cast<index_t>(esize),
                        src + (j + k) * static_cast<index_t>(esize), esize);
        }
      });
    };
  }
}

} // namespace chunked::cuda
