// SPDX-License-Identifier: Apache-2.0
// The log: the level (CHUNKED_LOG or set_log_level), the handler, and the default to stderr.
#include "runtime/log_message.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

namespace chunked {

namespace {

constexpr int unset = -1;
std::atomic<int> level_now{unset};

struct Sink {
  std::mutex mutex;
  LogHandler handler;
};

Sink& sink() {
  static auto* s = new Sink; // never destroyed: messages may come during exit
  return *s;
}

/// CHUNKED_LOG's level; a value it does not know is warned about (on stderr, once) and read as
/// warn.
int level_from_environment() {
  const char* env = std::getenv("CHUNKED_LOG");
  if (env == nullptr || *env == '\0')
    return static_cast<int>(LogLevel::warn);
  const std::string_view v = env;
  for (const LogLevel l : {LogLevel::debug, LogLevel::info, LogLevel::warn})
    if (v == to_string(l))
      return static_cast<int>(l);
  std::fprintf(stderr, "chunked [warn] CHUNKED_LOG=%s is not debug, info or warn; using warn\n",
               env);
  return static_cast<int>(LogLevel::warn);
}

} // namespace

std::string_view to_string(LogLevel level) {
  switch (level) {
  case LogLevel::debug:
    return "debug";
  case LogLevel::info:
    return "info";
  case LogLevel::warn:
    break;
  }
  return "warn";
}

LogLevel log_level() {
  int l = level_now.load(std::memory_order_relaxed);
  if (l == unset) {
    int expected = unset;
    level_now.compare_exchange_strong(expected, level_from_environment());
    l = level_now.load();
  }
  return static_cast<LogLevel>(l);
}

void set_log_level(LogLevel level) { level_now.store(static_cast<int>(level)); }

LogHandler set_log_handler(LogHandler handler) {
  Sink& s = sink();
  std::lock_guard lock(s.mutex);
  return std::exchange(s.handler, std::move(handler));
}

namespace runtime {

bool logging(LogLevel level) { return level >= log_level(); }

void log(LogLevel level, std::string_view message) noexcept {
  if (!logging(level))
    return;
  // A handler that computes (and so logs) would wait on itself: its own messages go to stderr.
  thread_local bool in_handler = false;
  Sink& s = sink();
  std::unique_lock lock(s.mutex, std::defer_lock);
  if (!in_handler)
    lock.lock();
  if (in_handler || !s.handler) {
    const std::string_view name = to_string(level);
    std::fprintf(stderr, "chunked [%.*s] %.*s\n", static_cast<int>(name.size()), name.data(),
                 static_cast<int>(message.size()), message.data());
    return;
  }
  in_handler = true;
  try {
    s.handler(level, message);
  } catch (...) { // NOLINT(bugprone-empty-catch): logging never fails a computation
  }
  in_handler = false;
}

} // namespace runtime

} // namespace chunked
