// SPDX-License-Identifier: Apache-2.0
// The trace of one computation (ComputeOptions::trace_path and report_path): what ran where and
// when, recorded by the scheduler, the backends and the engine, written as Chrome trace-event
// JSON.
#pragma once

#include <chunked/core/chunk_grid.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace chunked::plan {
struct Plan;
}

namespace chunked::runtime {

/// Records one computation's events and writes them as Chrome trace-event JSON:
///
/// - pid 1 is the host. Its tid w is worker w (0 is the calling thread). On it:
///   - each block task, an "X" event of category "task" named by its block program (e.g.
///     "program 0: normal · add · sum"), with args {"kind", "block" (e.g. "(0, 3)"), "bytes"
///     (the values it computed), "task" (its id in its plan), "plan" (the plan's number)};
///   - "waiting for work" ("X", category "wait"): a worker without a ready task;
///   - "planning" and "NVRTC compile for sm_90" ("X", categories "plan" and "compile"); kernels
///     compiled ahead of a run on threads of their own are on tids from compile_track on.
///   - counters: "C" events named "memory" with args {"host", "pinned", "device", "spilled"},
///     live bytes of each kind at that time.
/// - pid 100 + d is GPU d. Its tid k is the device's stream k. On it "X" events of category
///   "kernel" (named by the kernel, e.g. "store", "reduce pass 1") or "copy" (e.g. "copy host to
///   device"), timed by CUDA events, with args {"task", "plan", "bytes" (copies)}.
/// - "M" events name each process and thread ("worker 0 (calling thread)", "GPU 0 stream 1").
///
/// Times ("ts", "dur") are microseconds since the trace began. The file is one object,
/// {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}; its events are sorted by
/// time, and on each track they nest or follow one another.
///
/// Thread-safety: a worker records its tasks on its own lane without a lock (lanes are made by
/// begin_graph() before the workers start); everything else is recorded under a lock.
class Trace {
public:
  using Clock = std::chrono::steady_clock;

  /// `backend`: "Cpu" or "Cuda", for the host process's name.
  explicit Trace(std::string backend);
  ~Trace();
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  /// Nanoseconds since the trace began.
  std::int64_t now() const;

  // ---- Plans and their tasks
  /// Starts the tasks of a plan: later task events belong to it until end_plan(). Returns its
  /// number.
  int begin_plan();
  /// Names the events of the current plan's tasks by `plan`'s programs (called once the plan's
  /// tasks have run or failed, while the plan is still alive).
  void end_plan(const plan::Plan& plan);
  /// Makes sure `workers` lanes exist; called before the workers of a run start.
  void begin_graph(int workers);
  /// Task `task` of the current plan ran on worker `worker` from `start` to `end`, both
  /// trace_ticks() (runtime/trace_clock.hpp, converted when the file is written). Lock-free:
  /// only worker `worker` records on its lane.
  void task(int worker, std::uint32_t task, std::int64_t start, std::int64_t end);
  /// Worker `worker` waited for a ready task from `start` to `end` (trace_ticks()). Lock-free as
  /// task().
  void wait(int worker, std::int64_t start, std::int64_t end);

  // ---- Other host events (any thread)
  /// A span on the host track of the calling thread's worker (0 outside workers).
  void span(const std::string& name, const char* category, std::int64_t start, std::int64_t end);
  /// Samples the memory counters now.
  void sample_memory();
  /// Samples them after a task that ended at `end` (trace_ticks()), unless a sample after a task
  /// was taken less than `min_interval` before.
  void sample_memory_after_task(std::int64_t end);

  // ---- GPU events
  /// Names the track of stream `stream` (its index among the device's streams) of `device`.
  void name_stream(int device, int stream);
  /// A kernel or copy that ran on `device`'s stream `stream` from `start` to `end` (now()'s
  /// clock, converted from CUDA event times); `bytes` 0 for kernels.
  void gpu_span(int device, int stream, const std::string& name, const char* category,
                std::int64_t start, std::int64_t end, std::uint32_t task, std::uint64_t bytes);
  /// The current plan's number (for gpu_span).
  int current_plan() const { return plan_.load(std::memory_order_relaxed); }

  /// The trace as Chrome trace-event JSON (see above).
  std::string json() const;
  /// Writes json() to `out` a piece at a time, so that a large trace never lies in memory twice.
  void write(std::ostream& out) const;

  /// Host tracks from this tid on are code generation ahead of a run, one per kernel compiled.
  static constexpr int compile_track = 1000;

  /// Counter samples are at least this far apart, in ns.
  static constexpr std::int64_t min_interval = 1'000'000;

private:
  struct Lane;
  struct Host {
    std::string name;
    const char* category;
    int tid;
    std::int64_t start, end;
  };
  struct Gpu {
    std::string name;
    const char* category;
    int device, stream;
    std::int64_t start, end;
    int plan;
    std::uint32_t task;
    std::uint64_t bytes;
  };
  struct Counter {
    std::int64_t ts;
    std::uint64_t host, pinned, device, spilled;
  };
  /// What the tasks of one stage of a plan share: found once per stage, not per task.
  struct StageName {
    std::uint32_t name;          ///< in strings_, escaped for JSON
    std::uint32_t grid;          ///< in grids_, or no_block or numbered_block
    std::uint32_t element_bytes; ///< of the values a program task computes; 0: other kinds
    const char* kind;
  };
  /// A task by numbers, for every task of a plan: its text is made when the file is written,
  /// not while the computation waits (plans of a million tiny tasks).
  struct Named {
    std::uint32_t stage; ///< in stages_
    index_t block;
  };
  struct PlanNames {
    int plan;
    std::vector<Named> tasks; ///< by task id
  };
  static constexpr std::uint32_t no_block = ~std::uint32_t{0};
  static constexpr std::uint32_t numbered_block = no_block - 1; ///< a combine's: its number
  /// Writes the whole file to `out`, handing it to `flush` (which empties it) whenever it holds
  /// a megabyte or more, and at the end. The caller holds the lock.
  void write_json(std::string& out, const std::function<void(std::string&)>& flush) const;
  /// The shared part of task `t`'s stage, its grid added to grids_. The caller holds the lock.
  StageName stage_name(const plan::Plan& plan, std::uint32_t t);
  /// The number of `s` in strings_, escaped for JSON (added when new).
  std::uint32_t intern(const std::string& s);

  std::string backend_;
  Clock::time_point origin_;
  std::atomic<int> plan_{-1};
  std::int64_t tick_origin_;        ///< trace_ticks() at origin_
  std::int64_t min_interval_ticks_; ///< min_interval in ticks, roughly
  std::atomic<std::int64_t> last_sample_ticks_;
  mutable double ns_per_tick_ = 0.0; ///< set when the trace is first written, under the lock

  mutable std::mutex mutex_; ///< everything below but the lanes' contents
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<Host> spans_;
  std::vector<Gpu> gpu_;
  std::vector<Counter> counters_;
  std::vector<std::pair<int, int>> streams_; ///< (device, stream) tracks named
  std::vector<PlanNames> names_;             ///< per plan ended, in plan order
  std::vector<std::string> strings_;         ///< task names, each once
  std::vector<StageName> stages_;            ///< per stage of each plan
  std::vector<ChunkGrid> grids_;             ///< the grids of the tasks' blocks, one per stage
  std::unordered_map<std::string, std::uint32_t> string_ids_;
};

/// The trace the calling thread records into: the one of the computation it runs (or works
/// for), or null.
Trace* current_trace();

/// The worker index the calling thread records as (0 outside workers).
int current_trace_lane();

/// Makes `trace` the calling thread's current trace while it lives, recording as worker `lane`;
/// restores the previous one after.
class TraceScope {
public:
  explicit TraceScope(Trace* trace, int lane = 0);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

private:
  Trace* previous_;
  int previous_lane_;
};

} // namespace chunked::runtime
