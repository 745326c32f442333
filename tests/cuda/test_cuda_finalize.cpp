// SPDX-License-Identifier: Apache-2.0
// A reduction's final combine writes straight into the caller's destination on the CUDA backend:
// item() and to_host() of a reduction launch no store kernel, and hold the same bits as the path
// through a stored block (persist(), then a copy kernel and a download).
#include "backend/cuda/compiler.hpp"
#include "backend/cuda/runtime_api.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "support/cuda_test.hpp"

namespace chunked {
namespace {

/// r computed straight into host memory (pageable, then pinned) against r persisted on the
/// device and then copied out by the store kernel path; compared bit for bit.
template <class T> void expect_same_as_through_a_stored_block(const ChunkedArray<T, Cuda>& r) {
  const auto n = static_cast<std::size_t>(r.size());
  const auto stored = std::make_unique<T[]>(n);
  const auto direct = std::make_unique<T[]>(n);
  r.persist().to_host(std::span<T>(stored.get(), n));
  r.to_host(std::span<T>(direct.get(), n));
  EXPECT_EQ(std::memcmp(stored.get(), direct.get(), n * sizeof(T)), 0);
  const auto pinned = cuda::make_transfer_buffer(n * sizeof(T));
  r.to_host(std::span<T>(static_cast<T*>(pinned->data()), n));
  EXPECT_EQ(std::memcmp(stored.get(), pinned->data(), n * sizeof(T)), 0);
}

TEST(CudaFinalize, ReductionsIntoHostMemoryHoldTheBitsOfAStoredBlock) {
  SKIP_WITHOUT_DEVICE();
  Generator rng(21);
  const auto x = rng.normal<double, Cuda>(Shape{70, 33, 9}, Chunks{25, 10, 4});
  const auto f = rng.normal<float, Cuda>(Shape{70, 33}, Chunks{25, 10});
  const auto k = rng.integers<std::int64_t, Cuda>(Shape{70, 33}, Chunks{25, 10}, -100, 100);
  for (const Axes& axes : {Axes{}, Axes{0}, Axes{1}, Axes{2}, Axes{0, 2}}) {
    SCOPED_TRACE(axes.values().size());
    expect_same_as_through_a_stored_block(x.sum(axes));
    expect_same_as_through_a_stored_block(x.mean(axes));
    expect_same_as_through_a_stored_block(x.var(axes));
    expect_same_as_through_a_stored_block(x.std(axes, 1));
    expect_same_as_through_a_stored_block(x.min(axes));
    expect_same_as_through_a_stored_block(x.max(axes));
    expect_same_as_through_a_stored_block((x > 1.0).any(axes));
  }
  for (const Axes& axes : {Axes{}, Axes{1}}) {
    expect_same_as_through_a_stored_block(f.sum(axes));
    expect_same_as_through_a_stored_block(f.var(axes));
    expect_same_as_through_a_stored_block(k.sum(axes));
    expect_same_as_through_a_stored_block(k.prod(axes));
  }
  expect_same_as_through_a_stored_block(x.argmax());
  expect_same_as_through_a_stored_block(x.argmin(1));
  // Shared moments: mean and std of one pass, each finalized into its own destination, against
  // the same pass copied out by store kernels (adding 0.0 keeps every bit of these values).
  const auto m = x.mean(Axes{0});
  const auto s = x.std(Axes{0});
  const auto [dm, ds] = compute(ComputeOptions{}, m, s);
  const auto [km, ks] = compute(ComputeOptions{}, m + 0.0, s + 0.0);
  ASSERT_EQ(dm.size(), km.size());
  EXPECT_EQ(std::memcmp(dm.data(), km.data(), static_cast<std::size_t>(dm.size()) * 8), 0);
  EXPECT_EQ(std::memcmp(ds.data(), ks.data(), static_cast<std::size_t>(ds.size()) * 8), 0);
  const double item = x.sum().item();
  const double stored = x.sum().persist().item();
  EXPECT_EQ(std::memcmp(&item, &stored, sizeof item), 0);
}

// item() of a one-block sum launches the two passes of the reduction and nothing else: the
// launch after them is made to fail, and no launch is.
TEST(CudaFinalize, ItemRunsNoStoreKernel) {
  SKIP_WITHOUT_DEVICE();
  Generator rng(22);
  for (const index_t chunk : {index_t{4096}, index_t{1024}}) {
    const auto x = rng.normal<double, Cuda>(Shape{4096}, Chunks{chunk});
    const auto s = (x * 2.0).sum();
    const double expected = s.item(); // compiles the kernels
    const long launches = 2 * (4096 / chunk);
    cuda::fail_launch_after(launches);
    double got = 0;
    try {
      got = s.item();
      cuda::fail_launch_after(-1);
    } catch (const BackendError& e) {
      cuda::fail_launch_after(-1);
      ADD_FAILURE() << "item() launched more than the reduction's kernels: " << e.what();
    }
    EXPECT_EQ(std::memcmp(&got, &expected, sizeof got), 0);
    // The copy through a stored block does launch a store kernel, so the injection works.
    const auto stored = s.persist();
    cuda::fail_launch_after(0);
    EXPECT_THROW((void)stored.item(), BackendError);
    cuda::fail_launch_after(-1);
  }
}

} // namespace
} // namespace chunked
