// SPDX-License-Identifier: Apache-2.0
// Scheduler overhead per task (BENCHMARKS.md B4): trivial tasks in chains, independent sets and
// reduction trees, on 1 and 2 workers and inline. Read the per_task counter (seconds per task).
#include "runtime/scheduler.hpp"

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace {

using chunked::ComputeOptions;
using chunked::Scheduler;
using namespace chunked::runtime;

// Does no work, so what is measured is the scheduler. The sum keeps calls from being elided.
class TrivialExecutor final : public TaskExecutor {
public:
  std::uint64_t run(TaskId task, int) override {
    sum_.fetch_add(task, std::memory_order_relaxed);
    return 8;
  }
  void release(TaskId) override {}

private:
  std::atomic<std::uint64_t> sum_{0};
};

TaskGraph chain(std::size_t n) {
  TaskGraph g;
  g.reserve(n, n);
  g.add({});
  for (TaskId t = 1; t < n; ++t)
    g.add({t - 1});
  return g;
}

TaskGraph independent(std::size_t n) {
  TaskGraph g;
  g.reserve(n, 0);
  for (std::size_t t = 0; t < n; ++t)
    g.add({});
  return g;
}

// n blocks and a pairwise tree over them, numbered so each partial follows its inputs (as the
// planner numbers a sum): n - 1 more tasks.
TaskId add_tree(TaskGraph& g, std::size_t leaves) {
  if (leaves == 1)
    return g.add({});
  const TaskId left = add_tree(g, leaves / 2);
  const TaskId right = add_tree(g, leaves - leaves / 2);
  return g.add({left, right}, -1, false);
}

TaskGraph tree(std::size_t n) {
  TaskGraph g;
  g.reserve(2 * n, 2 * n);
  add_tree(g, n);
  return g;
}

template <TaskGraph (*Make)(std::size_t)> void bm_run(benchmark::State& state) {
  const TaskGraph graph = Make(static_cast<std::size_t>(state.range(0)));
  const int workers = static_cast<int>(state.range(1));
  ComputeOptions options;
  if (workers == 0)
    options.scheduler = Scheduler::single_threaded;
  if (state.range(2) != 0)
    options.on_progress = [](const chunked::Progress& p) {
      // A copy: DoNotOptimize of a const reference is deprecated.
      chunked::index_t done = p.blocks_done;
      benchmark::DoNotOptimize(done);
    };
  TrivialExecutor executor;
  for (auto _ : state)
    run_graph(graph, executor, workers == 0 ? 1 : workers, options);
  const double tasks = static_cast<double>(graph.size());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(graph.size()));
  state.counters["per_task"] = benchmark::Counter(
      tasks, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void bm_build(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    TaskGraph g = tree(n);
    benchmark::DoNotOptimize(g.size());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(2 * n - 1));
}

// Arguments: tasks, workers (0 = single_threaded), progress callback on.
void args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"tasks", "workers", "progress"});
  for (int workers : {0, 1, 2, 4, 8, 16})
    b->Args({1 << 20, workers, 0});
  b->Args({1 << 20, 2, 1});
  b->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
}

BENCHMARK(bm_run<chain>)->Name("chain")->Apply(args);
BENCHMARK(bm_run<independent>)->Name("independent")->Apply(args);
BENCHMARK(bm_run<tree>)->Name("tree_sum")->Apply(args);
BENCHMARK(bm_build)->Name("build_tree_graph")->Arg(1 << 20)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
