// SPDX-License-Identifier: Apache-2.0
// The host allocator behind blocks and NDArray: alignment, reuse of large blocks, fresh NDArrays
// zeroed whatever memory they reuse.
#include <chunked/chunked.hpp>
#include <chunked/core/buffer.hpp>
#include <chunked/core/ndarray.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace chunked {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

TEST(HostMemory, SmallBlocksAreCacheLineAlignedAndLargeOnesHugePageAligned) {
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{100}, 3 * MiB}) {
    void* p = detail::allocate_host(bytes);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u) << bytes;
    detail::free_host(p, bytes);
  }
  void* big = detail::allocate_host(22 * MiB + 3);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big) % (2 * MiB), 0u);
  std::memset(big, 0x5a, 22 * MiB + 3); // the whole requested size is usable
  detail::free_host(big, 22 * MiB + 3);
}

// Each test uses sizes no other one does, so that blocks the cache kept earlier do not answer.
TEST(HostMemory, FreedLargeBlocksServeTheNextAllocationOfTheirSize) {
  void* a = detail::allocate_host(26 * MiB);
  detail::free_host(a, 26 * MiB);
  void* other = detail::allocate_host(30 * MiB); // another size does not take it
  EXPECT_NE(other, a);
  void* b = detail::allocate_host(26 * MiB - 100); // the same rounded size does
  EXPECT_EQ(b, a);
  detail::free_host(b, 26 * MiB - 100);
  detail::free_host(other, 30 * MiB);
}

TEST(HostMemory, NDArraysStartAtZeroOnReusedMemory) {
  const std::size_t bytes = 34 * MiB;
  void* dirty = detail::allocate_host(bytes);
  std::memset(dirty, 0xff, bytes);
  detail::free_host(dirty, bytes);
  NDArray<double> a(Shape{static_cast<index_t>(bytes / sizeof(double))});
  EXPECT_EQ(static_cast<const void*>(a.data()), dirty); // it did reuse the block
  for (index_t j = 0; j < a.size(); j += 4097)
    ASSERT_EQ(a.data()[j], 0.0) << j;
  NDArray<double> moved = std::move(a); // the deleter, with the size, moves along
  EXPECT_EQ(moved.size(), static_cast<index_t>(bytes / sizeof(double)));
}

// compute() fills arrays it did not zero first: every element comes from the computation, even
// on reused memory full of other bits.
TEST(HostMemory, ComputeWritesEveryElementOfAnUninitializedResult) {
  const index_t rows = 1500, cols = 3000; // 34 MiB: a reused large block
  const std::size_t bytes = static_cast<std::size_t>(rows * cols) * sizeof(double);
  void* dirty = detail::allocate_host(bytes);
  std::memset(dirty, 0xff, bytes);
  detail::free_host(dirty, bytes);
  const void* again = nullptr;
  {
    auto raw = NDArray<double>::uninitialized(Shape{rows, cols});
    EXPECT_EQ(raw.shape(), (Shape{rows, cols}));
    EXPECT_EQ(static_cast<const void*>(raw.data()), dirty);
    std::memset(raw.data(), 0xff, bytes);
    again = raw.data();
  } // back to the cache, dirty
  const auto x = (arange<double>(0, rows * cols, 1, 1 << 20) * 0.5).compute();
  EXPECT_EQ(static_cast<const void*>(x.data()), again);
  for (index_t j = 0; j < x.size(); ++j)
    ASSERT_EQ(x.data()[j], 0.5 * static_cast<double>(j)) << j;
}

} // namespace
} // namespace chunked
