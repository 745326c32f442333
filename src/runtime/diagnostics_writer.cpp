// SPDX-License-Identifier: Apache-2.0
// The diagnostics writer: one thread, started at the first file handed over, that runs the
// writes in order and finishes them when the process exits.
#include "runtime/diagnostics_writer.hpp"

#include "runtime/log_message.hpp"
#include <chunked/core/error.hpp>
#include <chunked/runtime/diagnostics.hpp>

#include <fmt/format.h>

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <utility>

namespace chunked::runtime {

namespace {

/// Writes queued behind the running one before write_diagnostics_later waits.
constexpr std::size_t max_queued = 2;

class Writer {
public:
  void hand_over(std::function<void()> write) {
    std::unique_lock lock(mutex_);
    if (!thread_.joinable()) {
      thread_ = std::thread([this] { loop(); });
      // Once, with the thread: the files of computations that returned are finished before the
      // process ends. The writer itself is never destroyed, so the handler always finds it.
      std::atexit([] { instance().stop(); });
    }
    space_.wait(lock, [this] { return queue_.size() < max_queued; });
    queue_.push_back(std::move(write));
    work_.notify_one();
  }

  void wait() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
    if (error_.empty())
      return;
    std::string message = std::exchange(error_, {});
    throw Error(message);
  }

  static Writer& instance() {
    static auto* writer = new Writer; // never destroyed: the exit handler still uses it
    return *writer;
  }

private:
  void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      work_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stopping, with nothing left
      std::function<void()> write = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      space_.notify_all();
      lock.unlock();
      std::string failure;
      try {
        write();
      } catch (const std::exception& e) {
        failure = e.what();
      }
      write = nullptr; // the trace it held is freed outside the lock
      if (!failure.empty())
        log(LogLevel::warn, failure); // also logged: a program that never waits learns of it
      lock.lock();
      busy_ = false;
      if (!failure.empty() && error_.empty())
        error_ = failure;
      idle_.notify_all();
    }
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      work_.notify_one();
    }
    if (thread_.joinable())
      thread_.join();
  }

  std::mutex mutex_;
  std::condition_variable work_, space_, idle_;
  std::deque<std::function<void()>> queue_;
  std::thread thread_;
  std::string error_; ///< the first failure since the last wait()
  bool busy_ = false;
  bool stopping_ = false;
};

/// A name beside `path` for its new contents, unique to this process and write.
std::string partial_name(const std::string& path) {
  static std::atomic<unsigned> count{0};
  return fmt::format("{}.partial-{}-{}", path, ::getpid(), count.fetch_add(1));
}

} // namespace

void write_diagnostics_later(std::function<void()> write) {
  Writer::instance().hand_over(std::move(write));
}

void wait_for_diagnostics_writes() { Writer::instance().wait(); }

} // namespace chunked::runtime

namespace chunked {

void wait_for_diagnostics() { runtime::wait_for_diagnostics_writes(); }

} // namespace chunked

namespace chunked::runtime {

void write_file_whole(const std::string& path, const char* option,
                      const std::function<void(std::ostream&)>& produce) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  const bool regular = !fs::exists(status) || fs::is_regular_file(status);
  std::string target = regular ? partial_name(path) : path;
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  if (!out && regular) { // a directory this process may not add to: the file itself, in place
    target = path;
    out.open(target, std::ios::binary | std::ios::trunc);
  }
  if (!out)
    throw Error(fmt::format("ComputeOptions::{} '{}' cannot be written: {}", option, path,
                            std::strerror(errno)));
  produce(out);
  out.close();
  if (!out) {
    if (target != path)
      fs::remove(target, ec);
    throw Error(fmt::format("ComputeOptions::{} '{}': writing the file failed", option, path));
  }
  if (target == path)
    return;
  fs::rename(target, path, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(target, ec);
    throw Error(fmt::format("ComputeOptions::{} '{}': putting the file in place failed: {}", option,
                            path, why));
  }
}

} // namespace chunked::runtime
