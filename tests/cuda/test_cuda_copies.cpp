// SPDX-License-Identifier: Apache-2.0
// Copies that are one run of memory on both sides move by the driver's device-to-device copy:
// persist() of stored blocks and row slices of them launch no kernel and keep every bit; a copy
// with strides still runs a kernel.
#include "backend/cuda/compiler.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <cstring>

#include "support/cuda_test.hpp"

namespace chunked {
namespace {

/// `make()` with every kernel launch made to fail: whether it still ran.
template <class F> bool runs_without_a_kernel(F&& make) {
  cuda::fail_launch_after(0);
  try {
    make();
  } catch (const BackendError&) {
    cuda::fail_launch_after(-1);
    return false;
  }
  cuda::fail_launch_after(-1);
  return true;
}

void expect_bitwise(const NDArray<double>& a, const NDArray<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)),
            0);
}

TEST(CudaCopies, RunsOfMemoryMoveWithoutAKernel) {
  SKIP_WITHOUT_DEVICE();
  Generator rng(31);
  // Blocks of whole rows (each one run), with a ragged last block.
  const auto x = rng.normal<double, Cuda>(Shape{600, 300}, Chunks{128, 300}).persist();
  const NDArray<double> values = x.compute();

  ChunkedArray<double, Cuda> copy, rows;
  EXPECT_TRUE(runs_without_a_kernel([&] { copy = x.persist(); }));
  EXPECT_TRUE(
      runs_without_a_kernel([&] { rows = x(slice(1, none), slice(none, none)).persist(); }));
  expect_bitwise(copy.compute(), values);
  const NDArray<double> r = rows.compute();
  ASSERT_EQ(r.size(), 599 * 300);
  EXPECT_EQ(std::memcmp(r.data(), values.data() + 300, static_cast<std::size_t>(r.size()) * 8), 0);

  // Every second column is no run: the copy kernel runs it (and the failed launch is raised).
  EXPECT_FALSE(
      runs_without_a_kernel([&] { (void)x(slice(none, none), slice(none, none, 2)).persist(); }));
  const NDArray<double> cols = x(slice(none, none), slice(none, none, 2)).persist().compute();
  for (index_t i = 0; i < 600; ++i)
    for (index_t j = 0; j < 150; ++j)
      ASSERT_EQ(cols.data()[i * 150 + j], values.data()[i * 300 + 2 * j]) << i << ", " << j;
}

} // namespace
} // namespace chunked
