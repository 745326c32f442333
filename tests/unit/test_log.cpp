// SPDX-License-Identifier: Apache-2.0
// The log: levels, the handler and its default, and the messages of spilling and of Auto's
// choice of backend.
#include "runtime/log_message.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace chunked;

/// Captures the messages delivered while it lives, at `level`; restores the handler and level.
class Captured {
public:
  explicit Captured(LogLevel level) : level_(log_level()) {
    set_log_level(level);
    previous_ = set_log_handler([this](LogLevel l, std::string_view m) {
      std::lock_guard lock(mutex_);
      messages_.emplace_back(l, std::string(m));
    });
  }
  ~Captured() {
    set_log_handler(std::move(previous_));
    set_log_level(level_);
  }
  Captured(const Captured&) = delete;
  Captured& operator=(const Captured&) = delete;

  /// How many messages of `level` hold `text`.
  int count(LogLevel level, const std::string& text) {
    std::lock_guard lock(mutex_);
    int n = 0;
    for (const auto& [l, m] : messages_)
      n += l == level && m.find(text) != std::string::npos ? 1 : 0;
    return n;
  }
  std::size_t size() {
    std::lock_guard lock(mutex_);
    return messages_.size();
  }

private:
  LogLevel level_;
  LogHandler previous_;
  std::mutex mutex_;
  std::vector<std::pair<LogLevel, std::string>> messages_;
};

TEST(Log, LevelsNameThemselvesAndFilterMessages) {
  EXPECT_EQ(to_string(LogLevel::debug), "debug");
  EXPECT_EQ(to_string(LogLevel::info), "info");
  EXPECT_EQ(to_string(LogLevel::warn), "warn");
  Captured log(LogLevel::info);
  runtime::log(LogLevel::debug, "below the level");
  runtime::log(LogLevel::info, "at the level");
  runtime::log(LogLevel::warn, "above the level");
  EXPECT_EQ(log.count(LogLevel::debug, "below"), 0);
  EXPECT_EQ(log.count(LogLevel::info, "at the level"), 1);
  EXPECT_EQ(log.count(LogLevel::warn, "above the level"), 1);
  EXPECT_FALSE(runtime::logging(LogLevel::debug));
  EXPECT_TRUE(runtime::logging(LogLevel::warn));
}

TEST(Log, SpillingSaysWhatMovesWhere) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "chunked-log-test";
  std::filesystem::remove_all(dir);
  Captured log(LogLevel::debug);
  {
    Generator g(5);
    const auto x = g.normal<double, Cpu>(Shape{64, 64}, Chunks{16, 16});
    ComputeOptions o;
    o.host_memory_limit = 4 * 16 * 16 * sizeof(double);
    o.spill_directory = dir.string();
    const auto p = x.persist(o);
    EXPECT_EQ(p.sum().item(), x.sum().item());
  }
  EXPECT_GE(log.count(LogLevel::debug, "spilled a block of 2048 bytes to " + dir.string()), 12);
  EXPECT_GE(log.count(LogLevel::debug, "read a spilled block of 2048 bytes back from"), 12);
  std::filesystem::remove_all(dir);
}

TEST(Log, AutoSaysWhereItRunsOnceAtInfoAndEveryTimeAtDebug) {
  const auto x = arange<double, Auto>(0.0, 10.0, 1.0, 3);
  {
    Captured log(LogLevel::info);
    EXPECT_EQ(x.sum().item(), 45.0);
    EXPECT_EQ(x.sum().item(), 45.0);
    // Once per process: a run of this binary that computed with Auto before has said it already.
    EXPECT_LE(log.count(LogLevel::info, "Auto runs on the "), 1);
    EXPECT_EQ(log.count(LogLevel::debug, "Auto runs on the "), 0);
  }
  Captured log(LogLevel::debug);
  EXPECT_EQ(x.sum().item(), 45.0);
  EXPECT_EQ(x.sum().item(), 45.0);
  EXPECT_EQ(log.count(LogLevel::debug, "Auto runs on the ") +
                log.count(LogLevel::info, "Auto runs on the "),
            2);
  // The reason is part of the message: a device count, or why the CPU.
  EXPECT_EQ(log.count(LogLevel::debug, "backend"), 2);
}

TEST(Log, AThrowingHandlerFailsNothingAndAReentrantOneDoesNotWaitOnItself) {
  set_log_level(LogLevel::info);
  LogHandler previous = set_log_handler(
      [](LogLevel, std::string_view) { throw std::runtime_error("a handler that throws"); });
  runtime::log(LogLevel::warn, "dropped");
  int outer = 0;
  set_log_handler([&](LogLevel, std::string_view m) {
    if (m == "outer") {
      ++outer;
      runtime::log(LogLevel::warn, "inner, from the handler: to stderr"); // must not deadlock
    }
  });
  runtime::log(LogLevel::warn, "outer");
  EXPECT_EQ(outer, 1);
  // The previous handler comes back; an empty one means standard error.
  EXPECT_TRUE(static_cast<bool>(set_log_handler(std::move(previous))));
  set_log_level(LogLevel::warn);
}

TEST(LogEnvironment, ChunkedLogSetsTheLevel) {
  // Registered again by CMake with CHUNKED_LOG=info: the variable is read at the first message.
  const char* env = std::getenv("CHUNKED_LOG");
  if (env == nullptr || std::string(env) != "info")
    GTEST_SKIP() << "run with CHUNKED_LOG=info (ctest unit.LogEnvironment.info does)";
  EXPECT_EQ(log_level(), LogLevel::info);
}

} // namespace
