// SPDX-License-Identifier: Apache-2.0
// Trace: recording a computation's events, and writing them as Chrome trace-event JSON.
#include "runtime/trace.hpp"

#include "core/memory_counters.hpp"
#include "plan/index_maps.hpp"
#include "plan/plan.hpp"
#include "runtime/trace_clock.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <ostream>
#include <utility>

namespace chunked::runtime {

namespace {

thread_local Trace* current = nullptr;
thread_local int current_lane = 0;

constexpr int host_pid = 1;
constexpr int gpu_pid = 100; ///< + the device number
/// Trace::write hands the file over in pieces of about this size: a buffer that stays in cache
/// and whose pages are touched once, rather than one string as large as the file.
constexpr std::size_t flush_bytes = std::size_t{1} << 20;

/// `s` as a JSON string literal (UTF-8 passes through; control characters are escaped).
void append_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20)
        fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
      else
        out += c;
    }
  }
  out += '"';
}

/// Appends the decimal digits of `v`. The writer's inner loop: fmt::format_int's buffer and one
/// append, no formatting machinery per number.
template <class Int> void append_int(std::string& out, Int v) {
  const fmt::format_int digits(v);
  out.append(digits.data(), digits.size());
}

/// Appends `ns` as microseconds with nanosecond digits, as trace viewers read "ts" and "dur".
void append_micros(std::string& out, std::int64_t ns) {
  ns = std::max<std::int64_t>(ns, 0);
  append_int(out, ns / 1000);
  const auto frac = static_cast<int>(ns % 1000);
  const char digits[4] = {'.', static_cast<char>('0' + frac / 100),
                          static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10)};
  out.append(digits, 4);
}

void append_metadata(std::string& out, const char* what, int pid, int tid, std::string_view name) {
  fmt::format_to(std::back_inserter(out),
                 FMT_COMPILE(R"({{"ph":"M","name":"{}","pid":{},"tid":{},"args":{{"name":)"), what,
                 pid, tid);
  append_string(out, name);
  out += "}},\n";
}

/// The start of an "X" event up to its duration, `name` already a JSON string literal.
void append_complete(std::string& out, std::string_view name, const char* category, int pid,
                     int tid, std::int64_t start, std::int64_t end) {
  out += R"({"ph":"X","name":)";
  out += name;
  out += R"(,"cat":")";
  out += category;
  out += R"(","pid":)";
  append_int(out, pid);
  out += R"(,"tid":)";
  append_int(out, tid);
  out += R"(,"ts":)";
  append_micros(out, start);
  out += R"(,"dur":)";
  append_micros(out, end - start);
}

/// Merges the consecutive sorted runs of `refs` that start at `starts` (with refs.size() last)
/// into one sorted sequence, stably: a pairwise merge of neighbours, log(runs) passes.
template <class Ref, class Less>
void merge_runs(std::vector<Ref>& refs, std::vector<std::size_t> starts, Less less) {
  const auto at = [&refs](std::size_t i) { return refs.begin() + static_cast<std::ptrdiff_t>(i); };
  while (starts.size() > 2) {
    std::vector<std::size_t> next;
    const std::size_t runs = starts.size() - 1;
    for (std::size_t r = 0; r < runs; r += 2) {
      next.push_back(starts[r]);
      if (r + 1 < runs)
        std::inplace_merge(at(starts[r]), at(starts[r + 1]), at(starts[r + 2]), less);
    }
    next.push_back(starts.back());
    starts = std::move(next);
  }
}

std::string json_string(std::string_view s) {
  std::string out;
  append_string(out, s);
  return out;
}

} // namespace

struct Trace::Lane {
  struct TaskRecord {
    int plan;
    std::uint32_t task;
    std::int64_t start, end;
  };
  std::vector<TaskRecord> tasks;
  std::vector<std::pair<std::int64_t, std::int64_t>> waits;
};

Trace::Trace(std::string backend)
    : backend_(std::move(backend)), origin_(Clock::now()), tick_origin_(trace_ticks()),
      min_interval_ticks_(
          static_cast<std::int64_t>(static_cast<double>(min_interval) * trace_ticks_per_ns())),
      last_sample_ticks_(tick_origin_) {
  sample_memory();
}

Trace::~Trace() = default;

std::int64_t Trace::now() const {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - origin_).count();
}

int Trace::begin_plan() { return plan_.fetch_add(1) + 1; }

void Trace::end_plan(const plan::Plan& plan) {
  const int p = plan_.load();
  std::lock_guard lock(mutex_);
  // Every task, run or not: no pass over what ran. Tasks of one stage mostly follow one another,
  // so the last stage found is tried first.
  PlanNames names{p, std::vector<Named>(plan.tasks.size())};
  std::unordered_map<std::uint64_t, std::uint32_t> stage_of;
  std::uint64_t last_key = ~std::uint64_t{0};
  std::uint32_t last_stage = 0;
  for (std::uint32_t t = 0; t < plan.tasks.size(); ++t) {
    const plan::Task& task = plan.tasks[t];
    const std::uint64_t key =
        (std::uint64_t{static_cast<std::uint8_t>(task.kind)} << 32) | task.index;
    if (key != last_key) {
      auto [it, fresh] = stage_of.try_emplace(key, static_cast<std::uint32_t>(stages_.size()));
      if (fresh)
        stages_.push_back(stage_name(plan, t));
      last_key = key;
      last_stage = it->second;
    }
    names.tasks[t] = {last_stage, task.block};
  }
  names_.push_back(std::move(names));
}

Trace::StageName Trace::stage_name(const plan::Plan& plan, std::uint32_t t) {
  const plan::Task& task = plan.tasks[t];
  const ChunkGrid* grid = plan.task_grid(t);
  const std::uint32_t g = task.kind == plan::TaskKind::combine ? numbered_block
                          : grid == nullptr                    ? no_block
                                            : static_cast<std::uint32_t>(grids_.size());
  if (grid != nullptr)
    grids_.push_back(*grid);
  // Plan::work_bytes: a program task counts its iteration box in its result dtype.
  const std::uint32_t element_bytes =
      task.kind == plan::TaskKind::program
          ? static_cast<std::uint32_t>(dtype_size(plan.stages[task.index].program.result_dtype()))
          : 0;
  return {intern(plan.task_label(t).name), g, element_bytes, plan::task_kind_name(task.kind)};
}

std::uint32_t Trace::intern(const std::string& s) {
  const auto [it, added] = string_ids_.try_emplace(s, static_cast<std::uint32_t>(strings_.size()));
  if (added)
    strings_.push_back(json_string(s));
  return it->second;
}

void Trace::begin_graph(int workers) {
  std::lock_guard lock(mutex_);
  while (lanes_.size() < static_cast<std::size_t>(workers))
    lanes_.push_back(std::make_unique<Lane>());
}

void Trace::task(int worker, std::uint32_t task, std::int64_t start, std::int64_t end) {
  lanes_[static_cast<std::size_t>(worker)]->tasks.push_back(
      {plan_.load(std::memory_order_relaxed), task, start, end});
}

void Trace::wait(int worker, std::int64_t start, std::int64_t end) {
  lanes_[static_cast<std::size_t>(worker)]->waits.emplace_back(start, end);
}

void Trace::span(const std::string& name, const char* category, std::int64_t start,
                 std::int64_t end) {
  std::lock_guard lock(mutex_);
  spans_.push_back({name, category, current_trace_lane(), start, end});
}

void Trace::sample_memory_after_task(std::int64_t end) {
  std::int64_t last = last_sample_ticks_.load(std::memory_order_relaxed);
  if (end - last < min_interval_ticks_ || !last_sample_ticks_.compare_exchange_strong(last, end))
    return;
  sample_memory();
}

void Trace::sample_memory() {
  const std::int64_t t = now();
  using detail::MemoryKind;
  const auto in_use = [](MemoryKind kind) {
    return static_cast<std::uint64_t>(std::max<std::int64_t>(detail::memory_in_use(kind), 0));
  };
  const Counter c{t, in_use(MemoryKind::host), in_use(MemoryKind::pinned),
                  in_use(MemoryKind::device), in_use(MemoryKind::spilled)};
  std::lock_guard lock(mutex_);
  counters_.push_back(c);
}

void Trace::name_stream(int device, int stream) {
  std::lock_guard lock(mutex_);
  if (std::find(streams_.begin(), streams_.end(), std::pair(device, stream)) == streams_.end())
    streams_.emplace_back(device, stream);
}

void Trace::gpu_span(int device, int stream, const std::string& name, const char* category,
                     std::int64_t start, std::int64_t end, std::uint32_t task,
                     std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  gpu_.push_back({name, category, device, stream, start, end, current_plan(), task, bytes});
  if (std::find(streams_.begin(), streams_.end(), std::pair(device, stream)) == streams_.end())
    streams_.emplace_back(device, stream);
}

std::string Trace::json() const {
  std::lock_guard lock(mutex_);
  std::string out;
  write_json(out, [](std::string&) {});
  return out;
}

void Trace::write(std::ostream& out) const {
  std::lock_guard lock(mutex_);
  std::string piece;
  piece.reserve(flush_bytes + 4096);
  write_json(piece, [&out](std::string& p) {
    out.write(p.data(), static_cast<std::streamsize>(p.size()));
    p.clear();
  });
}

void Trace::write_json(std::string& out, const std::function<void(std::string&)>& flush) const {
  out += "{\"traceEvents\":[\n";
  append_metadata(out, "process_name", host_pid, 0, "chunked host (" + backend_ + " backend)");
  for (std::size_t w = 0; w < lanes_.size(); ++w)
    append_metadata(out, "thread_name", host_pid, static_cast<int>(w),
                    w == 0 ? std::string("worker 0 (calling thread)")
                           : "worker " + std::to_string(w));
  std::vector<int> compile_tracks;
  for (const Host& h : spans_)
    if (h.tid >= compile_track &&
        std::find(compile_tracks.begin(), compile_tracks.end(), h.tid) == compile_tracks.end()) {
      compile_tracks.push_back(h.tid);
      append_metadata(out, "thread_name", host_pid, h.tid,
                      "code generation " + std::to_string(h.tid - compile_track));
    }
  std::vector<int> devices;
  for (const auto& [device, stream] : streams_) {
    if (std::find(devices.begin(), devices.end(), device) == devices.end()) {
      devices.push_back(device);
      append_metadata(out, "process_name", gpu_pid + device, 0, "GPU " + std::to_string(device));
    }
    append_metadata(out, "thread_name", gpu_pid + device, stream,
                    fmt::format("GPU {} stream {}", device, stream));
  }
  const auto named = [&](int plan, std::uint32_t task) -> const Named* {
    const auto it = std::lower_bound(names_.begin(), names_.end(), plan,
                                     [](const PlanNames& n, int p) { return n.plan < p; });
    return it != names_.end() && it->plan == plan && task < it->tasks.size() ? &it->tasks[task]
                                                                             : nullptr;
  };
  // A program task's bytes: the elements of its block (its iteration box) times their size.
  const auto bytes_of = [&](const Named& n) -> std::uint64_t {
    const StageName& st = stages_[n.stage];
    if (st.element_bytes == 0 || st.grid >= grids_.size())
      return 0;
    const ChunkGrid& grid = grids_[st.grid];
    const auto nd = static_cast<int>(grid.ndim());
    std::array<index_t, max_ndim> origin{}, extent{};
    plan::block_box(grid, n.block, nd, origin, extent);
    std::uint64_t elements = 1;
    for (int k = 0; k < nd; ++k)
      elements *= static_cast<std::uint64_t>(extent[static_cast<std::size_t>(k)]);
    return elements * st.element_bytes;
  };
  // Every other event by time (spans before counters at equal times), written from its record.
  enum Type : std::uint8_t { task, wait, host, gpu, counter };
  struct Ref {
    std::int64_t ts;
    Type type;
    std::uint32_t lane, index;
  };
  // Lanes record trace_ticks(): nanoseconds since origin_ at the rate over the trace's whole
  // duration, fixed at its first writing (the report's copy of the trace is the file's).
  if (ns_per_tick_ == 0.0) {
    const std::int64_t ticks = trace_ticks(), ns = now();
    ns_per_tick_ = trace_ticks_are_cycles() && ticks > tick_origin_
                       ? static_cast<double>(ns) / static_cast<double>(ticks - tick_origin_)
                       : 1.0;
  }
  const auto to_ns = [this](std::int64_t ticks) {
    return std::llround(static_cast<double>(ticks - tick_origin_) * ns_per_tick_);
  };
  // Each lane's tasks and waits are recorded in time order (checked); host and GPU spans as they
  // end, and counters by racing threads, so those are sorted. Then the runs are merged.
  const auto earlier = [](const Ref& a, const Ref& b) {
    return a.ts != b.ts ? a.ts < b.ts : (a.type == counter) < (b.type == counter);
  };
  std::vector<Ref> refs;
  std::vector<std::size_t> runs;
  const auto run_from = [&](std::size_t first) {
    const auto begin = refs.begin() + static_cast<std::ptrdiff_t>(first);
    if (!std::is_sorted(begin, refs.end(), earlier))
      std::stable_sort(begin, refs.end(), earlier);
    if (refs.size() > first)
      runs.push_back(first);
  };
  for (std::uint32_t w = 0; w < lanes_.size(); ++w) {
    std::size_t first = refs.size();
    for (std::uint32_t i = 0; i < lanes_[w]->tasks.size(); ++i)
      refs.push_back({to_ns(lanes_[w]->tasks[i].start), task, w, i});
    run_from(first);
    first = refs.size();
    for (std::uint32_t i = 0; i < lanes_[w]->waits.size(); ++i)
      refs.push_back({to_ns(lanes_[w]->waits[i].first), wait, w, i});
    run_from(first);
  }
  std::size_t first = refs.size();
  for (std::uint32_t i = 0; i < spans_.size(); ++i)
    refs.push_back({spans_[i].start, host, 0, i});
  run_from(first);
  first = refs.size();
  for (std::uint32_t i = 0; i < gpu_.size(); ++i)
    refs.push_back({gpu_[i].start, gpu, 0, i});
  run_from(first);
  first = refs.size();
  for (std::uint32_t i = 0; i < counters_.size(); ++i)
    refs.push_back({counters_[i].ts, counter, 0, i});
  run_from(first);
  runs.push_back(refs.size());
  merge_runs(refs, std::move(runs), earlier);
  const auto back = std::back_inserter(out);
  for (std::size_t k = 0; k < refs.size(); ++k) {
    const Ref& ref = refs[k];
    switch (ref.type) {
    case task: {
      const Lane::TaskRecord& r = lanes_[ref.lane]->tasks[ref.index];
      const Named* n = named(r.plan, r.task);
      const StageName* st = n ? &stages_[n->stage] : nullptr;
      const std::int64_t start = ref.ts, end = to_ns(r.end);
      if (st)
        append_complete(out, strings_[st->name], "task", host_pid, static_cast<int>(ref.lane),
                        start, end);
      else
        append_complete(out, json_string("task " + std::to_string(r.task)), "task", host_pid,
                        static_cast<int>(ref.lane), start, end);
      out += R"(,"args":{"kind":")";
      out += st ? st->kind : "task";
      out += '"';
      if (st && st->grid != no_block) {
        out += R"(,"block":")";
        if (st->grid == numbered_block)
          append_int(out, n->block);
        else
          plan::append_block_name(out, grids_[st->grid], n->block);
        out += '"';
      }
      out += R"(,"bytes":)";
      append_int(out, n ? bytes_of(*n) : 0);
      out += R"(,"task":)";
      append_int(out, r.task);
      out += R"(,"plan":)";
      append_int(out, r.plan);
      out += "}}";
      break;
    }
    case wait: {
      append_complete(out, "\"waiting for work\"", "wait", host_pid, static_cast<int>(ref.lane),
                      ref.ts, to_ns(lanes_[ref.lane]->waits[ref.index].second));
      out += '}';
      break;
    }
    case host: {
      const Host& h = spans_[ref.index];
      append_complete(out, json_string(h.name), h.category, host_pid, h.tid, h.start, h.end);
      out += '}';
      break;
    }
    case gpu: {
      const Gpu& g = gpu_[ref.index];
      append_complete(out, json_string(g.name), g.category, gpu_pid + g.device, g.stream, g.start,
                      g.end);
      fmt::format_to(back, FMT_COMPILE(R"(,"args":{{"task":{},"plan":{})"), g.task, g.plan);
      if (const Named* n = named(g.plan, g.task)) {
        out += R"(,"program":)";
        out += strings_[stages_[n->stage].name];
      }
      if (g.bytes > 0)
        fmt::format_to(back, FMT_COMPILE(R"(,"bytes":{})"), g.bytes);
      out += "}}";
      break;
    }
    case counter: {
      const Counter& c = counters_[ref.index];
      fmt::format_to(back, FMT_COMPILE(R"({{"ph":"C","name":"memory","pid":{},"tid":0,"ts":)"),
                     host_pid);
      append_micros(out, c.ts);
      fmt::format_to(back,
                     FMT_COMPILE(R"(,"args":{{"host":{},"pinned":{},"device":{},"spilled":{}}}}})"),
                     c.host, c.pinned, c.device, c.spilled);
      break;
    }
    }
    out += k + 1 < refs.size() ? ",\n" : "\n";
    if (out.size() >= flush_bytes)
      flush(out);
  }
  if (refs.empty() && out.size() >= 2 && out.compare(out.size() - 2, 2, ",\n") == 0)
    out.erase(out.size() - 2, 1); // no comma after the last metadata event
  out += "],\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"chunked\",\"backend\":";
  append_string(out, backend_);
  out += "}}\n";
  flush(out);
}

Trace* current_trace() { return current; }

int current_trace_lane() { return current_lane; }

TraceScope::TraceScope(Trace* trace, int lane) : previous_(current), previous_lane_(current_lane) {
  current = trace;
  current_lane = lane;
}

TraceScope::~TraceScope() {
  current = previous_;
  current_lane = previous_lane_;
}

} // namespace chunked::runtime
