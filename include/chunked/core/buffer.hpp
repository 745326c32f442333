// SPDX-License-Identifier: Apache-2.0
// Buffer: an owned, typed-agnostic block of memory on the host or on a device.
#pragma once

#include <cstddef>
#include <memory>

namespace chunked {

/// Where a buffer's bytes live. Device buffers are made by the CUDA backend.
struct MemorySpace {
  enum class Kind : unsigned char { host, device };
  Kind kind = Kind::host;
  int device = -1;
  friend bool operator==(const MemorySpace&, const MemorySpace&) = default;
};

/// Memory for one block. Subclasses own the storage; the base class only describes it.
class Buffer {
public:
  virtual ~Buffer() = default;
  void* data() { return data_; }
  const void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  MemorySpace space() const { return space_; }

protected:
  Buffer(void* data, std::size_t bytes, MemorySpace space)
      : data_(data), bytes_(bytes), space_(space) {}
  /// Points the buffer at new memory of the same size and space (a spilled block brought back);
  /// only while no reader holds the old pointer.
  void rebind(void* data) { data_ = data; }

private:
  void* data_;
  std::size_t bytes_;
  MemorySpace space_;
};

/// 64-byte aligned host memory (cache lines, SIMD loads).
class HostBuffer final : public Buffer {
public:
  explicit HostBuffer(std::size_t bytes);
  ~HostBuffer() override;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
};

/// Allocates host memory, throwing chunked::OutOfMemory naming the size when it fails.
std::shared_ptr<Buffer> make_host_buffer(std::size_t bytes);

namespace detail {
/// Size from which allocate_host places blocks on huge pages and keeps them for reuse.
inline constexpr std::size_t large_host_block = std::size_t{4} << 20;
/// The host memory behind HostBuffer and NDArray: 64-byte aligned; from 4 MiB on, 2 MiB aligned
/// and offered to the kernel for transparent huge pages, so that first touches fault 512 times
/// less often, and freed blocks of that size are kept (up to 1/16 of physical memory, 4 GiB at
/// most) for the next allocation of the same size. OutOfMemory naming the size when it fails.
void* allocate_host(std::size_t bytes);
/// Releases memory of allocate_host(bytes), with the same `bytes`.
void free_host(void* p, std::size_t bytes) noexcept;
} // namespace detail

} // namespace chunked
