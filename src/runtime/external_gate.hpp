// SPDX-License-Identifier: Apache-2.0
// ExternalGate: tasks of a graph that may run only when something outside the run says so.
#pragma once

#include "runtime/task_graph.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

namespace chunked::runtime {

/// Tasks that, besides their dependencies, wait for one call of `open(task)` from outside the run
/// (a block that another process sends), and a way to stop the run from outside (that process
/// failed). Calls may come from any thread, before, during or after the run: what arrives before
/// run_graph listens is kept and handed over when it does.
class ExternalGate {
public:
  /// What a run does with the gate's calls (the scheduler implements it).
  class Listener {
  public:
    virtual ~Listener() = default;
    virtual void opened(TaskId task) = 0;
    virtual void failed(std::exception_ptr error) = 0;
  };

  /// `gated[t]` != 0: task t waits for open(t).
  explicit ExternalGate(std::vector<std::uint8_t> gated) : gated_(std::move(gated)) {}

  /// Whether `task` waits for open(task).
  bool gated(TaskId task) const { return task < gated_.size() && gated_[task] != 0; }
  /// Lets gated `task` run once its dependencies have finished; at most once per task.
  void open(TaskId task);
  /// Stops the run as a failing task would, with `error` (the first one given counts).
  void fail(std::exception_ptr error);

  /// Starts (listener) or stops (null) handing calls to a run; on start, those made so far.
  void listen(Listener* listener);

private:
  const std::vector<std::uint8_t> gated_;
  std::mutex mutex_;
  Listener* listener_ = nullptr;
  std::vector<TaskId> opened_; ///< while nobody listens
  std::exception_ptr error_;
};

/// Hands a gate's calls to a run while it lasts.
class Listening {
public:
  Listening(ExternalGate* gate, ExternalGate::Listener* listener) : gate_(gate) {
    if (gate_)
      gate_->listen(listener);
  }
  ~Listening() { stop(); }
  void stop() {
    if (gate_)
      gate_->listen(nullptr);
    gate_ = nullptr;
  }
  Listening(const Listening&) = delete;
  Listening& operator=(const Listening&) = delete;

private:
  ExternalGate* gate_;
};

/// For a run in id order: the task next in line waits here for its gate to open.
class GateWaiter final : public ExternalGate::Listener {
public:
  explicit GateWaiter(std::size_t tasks) : opened_(tasks, 0) {}
  void opened(TaskId task) override {
    {
      std::lock_guard lock(mutex_);
      opened_[task] = 1;
    }
    cv_.notify_all();
  }
  void failed(std::exception_ptr error) override {
    {
      std::lock_guard lock(mutex_);
      if (!error_)
        error_ = std::move(error);
      failed_.store(true);
    }
    cv_.notify_all();
  }
  // Rethrows the error the gate was failed with, if any: the run stops before its next task.
  void check() {
    if (failed_.load(std::memory_order_relaxed))
      wait(0);
  }
  // Returns once `task` may run; rethrows the error the gate was failed with.
  void wait(TaskId task) {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return opened_[task] != 0 || error_; });
    if (error_)
      std::rethrow_exception(error_);
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::uint8_t> opened_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
};

} // namespace chunked::runtime
