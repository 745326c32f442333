// SPDX-License-Identifier: Apache-2.0
// Asynchronous compute suite (chunked::Job): compute_async, persist_async and submit give bitwise
// the synchronous results (several element types, ragged chunks, shared intermediates); wait,
// ready and get; errors rethrown as the synchronous call throws them; cancel (queued tasks
// dropped, the runtime usable after); destroying a running Job; and many jobs from several
// threads on the same arrays at once (run under ThreadSanitizer in CI). Tests that stop a
// computation midway hold it in a map_blocks callable, which runs on a host thread on every
// backend.
#pragma once

#include "support/backend.hpp"

#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <typeinfo>
#include <utility>
#include <vector>

namespace chunked::test {
namespace {

using Async = BackendTest;
using D = ChunkedArray<double, Backend>;

/// True when two arrays hold the same shape and the same bytes (NaN payloads and signed zeros
/// included): results of a job must be the synchronous ones bit for bit.
template <class T> bool bitwise_equal(const NDArray<T>& a, const NDArray<T>& b) {
  return a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(T)) == 0;
}

/// A few workers per job: enough for the threaded scheduler, few enough for two CPU cores under
/// a sanitizer.
ComputeOptions few_threads() {
  ComputeOptions o;
  o.num_threads = 2;
  return o;
}

/// Lazy random inputs with ragged edge blocks.
D input_x() { return Generator(11).normal<double, Backend>(Shape{37, 23}, Chunks{8, 5}); }
D input_y() { return Generator(12).uniform<double, Backend>(Shape{37, 23}, Chunks{10, 23}); }

/// Makes a map_blocks callable stop at its `block_at`-th call until the test opens the gate, so
/// that a test knows a job is unfinished, with work done before it, without relying on timing.
/// The callable copies its block on the host and leaves device blocks unwritten (their values
/// are never read): it runs on the host thread of the task on every backend, so the gate works
/// on a GPU too.
struct Gate {
  explicit Gate(int block_at) : block_at(block_at) {}
  const int block_at;
  std::atomic<int> calls{0};  // calls that started
  std::atomic<int> inside{0}; // calls not yet returned
  std::atomic<bool> open{false};

  /// x, with every block passing through the gate.
  D through(const D& x) {
    return map_blocks<double>(
        [this](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
          ++inside;
          if (++calls >= block_at)
            while (!open.load())
              std::this_thread::yield();
          if (info.device < 0)
            for (index_t i = 0; i < out.size(); ++i)
              out.data[i] = in.data[i];
          --inside;
        },
        x);
  }
  void wait_until_stopped() const {
    while (calls.load() < block_at)
      std::this_thread::yield();
  }
};

/// Options for the gate's computations: two CPU workers, or one GPU (one worker), so that the
/// tasks started when a cancel comes are known.
ComputeOptions gated_options() {
  ComputeOptions o = few_threads();
  if (runs_on_gpu())
    o.devices = {0};
  return o;
}

/// Workers of gated_options().
int gated_workers() { return runs_on_gpu() ? 1 : 2; }

TEST_F(Async, ComputeAsyncEqualsComputeBitwise) {
  const D x = input_x(), y = input_y();
  const auto opts = few_threads();
  const auto a = x * y + 1.0;
  const auto b = x.sum(Axes{0});
  const auto c = (x - y).cumsum(1);
  const auto d = x.mean();
  auto ja = a.compute_async(opts);
  auto jb = b.compute_async(opts);
  auto jc = c.compute_async(opts);
  auto jd = d.compute_async();
  EXPECT_TRUE(bitwise_equal(ja.get(), a.compute(opts)));
  EXPECT_TRUE(bitwise_equal(jb.get(), b.compute(opts)));
  EXPECT_TRUE(bitwise_equal(jc.get(), c.compute(opts)));
  EXPECT_TRUE(bitwise_equal(jd.get(), d.compute()));
}

TEST_F(Async, SubmitEqualsComputeWithSeveralElementTypes) {
  const D x = input_x(), y = input_y();
  const auto shared = x * 2.0 + y; // an intermediate the four results share
  const auto s = shared.sum(Axes{1});
  const auto i = (shared * 10.0).astype<std::int64_t>();
  const auto f = shared.astype<float>().max(Axes{0});
  const auto positive = shared > 0.5;
  const auto empty = x(slice(3, 3));
  auto job = submit(few_threads(), s, i, f, positive, empty);
  auto got = job.get();
  const auto want = compute(few_threads(), s, i, f, positive, empty);
  EXPECT_TRUE(bitwise_equal(std::get<0>(got), std::get<0>(want)));
  EXPECT_TRUE(bitwise_equal(std::get<1>(got), std::get<1>(want)));
  EXPECT_TRUE(bitwise_equal(std::get<2>(got), std::get<2>(want)));
  EXPECT_TRUE(bitwise_equal(std::get<3>(got), std::get<3>(want)));
  EXPECT_EQ(std::get<4>(got).size(), 0);
}

TEST_F(Async, PersistAsyncEqualsPersist) {
  const D x = input_x();
  auto job = (x * 3.0).persist_async(few_threads());
  const D p = job.get();
  EXPECT_EQ(p.chunks(), x.chunks());
  EXPECT_TRUE(bitwise_equal((p + 1.0).compute(), (x * 3.0 + 1.0).compute()));
}

TEST_F(Async, WaitTwiceReadyAndGetOnce) {
  const D x = input_x();
  ComputeOptions opts = few_threads();
  int reports = 0;
  opts.on_progress = [&](const Progress&) { ++reports; };
  auto job = x.sum(Axes{0}).compute_async(opts);
  EXPECT_TRUE(job.valid());
  job.wait();
  job.wait();
  EXPECT_TRUE(job.ready());
  EXPECT_GE(reports, 1); // the options' callback still sees the job's progress
  const Progress p = job.progress();
  EXPECT_GT(p.blocks_total, 0);
  EXPECT_EQ(p.blocks_done, p.blocks_total);
  EXPECT_FALSE(job.cancel()); // finished: nothing to cancel, and get() still succeeds
  EXPECT_TRUE(bitwise_equal(job.get(), x.sum(Axes{0}).compute(opts)));
  EXPECT_TRUE(job.ready());
  EXPECT_THROW(job.get(), Error);
}

TEST_F(Async, BadOptionsThrowAtTheCall) {
  const D x = input_x();
  ComputeOptions bad;
  bad.num_threads = -1;
  EXPECT_THROW(x.compute_async(bad), ValueError);
  EXPECT_THROW(x.persist_async(bad), ValueError);
  EXPECT_THROW(submit(bad, x, x.sum()), ValueError);
}

/// Runs `f` and returns the dynamic type and message of what it throws ("" when nothing).
template <class F> std::pair<std::string, std::string> thrown_by(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return {typeid(e).name(), e.what()};
  }
  return {};
}

TEST_F(Async, GetRethrowsWhatTheSynchronousCallThrows) {
  const D x = input_x();
  ComputeOptions opts = few_threads();
  D failing;
  if (runs_on_gpu()) {
    opts.device_memory_limit = 1; // no block fits: OutOfMemory
    failing = x * 2.0;
  } else {
    failing = map_blocks<double>(
        [](const BlockInfo& info, BlockView<double>, BlockView<const double>) {
          if (info.block == std::vector<index_t>{2, 1})
            throw std::invalid_argument("no such block here");
        },
        x);
  }
  const auto sync = thrown_by([&] { failing.compute(opts); });
  auto job = failing.compute_async(opts);
  const auto async = thrown_by([&] { job.get(); });
  ASSERT_FALSE(sync.first.empty());
  EXPECT_EQ(async.first, sync.first) << async.second;
  if (!runs_on_gpu()) { // on a GPU the bytes in use at the failure may differ
    EXPECT_EQ(async.second, sync.second);
  }
  // The runtime stays usable.
  EXPECT_TRUE(bitwise_equal(x.compute_async().get(), x.compute()));
}

TEST_F(Async, CancelDropsQueuedTasks) {
  Gate gate(10);
  const D x = Generator(3).normal<double, Backend>(Shape{64, 64}, Chunks{4, 4}); // 256 blocks
  const auto y = gate.through(x).sum(Axes{0});
  auto job = y.compute_async(gated_options());
  gate.wait_until_stopped(); // 9 blocks went through: their partial sums are held
  const Progress running = job.progress();
  EXPECT_GT(running.blocks_total, 0);
  EXPECT_LT(running.blocks_done, running.blocks_total);
  EXPECT_FALSE(job.ready());
  EXPECT_TRUE(job.cancel()); // unfinished: the gate holds it
  gate.open = true;
  job.wait();
  EXPECT_TRUE(job.ready());
  EXPECT_EQ(gate.inside.load(), 0);
  // Only the tasks that had started when the cancel came ran: one per worker at most.
  EXPECT_LE(gate.calls.load(), gate.block_at + gated_workers() - 1);
  try {
    job.get();
    ADD_FAILURE() << "get() after cancel() returned";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cancelled"), std::string::npos) << e.what();
  }
  // The runtime computes as before, the same graph included.
  EXPECT_TRUE(bitwise_equal(x.sum(Axes{0}).compute_async().get(), x.sum(Axes{0}).compute()));
  if (!runs_on_gpu()) {
    EXPECT_TRUE(bitwise_equal(y.compute(few_threads()), x.sum(Axes{0}).compute(few_threads())));
  }
}

TEST_F(Async, CancelALongComputation) {
  // Many blocks of a lazy random array: the cancel almost always comes before the end. Whether it
  // did is what cancel() returns; either way the job ends cleanly and the runtime is usable.
  const D big = Generator(5).normal<double, Backend>(Shape{4096, 2048}, Chunks{64, 64});
  auto job = big.sum().compute_async();
  const bool cancelled = job.cancel();
  if (cancelled)
    EXPECT_THROW(job.get(), Error);
  else
    EXPECT_NO_THROW(job.get());
  EXPECT_TRUE(job.ready());
  const D x = input_x();
  EXPECT_TRUE(bitwise_equal(x.sum(Axes{1}).compute_async().get(), x.sum(Axes{1}).compute()));
}

TEST_F(Async, DestroyingARunningJobWaitsForItsTasks) {
  const D x = Generator(4).normal<double, Backend>(Shape{64, 64}, Chunks{4, 4});
  Gate gate(5);
  auto job = gate.through(x).sum().compute_async(gated_options());
  gate.wait_until_stopped();
  // Opens the gate while the Job's destructor waits (or, on a loaded machine, just before).
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    gate.open = true;
  });
  job = Job<NDArray<double>>(); // destroys the running job
  EXPECT_FALSE(job.valid());
  EXPECT_EQ(gate.inside.load(), 0); // its running task finished, and none runs after
  const int calls = gate.calls.load();
  opener.join();
  EXPECT_EQ(gate.calls.load(), calls);
  EXPECT_TRUE(bitwise_equal(x.sum().compute_async().get(), x.sum().compute()));
}

TEST_F(Async, ManyJobsFromSeveralThreadsOnTheSameArrays) {
  const D x = input_x(), y = input_y();
  const auto a = (x * y).sum(Axes{0});
  const auto b = (x + y).cumsum(0);
  const auto c = x.std(Axes{1});
  const auto want_a = a.compute(), want_b = b.compute(), want_c = c.compute();
  constexpr int threads = 3, rounds = 2;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int r = 0; r < rounds; ++r) {
        // Every thread starts several jobs before taking any result, so that they overlap.
        auto ja = a.compute_async(few_threads());
        auto jt = submit(few_threads(), b, c);
        auto jb = (t % 2 == 0 ? b : c.astype<double>()).compute_async(few_threads());
        const auto got = jt.get();
        mismatches += !bitwise_equal(ja.get(), want_a);
        mismatches += !bitwise_equal(std::get<0>(got), want_b);
        mismatches += !bitwise_equal(std::get<1>(got), want_c);
        mismatches += !bitwise_equal(jb.get(), t % 2 == 0 ? want_b : want_c);
      }
    });
  for (auto& th : pool)
    th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_F(Async, JobsWithAllHardwareThreadsDoNotWaitForEachOther) {
  // num_threads = 0 each: two jobs share no pool, so neither waits for the other's workers.
  const D x = input_x();
  auto j1 = x.sum(Axes{0}).compute_async();
  auto j2 = (x * 2.0).compute_async();
  EXPECT_TRUE(bitwise_equal(j2.get(), (x * 2.0).compute()));
  EXPECT_TRUE(bitwise_equal(j1.get(), x.sum(Axes{0}).compute()));
}

} // namespace
} // namespace chunked::test
