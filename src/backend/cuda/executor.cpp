// SPDX-License-Identifier: Apache-2.0
// The CUDA executor: runs a plan's tasks on one worker per GPU, with generated kernels, device
// buffers that stay on the device between tasks, and pinned staging for host copies.
#include <chunked/backend/cuda/codegen.hpp>
#include <chunked/backend/cuda/compiler.hpp>
#include <chunked/backend/cuda/partials.hpp>
#include <chunked/backend/cuda/runtime.hpp>
#include <chunked/backend/cuda/runtime_api.hpp>
#include <chunked/plan/partial.hpp>
#include <chunked/runtime/parallel_for.hpp>
#include <chunked/runtime/scheduler.hpp>
#include <chunked/runtime/task_graph.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace chunked::cuda {

bool built() { return true; }

int usable_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

namespace {

using plan::BlockProgram;
using plan::InputRef;
using plan::Output;
using plan::TaskKind;

/// Most CUDA blocks of pass 1 of a reduction over every axis. Fixed, so that the fold order and
/// therefore the result depend on the box alone, never on the GPU model or count.
constexpr index_t max_reduce_parts = 1024;
constexpr index_t max_grid = 8192;
/// Compute streams per device when ComputeOptions::streams_per_device is 0: enough for the copies
/// of one task and the kernels of others to overlap, and for one kernel's tail to overlap the
/// next kernel's start.
constexpr int default_streams = 4;
/// Pinned staging buffers per device: while the GPU copies through one, the worker fills or
/// empties the others.
constexpr int staging_ring = 4;
/// Blocks cut into pieces written by several tasks (plan::TaskSplit) are the CPU backend's: on a
/// GPU one block's kernel already spreads over every multiprocessor.
constexpr const char* pieces_unsupported =
    "Cuda backend: plans with blocks cut into pieces are not supported (plan with the default "
    "plan::TaskSplit)";

std::size_t output_bytes(const Output& out, plan::ReduceOp op) {
  if (out.kind == Output::Kind::partial)
    return static_cast<std::size_t>(out.elements) * 8u *
           static_cast<std::size_t>(plan::partial_layout(op, out.dtype).words);
  return static_cast<std::size_t>(out.elements) * dtype_size(out.dtype);
}

unsigned grid_for(index_t n, index_t per_thread = 1) {
  const index_t threads = kernel::block_threads_host;
  const index_t blocks = (n + threads * per_thread - 1) / (threads * per_thread);
  return static_cast<unsigned>(std::clamp<index_t>(blocks, 1, max_grid));
}

/// The launch of a reduction along some axes (program.hpp's reduce_axes_kernel): 32 kept
/// positions per CUDA block for the wide kernel set (codegen's kernel_set), else one; and
/// segments that split the reduced positions until the grid holds about 2^18 threads, each
/// folding at least 16 positions. Derived from the box alone, so results never depend on the GPU.
struct AxesLaunch {
  bool wide = true;
  index_t blocks = 1;
  index_t segments = 1;
};

AxesLaunch axes_launch(const BlockProgram& p, index_t kept, index_t reduced) {
  constexpr index_t target_threads = index_t{1} << 18;
  constexpr index_t min_per_lane = 16;
  constexpr index_t max_segments = 65535; // CUDA's limit on gridDim.y
  const index_t threads = kernel::block_threads_host;
  AxesLaunch l;
  l.wide = kernel_set(p) == KernelSet::reduce_axes_wide;
  const index_t kx = l.wide ? 32 : 1;
  const index_t ry = threads / kx;
  l.blocks = (kept + kx - 1) / kx;
  const index_t wanted = (target_threads + l.blocks * threads - 1) / (l.blocks * threads);
  const index_t most = std::max<index_t>(1, reduced / (ry * min_per_lane));
  l.segments = std::clamp<index_t>(wanted, 1, std::min(most, max_segments));
  return l;
}

/// Where a dense block goes in a host destination: the block's extents and the destination's
/// index map.
struct Scatter {
  int ndim = 0;
  index_t extent[plan::max_ndim] = {};
  plan::AffineMap target;
};

/// Calls f(offset, step, len, j) for the rows of flat positions [t0, t1) of the block: positions
/// j .. j+len-1 (relative to t0) map to offset + step * k under the target map.
template <class F> void for_each_row(const Scatter& s, index_t t0, index_t t1, F&& f) {
  if (s.ndim == 0) {
    if (t0 < t1)
      f(s.target.base, index_t{0}, index_t{1}, index_t{0});
    return;
  }
  const int last = s.ndim - 1;
  index_t idx[plan::max_ndim] = {};
  index_t rest = t0;
  for (int k = last; k >= 0; --k) {
    idx[k] = rest % s.extent[k];
    rest /= s.extent[k];
  }
  for (index_t j = 0; t0 + j < t1;) {
    const index_t len = std::min(t1 - t0 - j, s.extent[last] - idx[last]);
    f(s.target.at(idx, s.ndim), s.target.coef[last], len, j);
    j += len;
    idx[last] = 0;
    for (int k = last - 1; k >= 0 && ++idx[k] == s.extent[k]; --k)
      idx[k] = 0;
  }
}

/// One pinned staging buffer of a device's ring, with the event of the last copy through it and
/// the host work that waits for that copy (spreading a downloaded piece into its destination).
struct StagingSlot {
  std::unique_ptr<PinnedBuffer> buffer;
  std::unique_ptr<Event> copied;
  std::function<void()> after_copy;
};

/// A stored input copied to one device for this computation, with the event that ends the copy
/// and the streams whose work has read it.
struct Upload {
  std::shared_ptr<Buffer> buffer;
  std::unique_ptr<Event> done;
  cudaStream_t stream = nullptr;
  std::vector<const Stream*> readers;
};

struct DeviceSlot {
  int id = 0;
  std::vector<Stream*> streams;
  std::vector<std::shared_ptr<Buffer>> scratch; // per stream: pass 1 states of reductions
  int next_stream = 0;
  std::shared_ptr<MemoryBudget> budget;
  StagingSlot ring[staging_ring];
  int next_staging = 0;
  std::mutex uploads_mutex;
  std::unordered_map<const Buffer*, Upload> uploads;         // stored inputs, per compute
  std::unordered_map<const Buffer*, std::size_t> reads_left; // by this device's tasks
  std::vector<Upload> retired; // freed once the running task's work is queued
  std::unordered_map<std::string, const Module*> modules; // by structure key

  Stream& stream(int lane) const { return *streams[static_cast<std::size_t>(lane)]; }
};

void wait_for(cudaStream_t stream, const Event& event, int device) {
  CHUNKED_CUDA_TRY(cudaStreamWaitEvent(stream, event.get(), 0), device, "(stream wait)");
}

class CudaExecutor final : public runtime::TaskExecutor {
public:
  CudaExecutor(const plan::Plan& plan, const std::vector<int>& devices,
               const ComputeOptions& options)
      : plan_(plan), outputs_(plan.tasks.size()), worker_(plan.tasks.size(), 0),
        done_(plan.tasks.size()), stream_of_(plan.tasks.size(), nullptr),
        consumers_(plan.tasks.size()) {
    const int streams =
        std::clamp(options.streams_per_device > 0 ? options.streams_per_device : default_streams, 1,
                   max_streams_per_device);
    for (int id : devices) {
      auto slot = std::make_unique<DeviceSlot>();
      slot->id = id;
      for (int k = 0; k < streams; ++k)
        slot->streams.push_back(&device_state(id).compute_stream(k));
      slot->scratch.resize(slot->streams.size());
      slot->budget = std::make_shared<MemoryBudget>();
      slot->budget->limit = options.device_memory_limit;
      if (slot->budget->limit == 0) {
        DeviceGuard guard(id);
        std::size_t free = 0, total = 0;
        CHUNKED_CUDA_TRY(cudaMemGetInfo(&free, &total), id, "");
        slot->budget->limit = free / 10 * 8;
      }
      slots_.push_back(std::move(slot));
    }
    assign_workers();
    count_stored_reads();
    for (std::size_t t = 0; t < plan_.tasks.size(); ++t)
      for (plan::TaskId dep : plan_.deps[t])
        consumers_[dep].push_back(static_cast<plan::TaskId>(t));
    for (const plan::Destination& dst : plan_.destinations)
      pinned_destination_.push_back(static_cast<char>(is_pinned(dst.data)));
  }

  /// After a failure: lets the work already queued finish before its buffers are freed, and
  /// gives the staging buffers back. Errors are not reported again here.
  ~CudaExecutor() override {
    for (auto& slot : slots_) {
      DeviceGuard guard(slot->id);
      for (Stream* s : slot->streams)
        cudaStreamSynchronize(s->get());
      cudaGetLastError();
      for (StagingSlot& staging : slot->ring)
        release_staging(std::move(staging.buffer));
    }
  }

  int worker_of(std::size_t task) const { return worker_[task]; }

  std::uint64_t run(runtime::TaskId id, int worker) override {
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    DeviceGuard guard(d.id);
    const plan::Task& task = plan_.tasks[id];
    // Tasks take the device's streams in turn; dependences between streams are events.
    const int lane = d.next_stream;
    d.next_stream = (d.next_stream + 1) % static_cast<int>(d.streams.size());
    Stream& s = d.stream(lane);
    std::vector<std::shared_ptr<Buffer>> temps; // used on s only, so freed in order on s
    switch (task.kind) {
    case TaskKind::program:
      run_program_task(id, task, d, lane, temps);
      break;
    case TaskKind::gather:
      run_gather(id, task, d, lane, temps);
      break;
    case TaskKind::combine:
      run_combine(id, task, d, lane, temps);
      break;
    case TaskKind::join:
      throw BackendError(pieces_unsupported);
    }
    auto done = std::make_unique<Event>(d.id);
    done->record(s);
    stream_of_[id] = s.get();
    done_[id] = std::move(done);
    free_retired_uploads(d);
    return plan_.work_bytes(id);
  }

  void release(runtime::TaskId id) override {
    std::shared_ptr<Buffer> buffer = std::move(outputs_[id]);
    const auto* device_buffer = dynamic_cast<const DeviceBuffer*>(buffer.get());
    if (!device_buffer)
      return;
    // The free is ordered on the buffer's stream: after the consumers that ran on other streams.
    for (plan::TaskId c : consumers_[id])
      if (done_[c] && stream_of_[c] != device_buffer->stream())
        wait_for(device_buffer->stream(), *done_[c], device_buffer->space().device);
  }

  /// Waits for every device and finishes the host side of downloads; the result blocks.
  std::vector<std::shared_ptr<Buffer>> finish() {
    for (auto& slot : slots_) {
      DeviceGuard guard(slot->id);
      for (Stream* s : slot->streams)
        s->synchronize("(end of compute)");
      for (StagingSlot& staging : slot->ring)
        settle(staging);
    }
    return std::move(outputs_);
  }

private:
  void assign_workers() {
    const auto ndev = static_cast<index_t>(slots_.size());
    auto producer_worker = [&](const InputRef& ref) {
      return ref.kind == InputRef::Kind::task ? worker_[ref.task] : -1;
    };
    for (std::size_t t = 0; t < plan_.tasks.size(); ++t) {
      const plan::Task& task = plan_.tasks[t];
      int w = -1;
      if (task.kind == TaskKind::program) {
        const index_t nb = std::max<index_t>(plan_.stages[task.index].grid.numblocks(), 1);
        w = static_cast<int>(task.block * ndev / nb);
      } else if (task.kind == TaskKind::gather) {
        for (const auto& piece : plan_.gathers[task.index])
          if ((w = producer_worker(piece.source)) >= 0)
            break;
      } else {
        for (std::uint32_t j = task.inputs_begin; j < task.inputs_end && w < 0; ++j)
          w = producer_worker(plan_.combine_inputs[j]);
      }
      worker_[t] = std::clamp(w, 0, static_cast<int>(ndev) - 1);
    }
  }

  /// How many times each device's tasks will read each stored input, so that a device copy can
  /// go as soon as its last reader is queued.
  void count_stored_reads() {
    auto count = [&](std::size_t t, const InputRef& ref) {
      if (ref.kind == InputRef::Kind::stored)
        ++slots_[static_cast<std::size_t>(worker_[t])]->reads_left[ref.stored];
    };
    for (std::size_t t = 0; t < plan_.tasks.size(); ++t) {
      const plan::Task& task = plan_.tasks[t];
      if (task.kind == TaskKind::program)
        for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
          count(t, plan_.inputs[j].ref);
      else if (task.kind == TaskKind::gather)
        for (const auto& piece : plan_.gathers[task.index])
          count(t, piece.source);
      else
        for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
          count(t, plan_.combine_inputs[j]);
    }
  }

  /// Frees the device copies of stored inputs retired by the task just queued: each free is
  /// ordered on the copy's stream, after everything queued so far on the streams that read it.
  static void free_retired_uploads(DeviceSlot& d) {
    std::lock_guard lock(d.uploads_mutex);
    for (Upload& u : d.retired) {
      const auto* buffer = dynamic_cast<const DeviceBuffer*>(u.buffer.get());
      for (const Stream* reader : u.readers)
        if (buffer && reader->get() != buffer->stream()) {
          Event read(d.id);
          read.record(*reader);
          wait_for(buffer->stream(), read, d.id);
        }
    }
    d.retired.clear();
  }

  std::shared_ptr<Buffer> allocate(DeviceSlot& d, int lane, std::size_t bytes) {
    return std::make_shared<DeviceBuffer>(d.id, bytes, d.budget, &d.stream(lane));
  }

  /// Waits for the slot's last copy and does the host work that waited for it.
  static void settle(StagingSlot& slot) {
    if (!slot.copied)
      return; // never used
    slot.copied->synchronize();
    if (auto work = std::exchange(slot.after_copy, nullptr))
      work();
  }

  /// The next staging buffer of the ring, free for a new copy.
  StagingSlot& next_staging(DeviceSlot& d) {
    StagingSlot& slot = d.ring[d.next_staging];
    d.next_staging = (d.next_staging + 1) % staging_ring;
    if (!slot.buffer) {
      slot.buffer = acquire_staging();
      slot.copied = std::make_unique<Event>(d.id);
    } else {
      settle(slot);
    }
    return slot;
  }

  /// A device copy of a host buffer, enqueued on the lane's stream: straight from pinned memory,
  /// else through the staging ring in pieces.
  std::shared_ptr<Buffer> upload(DeviceSlot& d, int lane, const Buffer& host) {
    Stream& s = d.stream(lane);
    auto dev = allocate(d, lane, host.bytes());
    if (dynamic_cast<const PinnedBuffer*>(&host)) {
      CHUNKED_CUDA_TRY(
          cudaMemcpyAsync(dev->data(), host.data(), host.bytes(), cudaMemcpyHostToDevice, s.get()),
          d.id, fmt::format("(upload of {} bytes)", host.bytes()));
      return dev;
    }
    const auto* src = static_cast<const char*>(host.data());
    for (std::size_t off = 0; off < host.bytes(); off += staging_bytes) {
      const std::size_t n = std::min(staging_bytes, host.bytes() - off);
      StagingSlot& slot = next_staging(d);
      std::memcpy(slot.buffer->data(), src + off, n);
      CHUNKED_CUDA_TRY(cudaMemcpyAsync(static_cast<char*>(dev->data()) + off, slot.buffer->data(),
                                       n, cudaMemcpyHostToDevice, s.get()),
                       d.id, fmt::format("(upload of {} bytes)", n));
      slot.copied->record(s);
    }
    return dev;
  }

  /// A copy on this device of a buffer on another device.
  std::shared_ptr<Buffer> copy_from_peer(DeviceSlot& d, int lane, const Buffer& src) {
    Stream& s = d.stream(lane);
    auto dev = allocate(d, lane, src.bytes());
    CHUNKED_CUDA_TRY(
        cudaMemcpyPeerAsync(dev->data(), d.id, src.data(), src.space().device, src.bytes(),
                            s.get()),
        d.id, fmt::format("(copy of {} bytes from device {})", src.bytes(), src.space().device));
    return dev;
  }

  /// The device pointer of an input on this device, after the lane's stream has been ordered
  /// after the work that produced it.
  const void* device_pointer(DeviceSlot& d, int lane, const InputRef& ref,
                             std::vector<std::shared_ptr<Buffer>>& temps) {
    Stream& s = d.stream(lane);
    if (ref.kind == InputRef::Kind::task) {
      const Buffer* buf = outputs_[ref.task].get();
      if (!buf)
        throw BackendError("Cuda backend: a task input is missing (released too early)");
      if (stream_of_[ref.task] != s.get())
        wait_for(s.get(), *done_[ref.task], d.id);
      const MemorySpace space = buf->space();
      if (space.kind == MemorySpace::Kind::device && space.device == d.id)
        return buf->data();
      temps.push_back(space.kind == MemorySpace::Kind::host ? upload(d, lane, *buf)
                                                            : copy_from_peer(d, lane, *buf));
      return temps.back()->data();
    }
    const Buffer* buf = ref.stored;
    const MemorySpace space = buf->space();
    if (space.kind == MemorySpace::Kind::device && space.device == d.id)
      return buf->data();
    std::lock_guard lock(d.uploads_mutex);
    const auto it = d.uploads.try_emplace(buf).first;
    Upload& cached = it->second;
    if (!cached.buffer) {
      cached.buffer = space.kind == MemorySpace::Kind::host ? upload(d, lane, *buf)
                                                            : copy_from_peer(d, lane, *buf);
      cached.done = std::make_unique<Event>(d.id);
      cached.done->record(s);
      cached.stream = s.get();
    } else if (cached.stream != s.get()) {
      wait_for(s.get(), *cached.done, d.id);
    }
    if (std::find(cached.readers.begin(), cached.readers.end(), &s) == cached.readers.end())
      cached.readers.push_back(&s);
    const void* data = cached.buffer->data();
    // The copy stays for this device's later readers while they exist and it leaves half the
    // budget to the computation's own buffers; else it goes once this task is queued, and a
    // later reader copies the block again. Keeping every copy would hold the whole input on the
    // device: a / a.sum() of an array larger than the budget would then fail, not stream.
    std::size_t& left = d.reads_left[buf];
    left = left > 0 ? left - 1 : 0;
    if (left == 0 || d.budget->used.load() > d.budget->limit / 2) {
      d.retired.push_back(std::move(cached));
      d.uploads.erase(it);
    }
    return data;
  }

  const Module& module_for(DeviceSlot& d, const BlockProgram& p) {
    const KernelSet set = kernel_set(p);
    std::string key = module_key(p, set);
    auto it = d.modules.find(key);
    if (it != d.modules.end())
      return *it->second;
    const Module* loaded = find_module(d.id, key);
    const Module& m = loaded ? *loaded : get_module(d.id, key, generate_source(p, set));
    d.modules.emplace(std::move(key), &m);
    return m;
  }

  /// The lane's scratch, at least `bytes` large. Kernels on the lane's stream use it one after
  /// the other, so one buffer per stream serves them all; a larger one replaces it in order.
  void* scratch(DeviceSlot& d, int lane,
                std::size_t bytes = static_cast<std::size_t>(max_reduce_parts) * 3 * 8) {
    auto& buffer = d.scratch[static_cast<std::size_t>(lane)];
    if (!buffer || buffer->bytes() < bytes)
      buffer = allocate(d, lane, bytes);
    return buffer->data();
  }

  /// Launches `p` writing to `out` (values for store sinks, partial words for reduce sinks).
  void run_kernel(DeviceSlot& d, int lane, const BlockProgram& p,
                  const std::vector<const void*>& inputs, void* out) {
    const Stream& s = d.stream(lane);
    const index_t size = p.size();
    const bool reduce = p.sink.kind == plan::Sink::Kind::reduce;
    if (size == 0) {
      if (reduce)
        init_partials(p.sink.op, p.result_dtype(), out, p.sink.num_partials, s);
      return;
    }
    const Module& m = module_for(d, p);
    kernel::ProgramArgs args =
        make_args(p, inputs.data(), out, reduce ? scratch(d, lane) : nullptr);
    void* params[] = {&args, nullptr};
    if (!reduce) {
      launch(m.function(kernel_store), grid_for(size), kernel::block_threads_host, params, s,
             "store");
      return;
    }
    if (args.kept != p.sink.num_partials)
      init_partials(p.sink.op, p.result_dtype(), out, p.sink.num_partials, s);
    if (args.kept == 1) {
      // Rows of at least 2048 elements (at most 1/8 of a row's threads idle at its end) and at
      // least 256 of them: each CUDA block folds whole rows; else a grid-wide stride.
      const index_t inner = p.ndim >= 2 ? p.extent[p.ndim - 1] : 0;
      const index_t rows = inner > 0 ? size / inner : 0;
      long long rows_per_part = 0;
      int parts = static_cast<int>(std::clamp<index_t>((size + 2047) / 2048, 1, max_reduce_parts));
      if (inner >= 2048 && rows >= 256) {
        rows_per_part = (rows + max_reduce_parts - 1) / max_reduce_parts;
        parts = static_cast<int>((rows + rows_per_part - 1) / rows_per_part);
      }
      void* pass1_params[] = {&args, &rows_per_part, nullptr};
      launch(m.function(kernel_reduce_all), static_cast<unsigned>(parts),
             kernel::block_threads_host, pass1_params, s, "reduce pass 1");
      void* final_params[] = {&args, &parts, nullptr};
      launch(m.function(kernel_reduce_final), 1, kernel::block_threads_host, final_params, s,
             "reduce pass 2");
    } else {
      const AxesLaunch shape = axes_launch(p, args.kept, args.reduced);
      int segments = static_cast<int>(shape.segments);
      if (segments > 1)
        args.scratch = scratch(
            d, lane,
            static_cast<std::size_t>(segments * args.kept) * 8u *
                static_cast<std::size_t>(plan::partial_layout(p.sink.op, p.result_dtype()).words));
      launch(m.function(shape.wide ? kernel_reduce_axes_wide : kernel_reduce_axes_narrow),
             static_cast<unsigned>(shape.blocks), kernel::block_threads_host, params, s,
             "axis reduce", static_cast<unsigned>(segments));
      if (segments > 1) {
        void* final_params[] = {&args, &segments, nullptr};
        // One warp per kept position (reduce_axes_final_kernel).
        launch(m.function(kernel_reduce_axes_final), grid_for(args.kept * 32),
               kernel::block_threads_host, final_params, s, "axis reduce segments");
      }
    }
  }

  std::uint64_t run_program_task(runtime::TaskId id, const plan::Task& task, DeviceSlot& d,
                                 int lane, std::vector<std::shared_ptr<Buffer>>& temps) {
    thread_local BlockProgram program;
    plan_.instantiate(id, program);
    std::vector<const void*> inputs;
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
      inputs.push_back(device_pointer(d, lane, plan_.inputs[j].ref, temps));
    if (task.output.kind != Output::Kind::destination) {
      const std::size_t bytes = output_bytes(task.output, program.sink.op);
      auto out = allocate(d, lane, bytes);
      run_kernel(d, lane, program, inputs, out->data());
      outputs_[id] = std::move(out);
      return bytes;
    }
    // Destination: compute the block densely on the device, then download it through the staging
    // ring; each piece is spread into host memory once its copy is done, while later work runs.
    const std::size_t esize = dtype_size(task.output.dtype);
    const index_t size = program.size();
    Scatter scatter;
    scatter.ndim = program.ndim;
    scatter.target = program.sink.map;
    index_t stride = 1;
    program.sink.map = plan::AffineMap{};
    for (int k = program.ndim; k-- > 0;) {
      scatter.extent[k] = program.extent[k];
      program.sink.map.coef[k] = stride;
      stride *= program.extent[k];
    }
    auto block = allocate(d, lane, static_cast<std::size_t>(size) * esize);
    run_kernel(d, lane, program, inputs, block->data());
    Stream& s = d.stream(lane);
    auto* dst = static_cast<char*>(plan_.destinations[task.output.destination].data);
    if (pinned_destination_[task.output.destination] &&
        copy_to_pinned(d, s, scatter, block->data(), dst, esize)) {
      temps.push_back(std::move(block));
      return static_cast<std::uint64_t>(size) * esize;
    }
    const index_t piece = static_cast<index_t>(staging_bytes / esize);
    for (index_t t0 = 0; t0 < size; t0 += piece) {
      const index_t t1 = std::min(size, t0 + piece);
      StagingSlot& slot = next_staging(d);
      CHUNKED_CUDA_TRY(cudaMemcpyAsync(slot.buffer->data(),
                                       static_cast<char*>(block->data()) + t0 * esize,
                                       static_cast<std::size_t>(t1 - t0) * esize,
                                       cudaMemcpyDeviceToHost, s.get()),
                       d.id, fmt::format("(copy of {} bytes to the host)", (t1 - t0) * esize));
      slot.copied->record(s);
      const auto* src = static_cast<const char*>(slot.buffer->data());
      slot.after_copy = [scatter, t0, t1, esize, dst, src] {
        for_each_row(scatter, t0, t1, [&](index_t offset, index_t step, index_t len, index_t j) {
          if (step == 1) {
            std::memcpy(dst + offset * esize, src + j * esize,
                        static_cast<std::size_t>(len) * esize);
          } else {
            for (index_t k = 0; k < len; ++k)
              std::memcpy(dst + (offset + k * step) * esize, src + (j + k) * esize, esize);
          }
        });
      };
    }
    temps.push_back(std::move(block)); // freed on s, after the copies
    return static_cast<std::uint64_t>(size) * esize;
  }

  /// Copies a dense block straight into pinned (page-locked) host memory with 2-D copies, one
  /// per index of the axes before the last two; false (nothing done) when the destination's rows
  /// are not increasing and unit-stride, which the staging path handles.
  static bool copy_to_pinned(DeviceSlot& d, Stream& s, const Scatter& scatter, const void* block,
                             char* dst, std::size_t esize) {
    const int nd = scatter.ndim;
    const plan::AffineMap& m = scatter.target;
    const index_t width = nd > 0 ? scatter.extent[nd - 1] : 1;
    const index_t height = nd > 1 ? scatter.extent[nd - 2] : 1;
    const index_t pitch = nd > 1 ? m.coef[nd - 2] : width;
    if (nd > 0 && m.coef[nd - 1] != 1)
      return false;
    if (height > 1 && pitch < width)
      return false;
    for (int k = 0; k + 2 < nd; ++k)
      if (m.coef[k] < 0)
        return false;
    index_t outer = 1;
    for (int k = 0; k + 2 < nd; ++k)
      outer *= scatter.extent[k];
    index_t idx[plan::max_ndim] = {};
    const auto* src = static_cast<const char*>(block);
    for (index_t o = 0; o < outer; ++o) {
      index_t rest = o;
      for (int k = nd - 3; k >= 0; --k) {
        idx[k] = rest % scatter.extent[k];
        rest /= scatter.extent[k];
      }
      const std::size_t row_bytes = static_cast<std::size_t>(width) * esize;
      CHUNKED_CUDA_TRY(
          cudaMemcpy2DAsync(dst + m.at(idx, nd) * esize,
                            static_cast<std::size_t>(height > 1 ? pitch : width) * esize,
                            src + static_cast<std::size_t>(o * height) * row_bytes, row_bytes,
                            row_bytes, static_cast<std::size_t>(height), cudaMemcpyDeviceToHost,
                            s.get()),
          d.id, fmt::format("(copy of {} x {} bytes to pinned host memory)", height, row_bytes));
    }
    return true;
  }

  static bool is_pinned(const void* host) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return attributes.type == cudaMemoryTypeHost;
  }

  std::uint64_t run_gather(runtime::TaskId id, const plan::Task& task, DeviceSlot& d, int lane,
                           std::vector<std::shared_ptr<Buffer>>& temps) {
    const std::size_t bytes = output_bytes(task.output, plan::ReduceOp::sum);
    auto out = allocate(d, lane, bytes);
    for (const auto& piece : plan_.gathers[task.index]) {
      const std::vector<const void*> in{device_pointer(d, lane, piece.source, temps)};
      run_kernel(d, lane, piece.program, in, out->data());
    }
    outputs_[id] = std::move(out);
    return bytes;
  }

  std::uint64_t run_combine(runtime::TaskId id, const plan::Task& task, DeviceSlot& d, int lane,
                            std::vector<std::shared_ptr<Buffer>>& temps) {
    const Stream& s = d.stream(lane);
    const plan::Combine& c = plan_.combines[task.index];
    const index_t n = task.output.elements;
    const auto layout = plan::partial_layout(c.op, c.input);
    const std::size_t partial_bytes =
        static_cast<std::size_t>(n) * 8u * static_cast<std::size_t>(layout.words);
    std::vector<const void*> inputs;
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
      inputs.push_back(device_pointer(d, lane, plan_.combine_inputs[j], temps));
    auto acc = allocate(d, lane, partial_bytes);
    combine_partials(c.op, c.input, inputs, acc->data(), n, s);
    if (task.output.kind == Output::Kind::partial) {
      outputs_[id] = std::move(acc);
      return partial_bytes;
    }
    const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(task.output.dtype);
    auto out = allocate(d, lane, bytes);
    finalize_partials(c.op, c.result, c.input, acc->data(), n, c.count, c.ddof, out->data(), s);
    outputs_[id] = std::move(out);
    return bytes;
  }

  const plan::Plan& plan_;
  std::vector<std::unique_ptr<DeviceSlot>> slots_;
  std::vector<std::shared_ptr<Buffer>> outputs_;
  std::vector<int> worker_;
  /// Per task, once it ran: the event after its work and the stream it ran on.
  std::vector<std::unique_ptr<Event>> done_;
  std::vector<cudaStream_t> stream_of_;
  std::vector<std::vector<plan::TaskId>> consumers_;
  /// Per destination: page-locked host memory, which copies reach without staging.
  std::vector<char> pinned_destination_;
};

std::vector<int> select_devices(const ComputeOptions& options) {
  const int count = usable_device_count();
  if (count == 0)
    throw BackendError(
        "Cuda backend: no CUDA device is visible; use chunked::Auto for CPU fallback");
  std::vector<int> devices = options.devices;
  if (devices.empty())
    for (int i = 0; i < count; ++i)
      devices.push_back(i);
  for (int id : devices)
    if (id < 0 || id >= count)
      throw BackendError(fmt::format("Cuda backend: ComputeOptions::devices names device {}, but "
                                     "devices 0 to {} are visible",
                                     id, count - 1));
  return devices;
}

/// Compiles the modules a plan's tasks launch for every device before any task runs, on
/// several threads: NVRTC compiles one module on one thread, so a first run of a plan with
/// several programs then waits for its slowest compile rather than for their sum. Tasks of one
/// stage differ only in their box, so the kernel sets of its first and last blocks (the ragged
/// edge) stand for all of them; a set met later compiles when first launched.
void prepare_modules(const plan::Plan& plan, const std::vector<int>& devices) {
  std::vector<std::pair<std::string, std::string>> jobs; // module key, source
  std::unordered_set<std::string> seen;
  auto add = [&](const BlockProgram& p) {
    if (p.size() == 0)
      return; // launches nothing
    const KernelSet set = kernel_set(p);
    std::string key = module_key(p, set);
    if (!seen.insert(key).second)
      return;
    // Source text only for what some device has not loaded yet: a warm run makes none.
    for (int device : devices)
      if (!find_module(device, key)) {
        jobs.emplace_back(std::move(key), generate_source(p, set));
        return;
      }
  };
  std::vector<plan::TaskId> first(plan.stages.size(), ~plan::TaskId{0}), last = first;
  for (std::size_t t = 0; t < plan.tasks.size(); ++t) {
    const plan::Task& task = plan.tasks[t];
    if (task.kind != TaskKind::program)
      continue;
    if (first[task.index] == ~plan::TaskId{0})
      first[task.index] = static_cast<plan::TaskId>(t);
    last[task.index] = static_cast<plan::TaskId>(t);
  }
  BlockProgram program;
  for (std::size_t st = 0; st < plan.stages.size(); ++st)
    for (const plan::TaskId t : {first[st], last[st]})
      if (t != ~plan::TaskId{0}) {
        plan.instantiate(t, program);
        add(program);
      }
  for (std::size_t t = 0; t < plan.tasks.size(); ++t) {
    const plan::Task& task = plan.tasks[t];
    if (task.kind == TaskKind::gather) {
      for (const auto& piece : plan.gathers[task.index])
        add(piece.program);
    }
  }
  if (jobs.size() < 2)
    return; // nothing to overlap: the first launch compiles it
  runtime::parallel_for(jobs.size() * devices.size(), runtime::hardware_threads(),
                        [&](std::size_t i) {
                          const auto& [key, source] = jobs[i / devices.size()];
                          get_module(devices[i % devices.size()], key, source);
                        });
}

} // namespace

std::vector<std::shared_ptr<Buffer>> execute(const plan::Plan& plan,
                                             const ComputeOptions& options) {
  for (const plan::Task& task : plan.tasks)
    if (task.kind == TaskKind::join)
      throw BackendError(pieces_unsupported);
  const std::vector<int> devices = select_devices(options);
  prepare_modules(plan, devices);
  CudaExecutor exec(plan, devices, options);
  runtime::TaskGraph graph;
  graph.reserve(plan.tasks.size(), 0);
  for (std::size_t i = 0; i < plan.tasks.size(); ++i)
    graph.add(plan.deps[i], exec.worker_of(i), plan.tasks[i].kind == TaskKind::program);
  runtime::run_graph(graph, exec, static_cast<int>(devices.size()), options);
  return exec.finish();
}

} // namespace chunked::cuda
