// SPDX-License-Identifier: Apache-2.0
// Persisted blocks beyond ComputeOptions::host_memory_limit go to files under spill_directory and
// come back, bitwise unchanged, when computations read them; the files go with their arrays.
#include "support/errors.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace chunked;
using A = ChunkedArray<double, Cpu>;
namespace fs = std::filesystem;

constexpr std::size_t block_bytes = 16 * 16 * sizeof(double); // of the arrays below

/// A fresh directory per test, removed afterwards.
class Spill : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / (std::string("chunked-spill-test-") + info->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  ComputeOptions limited(std::size_t blocks) const {
    ComputeOptions o;
    o.host_memory_limit = blocks * block_bytes;
    o.spill_directory = dir_.string();
    return o;
  }

  std::size_t files() const {
    std::size_t n = 0;
    if (fs::exists(dir_))
      for (const auto& e : fs::directory_iterator(dir_))
        n += e.path().filename().string().rfind("chunked-spill-", 0) == 0 ? 1 : 0;
    return n;
  }

  fs::path dir_;
};

bool bitwise_equal(const NDArray<double>& a, const NDArray<double>& b) {
  return a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0;
}

A sample(std::uint64_t seed) {
  Generator g(seed);
  return g.normal<double, Cpu>(Shape{64, 64}, Chunks{16, 16}); // 16 blocks
}

/// A small computation that must still work after a failed one.
double small_sum() { return arange<double, Cpu>(0.0, 10.0, 1.0, 3).sum().item(); }

using chunked::test::expect_error;

TEST_F(Spill, BlocksBeyondTheLimitAreFilesAndReadBackExactly) {
  const A x = sample(1);
  {
    const A p = x.persist(limited(4));
    EXPECT_EQ(files(), 12u);
    EXPECT_TRUE(bitwise_equal(p.compute(), x.compute()));
    EXPECT_TRUE(bitwise_equal((p * 2.0 + 1.0).compute(), (x * 2.0 + 1.0).compute()));
    EXPECT_EQ(p.sum().item(), x.sum().item());
    EXPECT_TRUE(bitwise_equal(p.sum(Axes{0}).compute(), x.sum(Axes{0}).compute()));
    const auto view = [](const A& a) { return a(slice(3, 50, 2), slice(none, none, -1)); };
    EXPECT_TRUE(bitwise_equal(view(p).compute(), view(x).compute()));
    const auto standardized = [](const A& a) { return (a - a.mean()) / a.std(); };
    EXPECT_TRUE(bitwise_equal(standardized(p).compute(), standardized(x).compute()));
    // Read back and spilled again: as many files as before, never more.
    EXPECT_EQ(files(), 12u);
  }
  EXPECT_EQ(files(), 0u);
}

TEST_F(Spill, ManyThreadsMovingBlocksToAndFromFilesAtOnceReadTheirOwnBytes) {
  // Files are read and written outside the manager's lock: with room for three blocks, eight
  // workers and two computations at once keep blocks moving while others are read.
  const A x = sample(7);
  const NDArray<double> want = (x * 2.0 + 1.0).compute();
  const double total = x.sum().item();
  {
    const A p = x.persist(limited(3));
    ComputeOptions eight = limited(3);
    eight.num_threads = 8;
    for (int round = 0; round < 4; ++round) {
      EXPECT_TRUE(bitwise_equal((p * 2.0 + 1.0).compute(eight), want));
      EXPECT_EQ(p.sum().item(eight), total);
    }
    NDArray<double> first, second;
    std::thread other([&] { first = (p * 2.0 + 1.0).compute(eight); });
    second = p.compute(eight);
    other.join();
    EXPECT_TRUE(bitwise_equal(first, want));
    EXPECT_TRUE(bitwise_equal(second, x.compute()));
    EXPECT_EQ(files(), 13u);
  }
  EXPECT_EQ(files(), 0u);
}

TEST_F(Spill, SeveralPersistedArraysShareTheLimit) {
  const A x = sample(2);
  const A y = sample(3) * 3.0;
  {
    const A p = x.persist(limited(6));
    const A q = y.persist(limited(6));
    EXPECT_EQ(files(), 26u);
    EXPECT_TRUE(bitwise_equal((p + q).compute(), (x + y).compute()));
    EXPECT_TRUE(bitwise_equal((p * q).sum(Axes{1}).compute(), (x * y).sum(Axes{1}).compute()));
    // A persisted array persisted again, single-threaded, from spilled blocks.
    ComputeOptions single = limited(6);
    single.scheduler = Scheduler::single_threaded;
    const A r = (p - q).persist(single);
    EXPECT_TRUE(bitwise_equal(r.compute(), (x - y).compute()));
    EXPECT_EQ(files(), 42u);
  }
  EXPECT_EQ(files(), 0u);
}

TEST_F(Spill, ATaskReadingMoreThanTheLimitIsOutOfMemoryAndTheRuntimeStaysUsable) {
  const A x = sample(4);
  const A p = x.rechunk(Chunks{64, 64}).persist(limited(2)); // one block of 8 block_bytes
  EXPECT_EQ(files(), 1u);
  expect_error<OutOfMemory>(
      [&] { (void)p.sum().item(); },
      {std::to_string(16 * block_bytes), std::to_string(2 * block_bytes), "host_memory_limit"});
  EXPECT_EQ(small_sum(), 45.0);
  ComputeOptions roomy = limited(32);
  const A q = x.persist(roomy); // raises the limit: the block of p fits now
  EXPECT_EQ(p.sum().item(), x.rechunk(Chunks{64, 64}).sum().item());
  EXPECT_TRUE(bitwise_equal(q.compute(), x.compute()));
}

TEST_F(Spill, AnUnwritableSpillDirectoryIsAnErrorNamingIt) {
  fs::create_directories(dir_);
  const fs::path file = dir_ / "a-file";
  std::ofstream(file) << "x";
  ComputeOptions o = limited(4);
  o.spill_directory = (file / "spill").string();
  expect_error<Error>([&] { (void)sample(5).persist(o); }, {o.spill_directory});
  o.spill_directory = file.string();
  expect_error<ValueError>([&] { (void)sample(5).persist(o); }, {file.string(), "not a directory"});
  EXPECT_EQ(small_sum(), 45.0);
}

TEST_F(Spill, ASpillDirectoryRemovedBeforeSpillingIsCreatedAgain) {
  const A x = sample(6);
  const A p = x.persist(limited(64)); // nothing spills yet
  EXPECT_EQ(files(), 0u);
  fs::remove_all(dir_);
  const A q = x.persist(limited(8)); // now p's and q's blocks compete for 8 blocks of memory
  EXPECT_EQ(files(), 24u);
  EXPECT_TRUE(bitwise_equal((p - q).compute(), (x - x).compute()));
}

TEST_F(Spill, RaggedTinyAndEmptyArraysPersistInRangesAsInOne) {
  Generator g(8);
  const A x = g.normal<double, Cpu>(Shape{50, 7, 3}, Chunks{6, 4, 2});
  const A standardized = (x - x.mean()) / x.std();
  ComputeOptions o;
  o.host_memory_limit = 1000; // persisted one row of blocks at a time, each read again from x
  o.spill_directory = dir_.string();
  {
    const A p = standardized.persist(o);
    EXPECT_GT(files(), 0u);
    EXPECT_TRUE(bitwise_equal(p.compute(), standardized.compute()));
    const A ones = arange<double, Cpu>(0.0, 40.0, 1.0, 1).persist(o); // chunk 1
    EXPECT_EQ(ones.sum().item(), 780.0);
    EXPECT_EQ(ones(slice(none, none, -3)).sum().item(), 273.0);
    const A empty = x(slice(3, 3)).persist(o);
    EXPECT_EQ(empty.compute().size(), 0);
  }
  EXPECT_EQ(files(), 0u);
}

TEST_F(Spill, NoLimitKeepsEveryBlockInMemory) {
  ComputeOptions o;
  o.spill_directory = dir_.string();
  const A p = sample(7).persist(o);
  EXPECT_EQ(files(), 0u);
  EXPECT_TRUE(bitwise_equal(p.compute(), sample(7).compute()));
}

} // namespace
