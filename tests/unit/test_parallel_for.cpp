// SPDX-License-Identifier: Apache-2.0
// Tests of runtime::parallel_for: every job exactly once, on the threads asked for, and errors.
#include "runtime/parallel_for.hpp"
#include <chunked/core/error.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace chunked::runtime {
namespace {

TEST(ParallelFor, RunsEveryJobExactlyOnce) {
  for (const std::size_t count : {0u, 1u, 7u, 1000u})
    for (const std::size_t threads : {0u, 1u, 3u, 64u}) {
      std::vector<std::atomic<int>> runs(count);
      parallel_for(count, threads, [&](std::size_t i) { runs[i].fetch_add(1); });
      for (std::size_t i = 0; i < count; ++i)
        ASSERT_EQ(runs[i].load(), 1)
            << "job " << i << " of " << count << ", " << threads << " threads";
    }
}

TEST(ParallelFor, UsesTheCallingThreadAndNoMoreThreadsThanAsked) {
  std::mutex mutex;
  std::set<std::thread::id> seen;
  std::atomic<int> inside{0}, most{0};
  parallel_for(200, 3, [&](std::size_t) {
    const int now = inside.fetch_add(1) + 1;
    for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    {
      std::lock_guard lock(mutex);
      seen.insert(std::this_thread::get_id());
    }
    inside.fetch_sub(1);
  });
  EXPECT_LE(seen.size(), 3u);
  EXPECT_LE(most.load(), 3);
  // One thread: the jobs run in order on the caller.
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::size_t> order;
  parallel_for(5, 1, [&](std::size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

TEST(ParallelFor, FinishesEveryJobThenRethrowsTheFirstError) {
  for (const std::size_t threads : {1u, 4u}) {
    std::atomic<int> ran{0};
    try {
      parallel_for(100, threads, [&](std::size_t i) {
        ran.fetch_add(1);
        if (i == 10 || i == 60)
          throw OutOfMemory("job " + std::to_string(i));
      });
      FAIL() << "no exception";
    } catch (const OutOfMemory& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.find("job 10") != std::string::npos ||
                  what.find("job 60") != std::string::npos)
          << what;
      if (threads == 1) {
        EXPECT_NE(what.find("job 10"), std::string::npos) << what;
      }
    }
    EXPECT_EQ(ran.load(), 100);
  }
}

} // namespace
} // namespace chunked::runtime
