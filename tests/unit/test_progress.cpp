// SPDX-License-Identifier: Apache-2.0
// Tests of progress reporting: formatting, the bar, throttling and serialization of callbacks.
#include "runtime/progress_bar.hpp"
#include "runtime/scheduler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
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

TEST(ProgressFormat, Bytes) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(999), "999 B");
  EXPECT_EQ(format_bytes(1000), "1.00 kB");
  EXPECT_EQ(format_bytes(1234), "1.23 kB");
  EXPECT_EQ(format_bytes(12345678), "12.3 MB");
  EXPECT_EQ(format_bytes(123.4e9), "123 GB");
  EXPECT_EQ(format_bytes(999.9e9), "1.00 TB");
  EXPECT_EQ(format_bytes(2e18), "2.00 EB");
  EXPECT_EQ(format_bytes(-1), "? B");
}

TEST(ProgressFormat, Duration) {
  EXPECT_EQ(format_duration(0), "0.0s");
  EXPECT_EQ(format_duration(12.34), "12.3s");
  EXPECT_EQ(format_duration(59.9), "59.9s");
  EXPECT_EQ(format_duration(59.97), "1m00s");
  EXPECT_EQ(format_duration(245), "4m05s");
  EXPECT_EQ(format_duration(7620), "2h07m");
  EXPECT_EQ(format_duration(-1), "?");
}

TEST(ProgressFormat, LineWithBar) {
  Progress p;
  p.blocks_done = 350;
  p.blocks_total = 1000;
  p.bytes_done = 12'100'000'000;
  p.elapsed_seconds = 10;
  const std::string text = "  35%  350/1000 blocks  1.21 GB/s  elapsed 10.0s  ETA 18.6s";
  const std::string line = format_progress_line(p, 90);
  ASSERT_EQ(line.size(), 90u);
  const int bar = 90 - static_cast<int>(text.size()) - 2;
  const int filled = static_cast<int>(0.35 * bar);
  EXPECT_EQ(line, "[" + std::string(filled, '#') + std::string(bar - filled, '.') + "]" + text);
}

TEST(ProgressFormat, StartAndEnd) {
  Progress p;
  p.blocks_total = 4;
  std::string line = format_progress_line(p, 80);
  EXPECT_NE(line.find("[....."), std::string::npos) << line;
  EXPECT_NE(line.find("  0%  0/4 blocks  0 B/s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA ?"), std::string::npos) << line;

  p.blocks_done = 4;
  p.bytes_done = 4000;
  p.elapsed_seconds = 2;
  line = format_progress_line(p, 80);
  EXPECT_NE(line.find("#####]"), std::string::npos) << line;
  EXPECT_EQ(line.substr(0, line.find(']')).find('.'), std::string::npos) << line; // full bar
  EXPECT_NE(line.find("100%  4/4 blocks  2.00 kB/s  elapsed 2.0s  ETA 0.0s"), std::string::npos)
      << line;

  // 99.9 % is not 100 %.
  p.blocks_done = 999;
  p.blocks_total = 1000;
  EXPECT_NE(format_progress_line(p, 80).find(" 99%"), std::string::npos);
}

TEST(ProgressFormat, AlwaysExactlyWidthAndNarrowDropsBar) {
  Progress p{7, 9, 123456, 3.5};
  for (int width = 1; width < 200; ++width)
    ASSERT_EQ(format_progress_line(p, width).size(), static_cast<std::size_t>(width));
  EXPECT_EQ(format_progress_line(p, 0), "");
  const std::string narrow = format_progress_line(p, 40);
  EXPECT_EQ(narrow.find('['), std::string::npos);
  EXPECT_EQ(narrow.substr(0, 20), " 77%  7/9 blocks  35");
}

TEST(ProgressBar, RedrawsWithCarriageReturnAndEndsWithNewline) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressBar bar(file, 60);
    bar.draw(Progress{1, 4, 10, 1.0});
    bar.draw(Progress{2, 4, 20, 2.0});
    bar.finish(Progress{4, 4, 40, 3.0});
  }
  std::rewind(file);
  std::string out;
  for (int c; (c = std::fgetc(file)) != EOF;)
    out.push_back(static_cast<char>(c));
  std::fclose(file);
  ASSERT_EQ(out.size(), 3 * 61u + 1);
  EXPECT_EQ(out[0], '\r');
  EXPECT_EQ(out[61], '\r');
  EXPECT_EQ(out[122], '\r');
  EXPECT_EQ(out.back(), '\n');
  EXPECT_NE(out.find("100%  4/4 blocks"), std::string::npos);
}

TEST(ProgressBar, AbandonEndsLineOnlyIfDrawn) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  ProgressBar bar(file, 30);
  bar.abandon();
  EXPECT_EQ(std::ftell(file), 0);
  bar.draw(Progress{1, 4, 10, 1.0});
  bar.abandon();
  EXPECT_EQ(std::ftell(file), 32);
  std::fclose(file);
}

/// Sets $COLUMNS (or unsets it for nullptr) for one scope; ctest runs each case in its own
/// process, so no other test sees it.
class ColumnsScope {
public:
  explicit ColumnsScope(const char* value) {
    if (const char* old = std::getenv("COLUMNS"))
      old_ = old;
    if (value)
      ::setenv("COLUMNS", value, 1);
    else
      ::unsetenv("COLUMNS");
  }
  ~ColumnsScope() {
    if (old_)
      ::setenv("COLUMNS", old_->c_str(), 1);
    else
      ::unsetenv("COLUMNS");
  }
  ColumnsScope(const ColumnsScope&) = delete;
  ColumnsScope& operator=(const ColumnsScope&) = delete;

private:
  std::optional<std::string> old_;
};

// A file is not a terminal, so without a usable $COLUMNS the width is 80 - 1.
TEST(ProgressBar, WidthFromColumnsIsParsedAndBounded) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  const std::pair<const char*, int> cases[] = {{"120", 119},
                                               {"1", 1},
                                               {"2147483647", max_terminal_width - 1}, // clamped
                                               // Not a plain positive decimal number: ignored.
                                               {"99999999999999999999", 79},
                                               {"abc", 79},
                                               {"80x", 79},
                                               {"-5", 79},
                                               {"0", 79},
                                               {"", 79},
                                               {" 90", 79},
                                               {nullptr, 79}};
  for (const auto& [value, width] : cases) {
    SCOPED_TRACE(value ? std::string("COLUMNS=") + value : std::string("COLUMNS unset"));
    const ColumnsScope columns(value);
    ProgressBar bar(file);
    EXPECT_EQ(bar.width(), width);
  }
  {
    // Every redraw writes one bounded line.
    const ColumnsScope columns("2147483647");
    const long before = std::ftell(file);
    ProgressBar bar(file);
    bar.draw(Progress{1, 4, 10, 1.0});
    EXPECT_EQ(std::ftell(file) - before, max_terminal_width);
  }
  EXPECT_EQ(ProgressBar(file, 5000).width(), max_terminal_width);
  EXPECT_EQ(ProgressBar(file, 7).width(), 7);
  std::fclose(file);
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
