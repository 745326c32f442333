// SPDX-License-Identifier: Apache-2.0
// A small pool of compile threads with a queue (background_compiles.hpp).
#include "backend/cuda/background_compiles.hpp"

#include "backend/cuda/jit.hpp"
#include "backend/cuda/runtime_api.hpp"
#include "runtime/log_message.hpp"
#include "runtime/parallel_for.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace chunked::cuda {

namespace {

void register_stop_at_exit();

class BackgroundCompiles {
public:
  BackgroundCompiles() {
    // What the compile threads use must outlive them. They stop at exit in a handler
    // (stop_at_exit) that runs before the destructors of every static made before it was
    // registered, and NVRTC makes static state of its own, to be destroyed at exit, on the first
    // compiles that take each of its paths. So the handler is registered again after each
    // compile, later than what that compile made: a compile under way at exit then waits in the
    // handler while NVRTC's state still exists. The first registration follows one empty compile
    // (NVRTC's start); the compiler's and the log's state is never destroyed.
    (void)runtime::logging(LogLevel::debug);
    nvrtcProgram program = nullptr;
    if (nvrtcCreateProgram(&program, "", "chunked_warm_up.cu", 0, nullptr, nullptr) ==
        NVRTC_SUCCESS) {
      (void)nvrtcCompileProgram(program, 0, nullptr);
      nvrtcDestroyProgram(&program);
    }
    register_stop_at_exit();
  }
  ~BackgroundCompiles() = delete; // never destroyed: the threads stop in stop_at_exit

  /// Stops the threads after the compiles under way, dropping queued ones; later calls return at
  /// once.
  void stop() {
    std::vector<std::thread> threads;
    {
      const std::lock_guard lock(mutex_);
      if (stop_)
        return;
      stop_ = true;
      queue_.clear();
      threads.swap(threads_);
    }
    wake_.notify_all();
    for (std::thread& t : threads)
      t.join();
  }
  BackgroundCompiles(const BackgroundCompiles&) = delete;
  BackgroundCompiles& operator=(const BackgroundCompiles&) = delete;

  void add(int device, const plan::BlockProgram& program, KernelSet set) {
    std::string key = module_key(program, set);
    const std::lock_guard lock(mutex_);
    if (stop_ || !started_.insert({device, key}).second)
      return;
    queue_.push_back(Job{device, std::move(key), program, set});
    // NVRTC compiles one module on one thread: a thread per queued module, up to the cores.
    if (threads_.size() < max_threads() && idle_ == 0)
      threads_.emplace_back([this] { work(); });
    wake_.notify_one();
  }

  void wait() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return queue_.empty() && busy_ == 0; });
  }

private:
  struct Job {
    int device;
    std::string key;
    plan::BlockProgram program;
    KernelSet set;
  };

  static std::size_t max_threads() {
    return std::clamp<std::size_t>(runtime::hardware_threads() / 2, 1, 8);
  }

  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++idle_;
      wake_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      --idle_;
      if (stop_)
        return;
      Job job = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
      lock.unlock();
      try {
        program_module(job.device, job.program, job.set);
      } catch (const std::exception& e) {
        runtime::log(LogLevel::warn,
                     fmt::format("Cuda backend: the kernel of {} was not compiled ({}); the "
                                 "interpreter keeps running it",
                                 job.key, e.what()));
      }
      register_stop_at_exit();
      lock.lock();
      --busy_;
      if (queue_.empty() && busy_ == 0)
        done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<Job> queue_;
  std::set<std::pair<int, std::string>> started_;
  std::vector<std::thread> threads_;
  int idle_ = 0, busy_ = 0;
  bool stop_ = false;
};

BackgroundCompiles& compiles() {
  static BackgroundCompiles& instance = *new BackgroundCompiles; // stopped at exit, not destroyed
  return instance;
}

void stop_at_exit() { compiles().stop(); }

void register_stop_at_exit() {
  // Registrations are bounded by the compiles, one module each. A failure to register leaves
  // the earlier registrations.
  (void)std::atexit(stop_at_exit);
}

} // namespace

std::thread start_background_compiles() {
  static std::once_flag started;
  std::thread starting;
  std::call_once(started, [&] { starting = std::thread([] { (void)compiles(); }); });
  return starting;
}

void compile_in_background(int device, const plan::BlockProgram& program, KernelSet set) {
  compiles().add(device, program, set);
}

void wait_for_background_compiles() { compiles().wait(); }

void wait_for_kernels() { wait_for_background_compiles(); }

} // namespace chunked::cuda
