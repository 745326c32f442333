// SPDX-License-Identifier: Apache-2.0
// Tests of TaskGraph and run_graph: ordering, priority, release, pinning, errors, nesting.
#include "runtime/scheduler.hpp"
#include <chunked/core/error.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace chunked::runtime {
namespace {

// Records when each task started and ended and when it was released, on one global sequence, and
// checks the scheduler's promises as they happen.
class RecordingExecutor : public TaskExecutor {
public:
  explicit RecordingExecutor(const TaskGraph& graph) : graph_(&graph) { reset(); }

  void reset() {
    const std::size_t n = graph_->size();
    start_ = std::vector<std::atomic<std::uint64_t>>(n);
    end_ = std::vector<std::atomic<std::uint64_t>>(n);
    runs_ = std::vector<std::atomic<int>>(n);
    releases_ = std::vector<std::atomic<int>>(n);
    release_seq_ = std::vector<std::atomic<std::uint64_t>>(n);
    worker_ = std::vector<std::atomic<int>>(n);
    failed_ = std::vector<std::atomic<bool>>(n);
    consumers_.assign(n, {});
    for (TaskId t = 0; t < n; ++t)
      for (TaskId d : graph_->dependencies(t))
        consumers_[d].push_back(t);
    clock_ = 0;
    violations_ = 0;
    live_ = 0;
    max_live_ = 0;
    std::lock_guard lock(mutex_);
    order_.clear();
    threads_.clear();
  }

  std::uint64_t run(TaskId t, int worker) override {
    start_[t] = ++clock_;
    for (TaskId d : graph_->dependencies(t))
      if (end_[d] == 0)
        ++violations_;
    ++runs_[t];
    worker_[t] = worker;
    {
      std::lock_guard lock(mutex_);
      order_.push_back(t);
      threads_[worker].insert(std::this_thread::get_id());
    }
    if (t == throw_at_) {
      failed_[t] = true;
      if (throw_int_)
        throw 42;
      throw BackendError("task " + std::to_string(t) + " failed");
    }
    if (work_ > std::chrono::nanoseconds(0))
      std::this_thread::sleep_for(work_);
    if (on_run_)
      on_run_(t);
    if (!consumers_[t].empty())
      track_live(+1);
    end_[t] = ++clock_;
    return bytes_per_task_;
  }

  void release(TaskId t) override {
    release_seq_[t] = ++clock_;
    ++releases_[t];
    // A consumer still running would read freed memory. (After an error, consumers that never
    // started or that threw do not count; expect_complete_run checks the order on success.)
    for (TaskId c : consumers_[t])
      if (start_[c] != 0 && end_[c] == 0 && !failed_[c])
        ++violations_;
    track_live(-1);
    if (t == throw_on_release_)
      throw ValueError("release failed");
  }

  // Every task ran once after its dependencies; every output with consumers was released once,
  // after all of them; outputs without consumers never.
  void expect_complete_run() const {
    EXPECT_EQ(violations_.load(), 0);
    for (TaskId t = 0; t < graph_->size(); ++t) {
      ASSERT_EQ(runs_[t].load(), 1) << "task " << t;
      ASSERT_EQ(releases_[t].load(), consumers_[t].empty() ? 0 : 1) << "task " << t;
      for (TaskId d : graph_->dependencies(t))
        ASSERT_LT(end_[d].load(), start_[t].load()) << "task " << t << " dep " << d;
      for (TaskId c : consumers_[t])
        ASSERT_LT(end_[c].load(), release_seq_[t].load()) << "task " << t;
    }
  }

  // After a failed run: outputs of finished tasks with consumers were released exactly once.
  void expect_cleanup_after_error() const {
    EXPECT_EQ(violations_.load(), 0);
    for (TaskId t = 0; t < graph_->size(); ++t) {
      const bool finished = end_[t] != 0;
      EXPECT_EQ(releases_[t].load(), finished && !consumers_[t].empty() ? 1 : 0) << "task " << t;
      EXPECT_LE(runs_[t].load(), 1);
    }
    EXPECT_EQ(live_.load(), 0);
  }

  std::vector<TaskId> order() const {
    std::lock_guard lock(mutex_);
    return order_;
  }
  std::map<int, std::set<std::thread::id>> threads() const {
    std::lock_guard lock(mutex_);
    return threads_;
  }
  int runs(TaskId t) const { return runs_[t]; }
  int worker(TaskId t) const { return worker_[t]; }
  std::uint64_t start(TaskId t) const { return start_[t]; }
  int max_live() const { return max_live_; }

  TaskId throw_at_ = ~TaskId{0};
  bool throw_int_ = false;
  TaskId throw_on_release_ = ~TaskId{0};
  std::chrono::nanoseconds work_{0};
  std::uint64_t bytes_per_task_ = 8;
  std::function<void(TaskId)> on_run_; ///< called by each run, after it is recorded

private:
  void track_live(int delta) {
    const int now = live_ += delta;
    int seen = max_live_;
    while (now > seen && !max_live_.compare_exchange_weak(seen, now)) {
    }
  }

  const TaskGraph* graph_;
  std::vector<std::atomic<std::uint64_t>> start_, end_, release_seq_;
  std::vector<std::atomic<int>> runs_, releases_, worker_;
  std::vector<std::atomic<bool>> failed_;
  std::vector<std::vector<TaskId>> consumers_;
  std::atomic<std::uint64_t> clock_{0};
  std::atomic<int> violations_{0};
  std::atomic<int> live_{0}, max_live_{0};
  mutable std::mutex mutex_;
  std::vector<TaskId> order_;
  std::map<int, std::set<std::thread::id>> threads_;
};

ComputeOptions threads_options() { return {}; }

ComputeOptions inline_options() {
  ComputeOptions o;
  o.scheduler = Scheduler::single_threaded;
  return o;
}

TaskGraph chain(std::size_t n) {
  TaskGraph g;
  g.add({});
  for (TaskId t = 1; t < n; ++t)
    g.add({t - 1});
  return g;
}

TaskGraph diamond() {
  TaskGraph g;
  const TaskId a = g.add({});
  const TaskId b = g.add({a});
  const TaskId c = g.add({a});
  g.add({b, c});
  return g;
}

TaskGraph wide(std::size_t n) {
  TaskGraph g;
  const TaskId root = g.add({});
  std::vector<TaskId> mid;
  for (std::size_t i = 0; i < n; ++i)
    mid.push_back(g.add({root}));
  g.add(mid, -1, false);
  return g;
}

// Random DAG: each task depends on up to 3 of the `window` tasks before it.
TaskGraph random_dag(std::size_t n, std::uint32_t seed, int pin_workers = 0,
                     std::size_t window = 64) {
  std::mt19937 rng(seed);
  TaskGraph g;
  g.reserve(n, 3 * n);
  std::vector<TaskId> deps;
  for (TaskId t = 0; t < n; ++t) {
    deps.clear();
    if (t > 0) {
      const int k = static_cast<int>(rng() % 4);
      for (int i = 0; i < k; ++i)
        deps.push_back(t - 1 - static_cast<TaskId>(rng() % std::min<std::size_t>(t, window)));
    }
    const int worker =
        pin_workers > 0 && rng() % 3 == 0 ? static_cast<int>(rng() % pin_workers) : -1;
    g.add(deps, worker, rng() % 5 != 0);
  }
  return g;
}

// Pairwise tree reduction over `leaves` blocks, numbered depth-first so that with one worker each
// partial is combined as soon as both halves exist: live outputs stay O(log leaves).
TaskId add_tree(TaskGraph& g, std::size_t leaves) {
  if (leaves == 1)
    return g.add({});
  const TaskId left = add_tree(g, leaves / 2);
  const TaskId right = add_tree(g, leaves - leaves / 2);
  return g.add({left, right}, -1, false);
}

class SchedulerModes : public ::testing::TestWithParam<std::pair<Scheduler, int>> {
protected:
  ComputeOptions options() const {
    ComputeOptions o;
    o.scheduler = GetParam().first;
    return o;
  }
  int workers() const { return GetParam().second; }
};

TEST_P(SchedulerModes, ChainDiamondWide) {
  for (const TaskGraph& g : {chain(200), diamond(), wide(300)}) {
    RecordingExecutor ex(g);
    run_graph(g, ex, workers(), options());
    ex.expect_complete_run();
  }
}

TEST_P(SchedulerModes, RandomDagsWithPins) {
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    const TaskGraph g = random_dag(3000, seed, std::min(workers(), 4));
    RecordingExecutor ex(g);
    run_graph(g, ex, std::max(workers(), 4), options());
    ex.expect_complete_run();
    for (TaskId t = 0; t < g.size(); ++t) {
      if (g.worker(t) >= 0) {
        ASSERT_EQ(ex.worker(t), g.worker(t));
      }
    }
  }
}

TEST_P(SchedulerModes, LargeGraph) {
  const TaskGraph g = random_dag(100000, 7);
  RecordingExecutor ex(g);
  run_graph(g, ex, workers(), options());
  ex.expect_complete_run();
}

TEST_P(SchedulerModes, EmptyGraph) {
  TaskGraph g;
  RecordingExecutor ex(g);
  int calls = 0;
  ComputeOptions o = options();
  o.on_progress = [&](const Progress& p) {
    ++calls;
    EXPECT_EQ(p.fraction(), 1.0);
  };
  run_graph(g, ex, workers(), o);
  EXPECT_EQ(calls, 1);
}

INSTANTIATE_TEST_SUITE_P(
    Runtime, SchedulerModes,
    ::testing::Values(std::pair{Scheduler::single_threaded, 1}, std::pair{Scheduler::threads, 1},
                      std::pair{Scheduler::threads, 2}, std::pair{Scheduler::threads, 8}),
    [](const auto& info) {
      return std::string(info.param.first == Scheduler::threads ? "threads" : "inline") +
             std::to_string(info.param.second);
    });

TEST(Scheduler, OneWorkerRunsLowestReadyIdFirst) {
  // With one worker, lowest-ready-first over topological ids is exactly id order, however the
  // dependencies make tasks ready.
  for (const ComputeOptions& o : {threads_options(), inline_options()}) {
    const TaskGraph g = random_dag(5000, 3, 0, 2000);
    RecordingExecutor ex(g);
    run_graph(g, ex, 1, o);
    const std::vector<TaskId> order = ex.order();
    ASSERT_EQ(order.size(), g.size());
    for (TaskId t = 0; t < order.size(); ++t)
      ASSERT_EQ(order[t], t);
  }
}

TEST(Scheduler, PriorityKeepsTreeReductionMemoryBounded) {
  TaskGraph g;
  add_tree(g, 4096);
  for (int workers : {1, 2}) {
    RecordingExecutor ex(g);
    run_graph(g, ex, workers, threads_options());
    ex.expect_complete_run();
    // Depth 12: a breadth-first order would hold thousands of partials. Lowest-first keeps about
    // one path per worker live, plus the leaves of one batch: with several workers, tiny tasks
    // are taken up to 32 at a time (a loaded machine makes a batch's leaves finish before the
    // combine that frees them can start).
    const int batch = workers > 1 ? 32 : 0;
    EXPECT_LE(ex.max_live(), 14 * workers + batch) << workers << " workers";
  }
}

TEST(Scheduler, PinnedTasksRunOnTheirOwnThread) {
  const TaskGraph g = random_dag(4000, 11, 4);
  RecordingExecutor ex(g);
  run_graph(g, ex, 4, threads_options());
  ex.expect_complete_run();
  std::set<std::thread::id> all;
  for (TaskId t = 0; t < g.size(); ++t) {
    if (g.worker(t) >= 0) {
      ASSERT_EQ(ex.worker(t), g.worker(t));
    }
  }
  for (const auto& [worker, ids] : ex.threads()) {
    EXPECT_EQ(ids.size(), 1u) << "worker " << worker << " ran on several threads";
    all.insert(ids.begin(), ids.end());
  }
  EXPECT_EQ(all.size(), ex.threads().size()) << "two workers shared a thread";
}

TEST(Scheduler, SingleThreadedRunsOnCallerWithPinnedIndex) {
  TaskGraph g;
  g.add({}, 3);
  g.add({0});
  g.add({1}, 1);
  RecordingExecutor ex(g);
  run_graph(g, ex, 4, inline_options());
  ex.expect_complete_run();
  EXPECT_EQ(ex.worker(0), 3);
  EXPECT_EQ(ex.worker(1), 0);
  EXPECT_EQ(ex.worker(2), 1);
  std::set<std::thread::id> ids;
  for (const auto& [w, s] : ex.threads())
    ids.insert(s.begin(), s.end());
  EXPECT_EQ(ids, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(Scheduler, ErrorStopsRunsReleasesAndPropagates) {
  // The first exception of a process loads the unwinding tables, which can take milliseconds
  // (more under sanitizers); thrown once here, that cost stays out of the window measured below.
  try {
    throw BackendError("warm-up");
  } catch (const BackendError&) {
  }
  for (int workers : {1, 2, 8}) {
    for (const ComputeOptions& o : {threads_options(), inline_options()}) {
      const TaskGraph g = random_dag(5000, 5, 0, 16);
      RecordingExecutor ex(g);
      ex.throw_at_ = 300;
      // Tasks long enough that the exception's own unwinding is a short window.
      ex.work_ = std::chrono::microseconds(100);
      try {
        run_graph(g, ex, workers, o);
        FAIL() << "no exception";
      } catch (const BackendError& e) {
        EXPECT_STREQ(e.what(), "task 300 failed");
      }
      ex.expect_cleanup_after_error();
      std::size_t ran = 0;
      std::size_t after = 0;
      for (TaskId t = 0; t < g.size(); ++t) {
        ran += static_cast<std::size_t>(ex.runs(t));
        after += ex.start(t) > ex.start(300) ? 1 : 0;
      }
      // One worker stops at once; with several, only tasks taken while the exception unwound
      // may start after the failing one: about one per other worker, but a loaded machine can
      // stall the failing thread for a few of the other workers' 100 us tasks. Without the stop,
      // thousands would.
      if (workers == 1 || o.scheduler == Scheduler::single_threaded)
        EXPECT_EQ(after, 0u);
      else
        EXPECT_LE(after, 16u * static_cast<std::size_t>(workers)) << workers << " workers";
      EXPECT_LT(ran, g.size() / 2);

      // The same objects work again.
      ex.reset();
      ex.throw_at_ = ~TaskId{0};
      ex.work_ = std::chrono::nanoseconds(0);
      run_graph(g, ex, workers, o);
      ex.expect_complete_run();
    }
  }
}

TEST(Scheduler, NonStdExceptionPropagates) {
  for (const ComputeOptions& o : {threads_options(), inline_options()}) {
    const TaskGraph g = wide(100);
    RecordingExecutor ex(g);
    ex.throw_at_ = 10;
    ex.throw_int_ = true;
    try {
      run_graph(g, ex, 4, o);
      FAIL() << "no exception";
    } catch (int value) {
      EXPECT_EQ(value, 42);
    }
    ex.expect_cleanup_after_error();
  }
}

TEST(Scheduler, ErrorInReleasePropagates) {
  for (const ComputeOptions& o : {threads_options(), inline_options()}) {
    const TaskGraph g = chain(100);
    RecordingExecutor ex(g);
    ex.throw_on_release_ = 20;
    EXPECT_THROW(run_graph(g, ex, 2, o), ValueError);
    ex.expect_cleanup_after_error();
    EXPECT_EQ(ex.runs(22), 0);
  }
}

TEST(Scheduler, ManyErrorsReportOne) {
  // Every task fails: one exception comes out and nothing hangs.
  class Failing : public TaskExecutor {
  public:
    std::uint64_t run(TaskId, int) override { throw ShapeError("bad"); }
    void release(TaskId) override { ADD_FAILURE() << "nothing finished"; }
  } ex;
  const TaskGraph g = wide(1000);
  EXPECT_THROW(run_graph(g, ex, 8, threads_options()), ShapeError);
}

TEST(Scheduler, ConcurrentAndNestedRuns) {
  // run_graph from several threads at once, and from inside a task.
  class Nesting : public TaskExecutor {
  public:
    explicit Nesting(const TaskGraph& inner) : inner_(inner) {}
    std::uint64_t run(TaskId, int) override {
      RecordingExecutor ex(inner_);
      run_graph(inner_, ex, 2, ComputeOptions{});
      ex.expect_complete_run();
      return 0;
    }
    void release(TaskId) override {}

  private:
    const TaskGraph& inner_;
  };
  const TaskGraph inner = random_dag(500, 9);
  const TaskGraph outer = wide(6);
  std::vector<std::thread> callers;
  for (int i = 0; i < 3; ++i)
    callers.emplace_back([&] {
      Nesting ex(inner);
      run_graph(outer, ex, 2, ComputeOptions{});
    });
  for (std::thread& c : callers)
    c.join();
}

TEST(Scheduler, RejectsBadWorkerCounts) {
  TaskGraph g;
  g.add({}, 2);
  RecordingExecutor ex(g);
  EXPECT_THROW(run_graph(g, ex, 2, threads_options()), ValueError);
  EXPECT_THROW(run_graph(g, ex, 2, inline_options()), ValueError);
  EXPECT_THROW(run_graph(g, ex, 0, threads_options()), ValueError);
  EXPECT_EQ(ex.runs(0), 0);
  run_graph(g, ex, 3, threads_options());
  EXPECT_EQ(ex.worker(0), 2);
}

TEST(Scheduler, SleepingWorkersAreWokenForLateWork) {
  // A long chain keeps one worker busy while the others sleep; a wide fan-out at its end must wake
  // them. Tasks sleep, so all 4 workers take part if they are woken.
  TaskGraph g;
  TaskId last = g.add({});
  for (int i = 0; i < 20; ++i)
    last = g.add({last});
  std::vector<TaskId> fan;
  for (int i = 0; i < 40; ++i)
    fan.push_back(g.add({last}));
  g.add(fan);
  RecordingExecutor ex(g);
  ex.work_ = std::chrono::milliseconds(1);
  // Each task of the fan-out waits until every worker has run a task (for 10 s at most in all):
  // a woken worker then takes part however late a busy machine schedules it, and a worker that is
  // never woken fails the test by the count below, not by a race with the other workers.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  ex.on_run_ = [&](TaskId t) {
    if (t < fan.front() || t > fan.back())
      return;
    while (ex.threads().size() < 4 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  };
  run_graph(g, ex, 4, threads_options());
  ex.expect_complete_run();
  EXPECT_EQ(ex.threads().size(), 4u);
}

TEST(TaskGraph, ValidatesAndDeduplicates) {
  TaskGraph g;
  EXPECT_THROW(g.add({0}), ValueError);
  const TaskId a = g.add({});
  EXPECT_EQ(a, 0u);
  EXPECT_THROW(g.add({1}), ValueError);
  EXPECT_THROW(g.add({}, -2), ValueError);
  const TaskId b = g.add({}, 5, false);
  const TaskId c = g.add({b, a, b, a});
  EXPECT_EQ(c, 2u);
  EXPECT_EQ(g.size(), 3u);
  ASSERT_EQ(g.dependencies(c).size(), 2u);
  EXPECT_EQ(g.dependencies(c)[0], a);
  EXPECT_EQ(g.dependencies(c)[1], b);
  EXPECT_EQ(g.num_edges(), 2u);
  EXPECT_EQ(g.num_blocks(), 2u);
  EXPECT_EQ(g.max_worker(), 5);
  EXPECT_EQ(g.worker(b), 5);
  EXPECT_FALSE(g.is_block(b));
  EXPECT_TRUE(g.is_block(c));
  g.clear();
  EXPECT_TRUE(g.empty());
  EXPECT_EQ(g.max_worker(), -1);
  EXPECT_EQ(g.add({}), 0u);
}

TEST(TaskGraph, PartsOfABlockCountOnceWhenTheLastFinishes) {
  TaskGraph g;
  const TaskId a = g.add_part({}, -1, 1);
  const TaskId b = g.add_part({}, -1, 1);
  const TaskId c = g.add({a, b});
  g.add_part({c}, -1, 0);
  EXPECT_EQ(g.num_blocks(), 3u); // blocks 0 and 1 of parts, and c
  EXPECT_EQ(g.part_of(a), 1);
  EXPECT_EQ(g.part_of(c), -1);
  EXPECT_FALSE(g.is_block(a));
  ASSERT_EQ(g.parts().size(), 2u);
  EXPECT_EQ(g.parts()[1], 2u);
  for (const Scheduler scheduler : {Scheduler::threads, Scheduler::single_threaded}) {
    std::vector<index_t> done;
    ComputeOptions options;
    options.scheduler = scheduler;
    options.on_progress = [&](const Progress& p) { done.push_back(p.blocks_done); };
    struct Nothing final : TaskExecutor {
      std::uint64_t run(TaskId, int) override { return 1; }
      void release(TaskId) override {}
    } ex;
    run_graph(g, ex, 2, options);
    ASSERT_FALSE(done.empty());
    EXPECT_EQ(done.back(), 3);
  }
}

TEST(Scheduler, DefaultNumThreads) {
  ComputeOptions o;
  EXPECT_GE(default_num_threads(o), 1);
  o.num_threads = 3;
  EXPECT_EQ(default_num_threads(o), 3);
  o.num_threads = -1;
  EXPECT_THROW(default_num_threads(o), ValueError);
}

} // namespace
} // namespace chunked::runtime
