// SPDX-License-Identifier: Apache-2.0
// Tests of progress reporting: block counts, throttling and serialization of callbacks.
#include "runtime/scheduler.hpp"
#include <chunked/runtime/progress.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace chunked::runtime {
namespace {

TEST(Progress, Fraction) {
  Progress p;
  EXPECT_EQ(p.fraction(), 1.0);
  p.blocks_total = 8;
  EXPECT_EQ(p.fraction(), 0.0);
  p.blocks_done = 2;
  EXPECT_EQ(p.fraction(), 0.25);
}

// The reporter calls its own copy of on_progress: the callback may clear or replace the caller's
// function while it runs.
TEST(ProgressReporter, CallbackMayClearOrReplaceTheCallersOptions) {
  int calls = 0;
  ComputeOptions options;
  options.on_progress = [&](const Progress&) {
    ++calls;
    options.on_progress = nullptr;
  };
  ProgressReporter reporter(options, 3, std::chrono::nanoseconds(0));
  for (int i = 0; i < 3; ++i) {
    reporter.add(1, 0);
    reporter.maybe_report();
  }
  reporter.finish();
  EXPECT_EQ(calls, 4);
  EXPECT_FALSE(options.on_progress);

  // A replacement takes effect from the next computation on.
  int first = 0, second = 0;
  options.on_progress = [&](const Progress&) {
    ++first;
    options.on_progress = [&](const Progress&) { ++second; };
  };
  for (int run = 0; run < 2; ++run) {
    ProgressReporter reporter(options, 2, std::chrono::nanoseconds(0));
    for (int i = 0; i < 2; ++i) {
      reporter.add(1, 0);
      reporter.maybe_report();
    }
    reporter.finish();
  }
  EXPECT_EQ(first, 3);
  EXPECT_EQ(second, 3);
}

// Calls on_progress from many threads with no throttle: calls never overlap and counts never
// go backwards.
TEST(ProgressReporter, SerializedAndMonotone) {
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::vector<Progress> seen;
  ComputeOptions options;
  options.on_progress = [&](const Progress& p) {
    if (inside.fetch_add(1) != 0)
      ++overlaps;
    seen.push_back(p); // unsynchronized on purpose: TSan flags it if calls overlap
    std::this_thread::yield();
    inside.fetch_sub(1);
  };
  constexpr int threads = 8;
  constexpr int per_thread = 2000;
  ProgressReporter reporter(options, threads * per_thread, std::chrono::nanoseconds(0));
  ASSERT_TRUE(reporter.enabled());
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([&] {
      for (int k = 0; k < per_thread; ++k) {
        reporter.add(1, 3);
        reporter.maybe_report();
      }
    });
  for (std::thread& t : pool)
    t.join();
  reporter.finish();
  EXPECT_EQ(overlaps.load(), 0);
  ASSERT_GE(seen.size(), 2u);
  for (std::size_t i = 1; i < seen.size(); ++i) {
    EXPECT_GE(seen[i].blocks_done, seen[i - 1].blocks_done);
    EXPECT_GE(seen[i].bytes_done, seen[i - 1].bytes_done);
    EXPECT_GE(seen[i].elapsed_seconds, seen[i - 1].elapsed_seconds);
  }
  EXPECT_EQ(seen.back().blocks_done, threads * per_thread);
  EXPECT_EQ(seen.back().blocks_total, threads * per_thread);
  EXPECT_EQ(seen.back().bytes_done, 3u * threads * per_thread);
}

TEST(ProgressReporter, Throttles) {
  int calls = 0;
  ComputeOptions options;
  options.on_progress = [&](const Progress&) { ++calls; };
  ProgressReporter reporter(options, 100, std::chrono::hours(1));
  for (int i = 0; i < 100; ++i) {
    reporter.add(1, 0);
    reporter.maybe_report();
  }
  EXPECT_EQ(calls, 0);
  reporter.finish();
  EXPECT_EQ(calls, 1);
}

TEST(ProgressReporter, FailedRunSkipsFinalCallback) {
  int calls = 0;
  ComputeOptions options;
  options.on_progress = [&](const Progress&) { ++calls; };
  ProgressReporter reporter(options, 1);
  reporter.finish(true);
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(ProgressReporter(ComputeOptions{}, 1).enabled());
}

class SleepyExecutor : public TaskExecutor {
public:
  std::uint64_t run(TaskId, int) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    return 1000;
  }
  void release(TaskId) override {}
};

// Through run_graph: reports come about every 100 ms, monotone, never overlapping, and the last
// one has the totals (non-block tasks excluded from the block counts, included in bytes).
TEST(ProgressReporter, ThroughRunGraph) {
  TaskGraph g;
  std::vector<TaskId> blocks;
  for (int i = 0; i < 120; ++i)
    blocks.push_back(g.add({}));
  g.add(blocks, -1, false);
  for (Scheduler mode : {Scheduler::threads, Scheduler::single_threaded}) {
    std::mutex mutex;
    std::vector<Progress> seen;
    std::atomic<int> inside{0};
    ComputeOptions options;
    options.scheduler = mode;
    options.on_progress = [&](const Progress& p) {
      EXPECT_EQ(inside.fetch_add(1), 0);
      std::lock_guard lock(mutex);
      seen.push_back(p);
      inside.fetch_sub(1);
    };
    SleepyExecutor ex;
    const auto start = std::chrono::steady_clock::now();
    run_graph(g, ex, 2, options);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_GE(seen.size(), 2u);
    // At most one report per 100 ms plus the final one (with slack for timer granularity).
    EXPECT_LE(static_cast<double>(seen.size()), elapsed / 0.1 + 2);
    for (std::size_t i = 1; i < seen.size(); ++i)
      EXPECT_GE(seen[i].blocks_done, seen[i - 1].blocks_done);
    EXPECT_EQ(seen.back().blocks_done, 120);
    EXPECT_EQ(seen.back().blocks_total, 120);
    EXPECT_EQ(seen.back().bytes_done, 121'000u);
    EXPECT_EQ(seen.back().fraction(), 1.0);
  }
}

TEST(ProgressReporter, CallbackErrorPropagates) {
  TaskGraph g;
  for (int i = 0; i < 100; ++i)
    g.add({});
  for (Scheduler mode : {Scheduler::threads, Scheduler::single_threaded}) {
    ComputeOptions options;
    options.scheduler = mode;
    options.on_progress = [](const Progress&) { throw std::runtime_error("stop here"); };
    SleepyExecutor ex;
    try {
      run_graph(g, ex, 2, options);
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "stop here");
    }
  }
}

} // namespace
} // namespace chunked::runtime
