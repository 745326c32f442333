// SPDX-License-Identifier: Apache-2.0
// Tests of chunked::Job (runtime/job.hpp) on its own and of the scheduler's side of it: empty
// and moved jobs, exceptions of any type carried to get(), errors at the call, and cancellation
// of a task graph between tasks (tasks after the cancel never start, held outputs are released)
// on the threaded and inline schedulers.
#include "runtime/job_control.hpp"
#include "runtime/scheduler.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

namespace chunked {
namespace {

struct NotAChunkedError {
  int code;
};

TEST(Job, EmptyJob) {
  Job<int> job;
  EXPECT_FALSE(job.valid());
  EXPECT_FALSE(job.ready());
  EXPECT_FALSE(job.cancel());
  EXPECT_THROW(job.wait(), Error);
  EXPECT_THROW(job.get(), Error);
  EXPECT_THROW(job.progress(), Error);
}

TEST(Job, StartRunsTheWorkAndMovesWithTheJob) {
  auto job = Job<std::vector<int>>::start([] { return std::vector<int>{1, 2, 3}; });
  Job<std::vector<int>> moved(std::move(job));
  EXPECT_FALSE(job.valid()); // NOLINT(bugprone-use-after-move): moved-from jobs are empty
  ASSERT_TRUE(moved.valid());
  moved.wait();
  EXPECT_TRUE(moved.ready());
  EXPECT_EQ(moved.get(), (std::vector<int>{1, 2, 3}));
  EXPECT_THROW(moved.get(), Error);
}

TEST(Job, GetRethrowsAnExceptionOfAnyType) {
  auto job = Job<int>::start([]() -> int { throw NotAChunkedError{7}; });
  try {
    job.get();
    ADD_FAILURE() << "get() returned";
  } catch (const NotAChunkedError& e) {
    EXPECT_EQ(e.code, 7);
  }
  EXPECT_THROW(job.get(), Error); // once only, even after a failure
}

TEST(Job, ProgressOfAJobWithoutTasks) {
  auto job = Job<int>::start([] { return 1; });
  job.wait();
  const Progress p = job.progress();
  EXPECT_EQ(p.blocks_total, 0);
  EXPECT_EQ(p.blocks_done, 0);
  EXPECT_GE(p.elapsed_seconds, 0.0);
  EXPECT_EQ(job.get(), 1);
}

TEST(Job, AnUnusableBackendThrowsAtTheCall) {
  if (cuda_available())
    GTEST_SKIP() << "a CUDA device is visible";
  const auto x = zeros<double, Cuda>(Shape{4}, Chunks{2});
  EXPECT_THROW(x.compute_async(), BackendError);
  EXPECT_THROW(x.persist_async(), BackendError);
  EXPECT_THROW(submit(ComputeOptions{}, x), BackendError);
}

// ---- The scheduler's side: cancellation between tasks ----

/// Runs a chain 0 -> 1 -> ... -> n-1 plus a task that reads every one of them, cancelling the
/// job while task `cancel_at` runs; counts runs and releases.
class CancellingExecutor : public runtime::TaskExecutor {
public:
  CancellingExecutor(runtime::JobControl& job, runtime::TaskId cancel_at, std::size_t n)
      : job_(job), cancel_at_(cancel_at), released_(n) {}

  std::uint64_t run(runtime::TaskId task, int) override {
    ++runs_;
    if (task == cancel_at_)
      job_.cancel();
    return 8;
  }
  void release(runtime::TaskId task) override { ++released_[task]; }

  int runs() const { return runs_.load(); }
  int released(runtime::TaskId t) const { return released_[t].load(); }

private:
  runtime::JobControl& job_;
  runtime::TaskId cancel_at_;
  std::atomic<int> runs_{0};
  std::vector<std::atomic<int>> released_;
};

void check_cancel_between_tasks(Scheduler scheduler) {
  constexpr runtime::TaskId n = 20, cancel_at = 5;
  runtime::TaskGraph graph;
  for (runtime::TaskId t = 0; t < n; ++t)
    graph.add(t == 0 ? std::vector<runtime::TaskId>{} : std::vector<runtime::TaskId>{t - 1});
  std::vector<runtime::TaskId> all(n);
  for (runtime::TaskId t = 0; t < n; ++t)
    all[t] = t;
  graph.add(all);
  runtime::JobControl job;
  CancellingExecutor exec(job, cancel_at, n + 1);
  ComputeOptions options;
  options.scheduler = scheduler;
  {
    const runtime::JobScope scope(&job);
    try {
      runtime::run_graph(graph, exec, 4, options);
      ADD_FAILURE() << "run_graph returned after a cancel";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), runtime::cancelled_message);
    }
  }
  // A chain runs one task at a time: the cancel came while task 5 ran, so none after it started.
  EXPECT_EQ(exec.runs(), static_cast<int>(cancel_at) + 1);
  // Every finished task's output was still wanted by the last task: each is released once.
  for (runtime::TaskId t = 0; t <= cancel_at; ++t)
    EXPECT_EQ(exec.released(t), 1) << "task " << t;
  for (runtime::TaskId t = cancel_at + 1; t <= n; ++t)
    EXPECT_EQ(exec.released(t), 0) << "task " << t;
  // The job's progress kept the run's last counts (progress counts every task when in a job).
  EXPECT_EQ(job.progress().blocks_done, static_cast<index_t>(cancel_at) + 1);
  EXPECT_EQ(job.progress().blocks_total, static_cast<index_t>(n) + 1);
  // The scope is gone: the same graph runs to its end outside the job.
  CancellingExecutor again(job, n + 5, n + 1);
  runtime::run_graph(graph, again, 4, options);
  EXPECT_EQ(again.runs(), static_cast<int>(n) + 1);
}

TEST(JobScheduler, CancelStopsTheThreadedScheduler) {
  check_cancel_between_tasks(Scheduler::threads);
}

TEST(JobScheduler, CancelStopsTheInlineScheduler) {
  check_cancel_between_tasks(Scheduler::single_threaded);
}

TEST(JobScheduler, ACancelledJobStartsNoTask) {
  runtime::TaskGraph graph;
  graph.add({});
  runtime::JobControl job;
  job.cancel();
  CancellingExecutor exec(job, 99, 1);
  const runtime::JobScope scope(&job);
  EXPECT_THROW(runtime::run_graph(graph, exec, 1, ComputeOptions{}), Error);
  EXPECT_EQ(exec.runs(), 0);
}

} // namespace
} // namespace chunked
