// SPDX-License-Identifier: Apache-2.0
// Blocks outside memory on the CUDA backend: lazy leaves of more blocks than the page-locked
// read-ahead holds at once (each still read once, in any order the host threads choose), loaded
// blocks persisted in device memory, written arrays on every visible device, and read and write
// failures, the last block's too, with the next computation running.
#include "support/cuda_test.hpp"
#include "support/fake_block_io.hpp"

#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunked {
namespace {

using test::FakeSink;
using test::FakeSource;

std::vector<double> iota_values(std::size_t n) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 0.0);
  return v;
}

TEST(CudaBlockIo, LoadsPastTheReadAheadBudgetAreEachReadOnce) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<index_t> shape{300, 4};
  const auto values = iota_values(1200);
  auto src = std::make_shared<FakeSource<double>>(shape, values);
  const auto x = test::lazy_array<double, Cuda>(src, shape, Chunks{1, 4}); // 300 loads
  const auto sums = (x * 2.0).sum(Axes{1}).compute();
  for (index_t r = 0; r < 300; ++r)
    EXPECT_EQ(sums.data()[r], 2.0 * (16.0 * static_cast<double>(r) + 6.0)) << r;
  EXPECT_EQ(src->total_reads(), 300);
  for (const auto& [block, count] : src->reads())
    EXPECT_EQ(count, 1);
  // A slice reads its blocks only.
  src->reset();
  EXPECT_EQ(x(slice(10, 12)).sum().item(),
            std::accumulate(values.begin() + 40, values.begin() + 48, 0.0));
  EXPECT_EQ(src->total_reads(), 2);
}

TEST(CudaBlockIo, PersistedLoadsStayOnTheDevice) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<index_t> shape{10, 3};
  auto src = std::make_shared<FakeSource<double>>(shape, iota_values(30));
  const auto kept = test::lazy_array<double, Cuda>(src, shape, Chunks{4, 3}).persist();
  const auto& blocks = kept.node()->as<graph::StoredParams>().data->blocks;
  ASSERT_EQ(blocks.size(), 3u);
  for (const auto& b : blocks)
    EXPECT_EQ(b->space().kind, MemorySpace::Kind::device);
  src->reset();
  EXPECT_EQ(kept.sum().item(), 435.0);
  EXPECT_EQ(src->total_reads(), 0);
}

TEST(CudaBlockIo, WritesOnEveryDeviceArriveOnce) {
  SKIP_WITHOUT_DEVICE();
  int devices = 0;
  CUDA_OK(cudaGetDeviceCount(&devices));
  ComputeOptions options;
  for (int d = 0; d < devices; ++d)
    options.devices.push_back(d);
  const std::vector<index_t> shape{200, 5};
  auto src = std::make_shared<FakeSource<double>>(shape, iota_values(1000));
  const auto x = test::lazy_array<double, Cuda>(src, shape, Chunks{3, 5});
  FakeSink<double> sink(shape);
  detail::write_blocks((x + 1.0).node(), sink, BackendKind::cuda, options);
  const auto want = iota_values(1000);
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(sink.values()[i], want[i] + 1.0) << i;
  EXPECT_EQ(sink.writes().size(), 67u);
  for (const auto& [block, count] : sink.writes())
    EXPECT_EQ(count, 1);
  EXPECT_LE(sink.max_live(), 8);
  EXPECT_EQ(src->total_reads(), 67);
}

TEST(CudaBlockIo, FailuresSurfaceAndTheNextComputationRuns) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<index_t> shape{40};
  auto src = std::make_shared<FakeSource<double>>(shape, iota_values(40));
  const auto x = test::lazy_array<double, Cuda>(src, shape, Chunks{3});
  src->fail_on({5}, [] { throw std::runtime_error("bad sector"); });
  try {
    x.sum().item();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad sector"), std::string::npos) << e.what();
  }
  src->fail_on({}, {});
  // The last block's write fails after every task has run: write_blocks still raises it.
  FakeSink<double> sink(shape);
  sink.fail_on({13}, [] { throw std::runtime_error("quota exceeded"); });
  try {
    detail::write_blocks(x.node(), sink, BackendKind::cuda, {});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("quota exceeded"), std::string::npos) << e.what();
  }
  EXPECT_EQ(x.sum().item(), 780.0);
}

} // namespace
} // namespace chunked
