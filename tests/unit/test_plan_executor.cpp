// SPDX-License-Identifier: Apache-2.0
// The executor code every backend shares (runtime/plan_executor.hpp) and the backend registry:
// task graphs, consumer lists, and which destination copies a finalize may write through.
#include "backend/cpu/executor.hpp"
#include "plan/plan.hpp"
#include "runtime/backend.hpp"
#include "runtime/plan_executor.hpp"
#include <chunked/chunked.hpp>
#include <chunked/config.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace {

using namespace chunked;
using plan::TaskKind;

plan::Plan plan_into(const graph::NodePtr& node, void* out, const plan::TaskSplit& split = {}) {
  plan::Request r;
  r.node = node;
  r.destination = plan::Destination{out, node->dtype, node->shape, MemorySpace{}, {}};
  return plan::make_plan({r}, split);
}

/// Per combine task of p that finalizes: the copy task destination_copy names, or -1.
std::vector<long> copies_of(const plan::Plan& p) {
  const auto consumers = runtime::consumer_lists(p);
  std::vector<long> found;
  plan::BlockProgram copy;
  for (std::size_t t = 0; t < p.tasks.size(); ++t) {
    if (p.tasks[t].kind != TaskKind::combine ||
        p.tasks[t].output.kind != plan::Output::Kind::buffer)
      continue;
    const auto to = runtime::destination_copy(p, static_cast<plan::TaskId>(t), consumers[t], copy);
    found.push_back(to ? static_cast<long>(*to) : -1);
    if (to) {
      EXPECT_EQ(p.tasks[*to].kind, TaskKind::program);
      EXPECT_EQ(p.tasks[*to].output.kind, plan::Output::Kind::destination);
      EXPECT_EQ(copy.size(), p.tasks[t].output.elements);
    }
  }
  return found;
}

TEST(PlanExecutor, ConsumerListsInvertDependencies) {
  const auto x = arange<double>(0.0, 40.0, 1.0, 7);
  double out = 0;
  const plan::Plan p = plan_into((x * 2.0).sum().node(), &out);
  const auto consumers = runtime::consumer_lists(p);
  ASSERT_EQ(consumers.size(), p.tasks.size());
  std::size_t edges = 0;
  for (std::size_t t = 0; t < p.tasks.size(); ++t)
    for (const plan::TaskId c : consumers[t]) {
      ++edges;
      EXPECT_GT(c, t);
      const auto& deps = p.deps[c];
      EXPECT_NE(std::find(deps.begin(), deps.end(), t), deps.end());
    }
  std::size_t dep_edges = 0;
  for (const auto& d : p.deps)
    dep_edges += d.size();
  EXPECT_EQ(edges, dep_edges);
  const runtime::TaskGraph g = runtime::task_graph(p);
  EXPECT_EQ(g.size(), p.tasks.size());
  EXPECT_EQ(g.num_edges(), dep_edges);
  std::size_t programs = 0;
  for (const auto& t : p.tasks)
    programs += t.kind == TaskKind::program ? 1 : 0;
  EXPECT_EQ(g.num_blocks(), programs);
}

// A block the CPU backend cuts into pieces counts once in Progress, through its join, so a
// persist() reports the array's chunks; the bytes still count every piece.
TEST(PlanExecutor, BlocksCutIntoPiecesCountOnceInProgress) {
  Generator rng(4);
  for (const index_t rows : {4096, 1024}) {
    SCOPED_TRACE(std::to_string(rows) + " rows per block");
    const auto x = rng.uniform<float>(Shape{4096, 4096}, Chunks{rows, 4096}) * 2.0f;
    const index_t chunks = x.numblocks();
    // The plan persist() makes on the CPU backend cuts every block.
    plan::Request r;
    r.node = x.node();
    r.kind = plan::Request::Kind::blocks;
    const plan::Plan p = plan::make_plan({r}, cpu::task_split);
    index_t pieces = 0, joins = 0;
    for (const auto& t : p.tasks) {
      pieces += t.kind == TaskKind::program && t.output.kind == plan::Output::Kind::piece ? 1 : 0;
      joins += t.kind == TaskKind::join ? 1 : 0;
    }
    ASSERT_EQ(joins, chunks);
    ASSERT_GE(pieces, 4 * chunks) << "the blocks are cut into pieces";
    EXPECT_EQ(runtime::task_graph(p).num_blocks(), static_cast<std::size_t>(chunks));

    std::mutex mutex;
    Progress last;
    int calls = 0;
    ComputeOptions options;
    options.num_threads = 4;
    options.on_progress = [&](const Progress& now) {
      const std::lock_guard lock(mutex);
      EXPECT_EQ(now.blocks_total, chunks);
      EXPECT_LE(now.blocks_done, now.blocks_total);
      last = now;
      ++calls;
    };
    (void)x.persist(options);
    ASSERT_GE(calls, 1);
    EXPECT_EQ(last.blocks_total, chunks);
    EXPECT_EQ(last.blocks_done, chunks);
    EXPECT_EQ(last.bytes_done, std::uint64_t{4096} * 4096 * sizeof(float));
  }
}

// Results written into the caller's array and reductions' inputs are cut into boxes too: each
// block still counts once, done when its last box is.
TEST(PlanExecutor, BlocksCutIntoBoxesCountOnceInProgress) {
  Generator rng(5);
  const auto x = rng.uniform<float>(Shape{4096, 4096}, Chunks{2048, 4096});
  for (const bool reduce : {false, true}) {
    SCOPED_TRACE(reduce ? "sum().item()" : "compute()");
    plan::Request r;
    r.node = reduce ? x.sum().node() : x.node();
    float out = 0;
    std::vector<float> dense(reduce ? 0 : std::size_t{4096} * 4096);
    r.destination = plan::Destination{
        reduce ? &out : dense.data(), DType::float32, r.node->shape, MemorySpace{}, {}};
    const plan::Plan p = plan::make_plan({r}, cpu::task_split);
    index_t programs = 0;
    for (const auto& t : p.tasks)
      programs += t.kind == TaskKind::program ? 1 : 0;
    // The two blocks in many boxes, and for the sum the copy of its result.
    const index_t blocks = reduce ? 3 : 2;
    ASSERT_GT(programs, 2 * blocks) << "the blocks are cut into boxes";
    EXPECT_EQ(runtime::task_graph(p).num_blocks(), static_cast<std::size_t>(blocks));

    Progress last;
    ComputeOptions options;
    options.num_threads = 3;
    options.on_progress = [&](const Progress& now) {
      EXPECT_EQ(now.blocks_total, blocks);
      last = now;
    };
    if (reduce)
      (void)x.sum().item(options);
    else
      (void)x.compute(options);
    EXPECT_EQ(last.blocks_done, blocks);
  }
}

TEST(PlanExecutor, OutputBytesCountValuesOrPartialEntries) {
  const plan::Output values{plan::Output::Kind::buffer, DType::float32, 10, -1};
  EXPECT_EQ(runtime::output_bytes(values, plan::ReduceOp::var), 40u);
  const plan::Output partials{plan::Output::Kind::partial, DType::float32, 10, -1};
  EXPECT_EQ(runtime::output_bytes(partials, plan::ReduceOp::sum), 80u);
  EXPECT_EQ(runtime::output_bytes(partials, plan::ReduceOp::var),
            80u * static_cast<std::size_t>(
                      plan::partial_layout(plan::ReduceOp::var, DType::float32).words));
}

// x.sum().item() and a reduction's to_host(): the finalized values are only copied into the
// destination, so a backend may finalize straight into it.
TEST(PlanExecutor, ReductionsCopiedUnchangedIntoADestinationAreFound) {
  Generator rng(3);
  const auto x = rng.normal<double>(Shape{20, 30}, Chunks{7, 11});
  double scalar = 0;
  EXPECT_EQ(copies_of(plan_into(x.sum().node(), &scalar)).size(), 1u);
  EXPECT_NE(copies_of(plan_into(x.sum().node(), &scalar))[0], -1);
  for (const auto& r : {x.sum(Axes{0}), x.max(Axes{1}), x.var(Axes{0})}) {
    std::vector<double> out(static_cast<std::size_t>(r.size()));
    const auto found = copies_of(plan_into(r.node(), out.data()));
    ASSERT_FALSE(found.empty());
    for (const long c : found)
      EXPECT_NE(c, -1);
  }
  std::int64_t index = 0;
  EXPECT_NE(copies_of(plan_into(x.argmax().node(), &index)).at(0), -1);
}

TEST(PlanExecutor, ReductionsComputedFurtherOrCutAreNotCopies) {
  Generator rng(3);
  const auto x = rng.normal<double>(Shape{20, 30}, Chunks{7, 11});
  double scalar = 0;
  for (const long c : copies_of(plan_into((x.sum() + 1.0).node(), &scalar)))
    EXPECT_EQ(c, -1);
  float single = 0;
  for (const long c : copies_of(plan_into(x.sum().astype<float>().node(), &single)))
    EXPECT_EQ(c, -1);
  // A destination written by several tasks (the CPU's split) reads each combine in pieces.
  const auto big = rng.normal<double>(Shape{1 << 10, 1 << 10}, Chunks{1 << 10, 1 << 9});
  std::vector<double> columns(1 << 10);
  const auto cut =
      copies_of(plan_into(big.sum(Axes{0}).node(), columns.data(), plan::TaskSplit{64, 1, 1}));
  ASSERT_FALSE(cut.empty());
  for (const long c : cut)
    EXPECT_EQ(c, -1);
  // persist(): blocks, not a destination.
  plan::Request r;
  r.node = x.sum(Axes{1}).node();
  r.kind = plan::Request::Kind::blocks;
  for (const long c : copies_of(plan::make_plan({r})))
    EXPECT_EQ(c, -1);
}

TEST(BackendRegistry, BackendsSayWhatTheyAre) {
  const runtime::Backend& cpu = runtime::cpu_backend();
  EXPECT_STREQ(cpu.name(), "Cpu");
  EXPECT_TRUE(cpu.built());
  EXPECT_EQ(cpu.usable_devices(), 1);
  const plan::TaskSplit split = cpu.task_split();
  EXPECT_EQ(split.min_tasks, cpu::task_split.min_tasks);
  EXPECT_EQ(split.min_task_elements, cpu::task_split.min_task_elements);
  EXPECT_EQ(split.min_run_elements, cpu::task_split.min_run_elements);
  const runtime::Backend& cuda = runtime::cuda_backend();
  EXPECT_STREQ(cuda.name(), "Cuda");
  EXPECT_EQ(cuda.built(), static_cast<bool>(CHUNKED_HAS_CUDA));
  EXPECT_EQ(cuda.usable_devices() > 0, cuda_available());
  EXPECT_EQ(cuda.task_split().min_tasks, 1);
  EXPECT_EQ(&runtime::backend_of(MemorySpace{}), &cpu);
  const auto host = cpu.host_buffer(24, [](void* p) { static_cast<double*>(p)[2] = 4.5; });
  EXPECT_EQ(static_cast<const double*>(host->data())[2], 4.5);
  EXPECT_EQ(static_cast<const double*>(cpu.to_host(*host)->data())[2], 4.5);
}

} // namespace
