// SPDX-License-Identifier: Apache-2.0
// The CUDA executor: runs a plan's tasks on one worker per GPU. It only orchestrates: which device
// and stream a task runs on, the events that order streams, and which kernels a task launches.
// Memory (buffers, staging, the stored-input cache), launch geometry and the JIT are layers of
// their own (memory.hpp, launch_geometry.hpp, jit.hpp).
#include "backend/cuda/background_compiles.hpp"
#include "backend/cuda/blas.hpp"
#include "backend/cuda/copy_rows.hpp"
#include "backend/cuda/gpu_trace.hpp"
#include "backend/cuda/host_io.hpp"
#include "backend/cuda/interpreter.hpp"
#include "backend/cuda/jit.hpp"
#include "backend/cuda/launch_geometry.hpp"
#include "backend/cuda/launch_program.hpp"
#include "backend/cuda/memory.hpp"

#include "backend/cuda/partials.hpp"
#include "backend/cuda/runtime.hpp"
#include "backend/cuda/runtime_api.hpp"
#include "backend/cuda/scan.hpp"
#include "backend/cuda/user_errors.hpp"
#include "backend/cuda/user_stream.hpp"
#include "plan/partial.hpp"
#include "runtime/block_io_call.hpp"
#include "runtime/distributed/distribution.hpp"
#include "runtime/partition.hpp"
#include "runtime/plan_executor.hpp"
#include "runtime/user_call.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <utility>

namespace chunked::cuda {

namespace {

using plan::BlockProgram;
using plan::InputRef;
using plan::Output;
using plan::TaskKind;
using runtime::output_bytes;

/// Compute streams per device when ComputeOptions::streams_per_device is 0: enough for the copies
/// of one task and the kernels of others to overlap, and for one kernel's tail to overlap the
/// next kernel's start.
constexpr int default_streams = 4;
/// Blocks cut into pieces written by several tasks (plan::TaskSplit) are the CPU backend's: on a
/// GPU one block's kernel already spreads over every multiprocessor.
constexpr const char* pieces_unsupported =
    "Cuda backend: plans with blocks cut into pieces are not supported (plan with the default "
    "plan::TaskSplit)";

/// One device's part of a computation. Its tasks run on one worker, one at a time, so the
/// running task's lane and temporaries live here.
struct DeviceSlot {
  DeviceSlot(int device, const ComputeOptions& options)
      : memory(device, options.device_memory_limit, options.device_memory_resource,
               options.pinned_memory_resource) {}

  DeviceMemory memory;
  std::vector<Stream*> streams;
  std::vector<std::shared_ptr<Buffer>> scratch; ///< per stream: pass 1 states of reductions
  int next_stream = 0;
  int lane = 0; ///< the running task's stream
  /// The running task's buffers, used on its stream only, so freed in order on it.
  std::vector<std::shared_ptr<Buffer>> temps;

  int id() const { return memory.device(); }
  Stream& stream() const { return *streams[static_cast<std::size_t>(lane)]; }
};

class CudaExecutor final : public runtime::PlanExecutor {
public:
  CudaExecutor(const plan::Plan& plan, const std::vector<int>& devices,
               const ComputeOptions& options)
      : PlanExecutor(plan), timeline_(runtime::current_trace()), outputs_(plan.tasks.size()),
        worker_(plan.tasks.size(), 0), done_(plan.tasks.size()),
        stream_of_(plan.tasks.size(), nullptr), consumers_(runtime::consumer_lists(plan)),
        written_by_finalize_(plan.tasks.size(), 0), user_stream_(options.stream), io_(plan) {
    const int streams =
        std::clamp(options.streams_per_device > 0 ? options.streams_per_device : default_streams, 1,
                   max_streams_per_device);
    for (int id : devices) {
      auto slot = std::make_unique<DeviceSlot>(id, options);
      for (int k = 0; k < streams; ++k) {
        slot->streams.push_back(&device_state(id).compute_stream(k));
        timeline_.add_stream(*slot->streams.back(), k);
      }
      slot->scratch.resize(slot->streams.size());
      slots_.push_back(std::move(slot));
    }
    // Tasks go to devices by the fixed partition that spreads them over a cluster's ranks too.
    worker_ = runtime::partition_tasks(plan_, static_cast<int>(slots_.size()));
    // How many times each device's tasks read each stored input, so that a device copy can go
    // as soon as its last reader is queued.
    for (std::size_t t = 0; t < plan_.tasks.size(); ++t)
      runtime::for_each_input(plan_, t, [&](const InputRef& ref) {
        if (ref.kind == InputRef::Kind::stored &&
            runtime::task_runs_here(static_cast<plan::TaskId>(t)))
          slots_[static_cast<std::size_t>(worker_[t])]->memory.expect_read(ref.stored);
      });
    for (const plan::Destination& dst : plan_.destinations)
      pinned_destination_.push_back(static_cast<char>(is_pinned_host(dst.data)));
    // Values that a copy task would only move into a caller's destination (x.sum().item()) go
    // there straight from the finalize of the task that reduced them (a combine, or a block's
    // own program task): no store kernel, no second device block.
    BlockProgram copy;
    for (std::size_t t = 0; t < plan_.tasks.size(); ++t)
      if (plan::finalizing_combine(plan_, plan_.tasks[t]))
        if (const auto to =
                runtime::destination_copy(plan_, static_cast<plan::TaskId>(t), consumers_[t], copy))
          written_by_finalize_[*to] = 1;
    // Before any work of this computation is queued: it all comes after the user's stream's.
    user_stream_.precede(library_streams());
  }

  /// After a failure: lets the work already queued finish before its buffers are freed (the
  /// staging buffers go back with the slots). Errors are not reported again here.
  ~CudaExecutor() override {
    for (auto& slot : slots_) {
      DeviceGuard guard(slot->id());
      for (Stream* s : slot->streams)
        cudaStreamSynchronize(s->get());
      cudaGetLastError();
    }
  }

  /// Per task, the worker (device slot) it is pinned to.
  const std::vector<int>& workers() const { return worker_; }
  /// Per task, whether it runs nothing: a copy into a destination that a finalize wrote.
  const std::vector<std::uint8_t>& skipped() const { return written_by_finalize_; }

  std::uint64_t run(runtime::TaskId id, int worker) override {
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    DeviceGuard guard(d.id());
    io_.check(); // a failed write stops the computation at the next task
    // Tasks take the device's streams in turn; dependences between streams are events.
    d.lane = d.next_stream;
    d.next_stream = (d.next_stream + 1) % static_cast<int>(d.streams.size());
    d.temps.clear();
    {
      const GpuTimeline::Scope traced(timeline_, id, plan::task_kind_name(plan_.tasks[id].kind));
      dispatch(id, worker);
    }
    Stream& s = d.stream();
    auto done = std::make_unique<Event>(d.id());
    done->record(s);
    stream_of_[id] = s.get();
    done_[id] = std::move(done);
    d.memory.free_retired_uploads();
    d.temps.clear();
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

  /// A received output stays in the host memory it arrived in (page-locked): the tasks that read
  /// it upload it as any host input.
  void adopt_output(runtime::TaskId id, std::shared_ptr<Buffer> buffer) override {
    outputs_[id] = std::move(buffer);
  }
  /// Waits for the task's work, then copies its output to page-locked host memory.
  std::shared_ptr<const Buffer> host_output(runtime::TaskId id, int) override {
    if (done_[id])
      done_[id]->synchronize();
    const std::shared_ptr<Buffer>& buffer = outputs_[id];
    if (buffer->space().kind == MemorySpace::Kind::host)
      return buffer;
    return download(*buffer);
  }

  /// Waits for every device and finishes the host side of downloads; the result blocks.
  std::vector<std::shared_ptr<Buffer>> finish() {
    // Later work on the user's stream comes after this computation's (results in device memory).
    user_stream_.follow(library_streams());
    for (auto& slot : slots_) {
      DeviceGuard guard(slot->id());
      for (Stream* s : slot->streams)
        s->synchronize("(end of compute)");
      slot->memory.settle_staging();
    }
    io_.finish();
    if (timeline_.on())
      timeline_.collect();
    return std::move(outputs_);
  }

private:
  /// The compute streams of every device this computation uses.
  std::vector<Stream*> library_streams() const {
    std::vector<Stream*> all;
    for (const auto& slot : slots_)
      all.insert(all.end(), slot->streams.begin(), slot->streams.end());
    return all;
  }

  /// The device pointer of an input on this device, after the task's stream has been ordered
  /// after the work that produced it.
  const void* device_pointer(DeviceSlot& d, const InputRef& ref) {
    const Stream& s = d.stream();
    if (ref.kind == InputRef::Kind::stored)
      return d.memory.stored_input(*ref.stored, s);
    const Buffer* buf = outputs_[ref.task].get();
    if (!buf)
      throw BackendError("Cuda backend: a task input is missing (released too early)");
    if (done_[ref.task] && stream_of_[ref.task] != s.get()) // none: received from another rank
      wait_for(s.get(), *done_[ref.task], d.id());
    const MemorySpace space = buf->space();
    if (space.kind == MemorySpace::Kind::device && space.device == d.id())
      return buf->data();
    d.temps.push_back(space.kind == MemorySpace::Kind::host ? d.memory.upload(*buf, s)
                                                            : d.memory.copy_from_peer(*buf, s));
    return d.temps.back()->data();
  }

  /// Whether `ref` is a region of borrowed memory (from_host_view, from_device) that this device
  /// reads from a packed copy (device_pointer made it): host memory, or another device's.
  static bool copies_borrowed_region(const DeviceSlot& d, const InputRef& ref) {
    if (ref.kind != InputRef::Kind::stored ||
        !dynamic_cast<const plan::BorrowedRegion*>(ref.stored))
      return false;
    const MemorySpace space = ref.stored->space();
    return !(space.kind == MemorySpace::Kind::device && space.device == d.id());
  }

  /// The lane's scratch, at least `bytes` large. Kernels on the lane's stream use it one after
  /// the other, so one buffer per stream serves them all; a larger one replaces it in order.
  static void* scratch(DeviceSlot& d, std::size_t bytes = default_scratch_bytes) {
    auto& buffer = d.scratch[static_cast<std::size_t>(d.lane)];
    if (!buffer || buffer->bytes() < bytes)
      buffer = d.memory.allocate(bytes, d.stream());
    return buffer->data();
  }

  /// Launches `p` on the task's stream, writing to `out` (values for store sinks, partial words
  /// for reduce sinks), with the lane's scratch.
  static void run_kernel(DeviceSlot& d, const BlockProgram& p, std::span<const void* const> inputs,
                         void* out) {
    launch_program(d.id(), d.stream(), p, inputs, out,
                   [&d](std::size_t bytes) { return scratch(d, bytes); });
  }

  /// Copies the dense block of `size` values into destination `destination` where `scatter`
  /// places it; the block is freed on the task's stream after the copies.
  void download_into(DeviceSlot& d, int destination, std::shared_ptr<Buffer> block, index_t size,
                     std::size_t esize, const Scatter& scatter) {
    const plan::Destination& to = plan_.destinations[static_cast<std::size_t>(destination)];
    auto* dst = static_cast<char*>(to.data);
    if (to.space.kind == MemorySpace::Kind::device) { // to_device: no trip through the host
      d.memory.copy_to_device(block->data(), esize, scatter, dst, to.space.device, d.stream());
      d.temps.push_back(std::move(block));
      return;
    }
    d.memory.download(block->data(), size, esize, scatter, dst,
                      pinned_destination_[static_cast<std::size_t>(destination)] != 0, d.stream());
    d.temps.push_back(std::move(block));
  }

  void run_program(runtime::TaskId id, const plan::Task& task, int worker) override {
    if (written_by_finalize_[id])
      return; // the task it copies finalized straight into the destination
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    thread_local BlockProgram program;
    thread_local std::vector<const void*> inputs;
    plan_.instantiate(id, program);
    inputs.clear();
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j) {
      const plan::TaskInput& in = plan_.inputs[j];
      inputs.push_back(device_pointer(d, in.ref));
      if (copies_borrowed_region(d, in.ref)) // read packed, not with the caller's strides
        program.leaves[static_cast<std::size_t>(in.leaf)].map = in.packed;
    }
    if (const plan::Combine* c = plan::finalizing_combine(plan_, task)) {
      // A block alone along the reduced axes: its partials, finalized as a combine would.
      const Stream& s = d.stream();
      auto partials = d.memory.allocate(
          output_bytes(Output{Output::Kind::partial, c->input, task.output.elements, -1}, c->op),
          s);
      run_kernel(d, program, inputs, partials->data());
      finalize_output(id, task, *c, d, partials->data());
      return;
    }
    const plan::Destination* dst = task.output.kind == Output::Kind::destination
                                       ? &plan_.destinations[task.output.destination]
                                       : nullptr;
    if (dst && dst->space.kind == MemorySpace::Kind::device && dst->space.device == d.id()) {
      // to_device on this device: the kernel writes the block straight into the caller's memory.
      run_kernel(d, program, inputs, dst->data);
      return;
    }
    if (task.output.kind != Output::Kind::destination) {
      auto out = d.memory.allocate(output_bytes(task.output, program.sink.op), d.stream());
      if (copies_one_run(program)) { // persist() of stored blocks: the driver's copy
        const GpuSpan span(d.stream(), "copy within device", "copy",
                           static_cast<std::uint64_t>(out->bytes()));
        copy_one_run(program, inputs[static_cast<std::size_t>(program.leaves[0].input)],
                     out->data(), dtype_size(task.output.dtype), d.stream());
      } else
        run_kernel(d, program, inputs, out->data());
      outputs_[id] = std::move(out);
      return;
    }
    // Destination: compute the block densely on the device, then download it.
    const Scatter scatter = make_dense(program);
    const std::size_t esize = dtype_size(task.output.dtype);
    auto block = d.memory.allocate(static_cast<std::size_t>(program.size()) * esize, d.stream());
    run_kernel(d, program, inputs, block->data());
    download_into(d, task.output.destination, std::move(block), program.size(), esize, scatter);
  }

  /// A halo gather: each piece a copy program, run by the row copy where its rows allow.
  void run_gather(runtime::TaskId id, const plan::Task& task, int worker) override {
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    auto out = d.memory.allocate(output_bytes(task.output, plan::ReduceOp::sum), d.stream());
    const std::size_t esize = dtype_size(task.output.dtype);
    for (const auto& piece : plan_.gathers[task.index]) {
      const void* in = device_pointer(d, piece.source);
      if (copies_rows(piece.program)) {
        const GpuSpan span(d.stream(), "copy rows", "copy");
        copy_rows(piece.program, in, out->data(), esize, d.stream());
      } else
        run_kernel(d, piece.program, std::span<const void* const>(&in, 1), out->data());
    }
    outputs_[id] = std::move(out);
  }

  /// A reshape or concatenate block: each piece is a device-to-device copy on the task's stream,
  /// by cudaMemcpyAsync where it is one contiguous run, else by the row copy or the piece's copy
  /// kernel, as a gather runs it (cudaMemcpy2DAsync moved rows of a pitch at a small fraction of
  /// the kernel's rate: benchmarks/RESULTS.md, 2026-12-04).
  void run_assemble(runtime::TaskId id, const plan::Task& task, int worker) override {
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    const Stream& s = d.stream();
    auto out = d.memory.allocate(output_bytes(task.output, plan::ReduceOp::sum), s);
    const auto esize = static_cast<index_t>(dtype_size(task.output.dtype));
    for (const auto& piece : plan_.gathers[task.index]) {
      const void* in = device_pointer(d, piece.source);
      const BlockProgram& p = piece.program;
      if (p.size() == 0)
        continue;
      const plan::AffineMap& from = p.leaves[0].map;
      const plan::AffineMap& to = p.sink.map;
      const char* src = static_cast<const char*>(in) + from.base * esize;
      char* dst = static_cast<char*>(out->data()) + to.base * esize;
      if (p.ndim == 1 && from.coef[0] == 1 && to.coef[0] == 1) {
        const GpuSpan span(s, "copy within device", "copy",
                           static_cast<std::uint64_t>(p.extent[0] * esize));
        CHUNKED_CUDA_TRY(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(p.extent[0] * esize),
                                         cudaMemcpyDeviceToDevice, s.get()),
                         d.id(), "(assembling a block)");
        continue;
      }
      if (copies_rows(p)) {
        const GpuSpan span(s, "copy rows", "copy");
        copy_rows(p, in, out->data(), static_cast<std::size_t>(esize), s);
      } else
        run_kernel(d, p, std::span<const void* const>(&in, 1), out->data());
    }
    outputs_[id] = std::move(out);
  }

  void run_combine(runtime::TaskId id, const plan::Task& task, int worker) override {
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    const Stream& s = d.stream();
    const plan::Combine& c = plan_.combines[task.index];
    const index_t n = task.output.elements;
    std::vector<const void*> inputs;
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
      inputs.push_back(device_pointer(d, plan_.combine_inputs[j]));
    auto acc =
        d.memory.allocate(output_bytes(Output{Output::Kind::partial, c.input, n, -1}, c.op), s);
    {
      const GpuSpan span(s, "combine partials", "kernel");
      combine_partials(c.op, c.input, inputs, acc->data(), n, s);
    }
    if (task.output.kind == Output::Kind::partial) {
      outputs_[id] = std::move(acc);
      return;
    }
    finalize_output(id, task, c, d, acc->data());
  }

  /// Finalizes `partials` (the task's output elements) by `c` into the task's output: a new
  /// buffer, or the destination of the copy task that would only have moved it there.
  void finalize_output(runtime::TaskId id, const plan::Task& task, const plan::Combine& c,
                       DeviceSlot& d, const void* partials) {
    const Stream& s = d.stream();
    const index_t n = task.output.elements;
    auto out = d.memory.allocate(output_bytes(task.output, c.op), s);
    {
      const GpuSpan span(s, "finalize partials", "kernel");
      finalize_partials(c.op, c.result, c.input, partials, n, c.count, c.ddof, out->data(), s);
    }
    const plan::TaskId to = consumers_[id].empty() ? 0 : consumers_[id][0];
    if (consumers_[id].size() == 1 && written_by_finalize_[to]) {
      // Straight into the destination, where the copy task would have put the values.
      thread_local BlockProgram copy;
      plan_.instantiate(to, copy);
      const Scatter scatter = make_dense(copy);
      download_into(d, plan_.tasks[to].output.destination, std::move(out), n,
                    dtype_size(task.output.dtype), scatter);
      return;
    }
    outputs_[id] = std::move(out);
  }

  /// The user's function on its inputs on this device (blocks with their halos, gathered or in a
  /// persisted stencil's buffer, into which it then writes too), enqueuing its work on the task's
  /// stream. Errors it leaves behind (a bad launch, a failed kernel) are raised, naming the block.
  void run_user(runtime::TaskId id, const plan::Task& task, int worker) override {
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    const Stream& s = d.stream();
    const plan::UserStage& u = plan_.users[task.index];
    BlockInfo info = u.info(task.block);
    info.device = d.id();
    info.stream = static_cast<void*>(s.get());
    const Shape in_shape = u.input_shape(task.block);
    std::vector<chunked::detail::RawView> in;
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j) {
      const InputRef& ref = plan_.inputs[j].ref;
      in.push_back({const_cast<void*>(device_pointer(d, ref)), in_shape,
                    plan::user_input_strides(ref, in_shape, copies_borrowed_region(d, ref))});
    }
    std::shared_ptr<Buffer> out;
    chunked::detail::RawView out_view;
    if (task.output.kind == Output::Kind::destination)
      out_view = plan::user_destination(plan_.destinations[task.output.destination], u, task.block);
    else {
      out = d.memory.allocate(output_bytes(task.output, plan::ReduceOp::sum), s);
      out_view = {out->data(), info.shape, {}};
    }
    {
      const GpuSpan span(s, u.fn->name.c_str(), "kernel");
      runtime::call_user(u, info, out_view, in);
    }
    check_user_function(s, u.fn->name, info.block, d.id());
    if (out)
      outputs_[id] = std::move(out);
  }

  /// A lazy leaf's block, read ahead into page-locked memory on a host thread (HostIo), copied
  /// to the device on the task's stream.
  void run_load(runtime::TaskId id, const plan::Task&, int worker) override {
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    const Stream& s = d.stream();
    std::unique_ptr<PinnedBlock> host = io_.take_load(id);
    auto out = d.memory.allocate(host->bytes(), s);
    const GpuSpan span(s, "copy host to device", "copy", host->bytes());
    if (host->bytes() > 0)
      CHUNKED_CUDA_TRY(cudaMemcpyAsync(out->data(), host->data(), host->bytes(),
                                       cudaMemcpyHostToDevice, s.get()),
                       d.id(), "(loading a block)");
    auto copied = std::make_unique<Event>(d.id());
    copied->record(s);
    io_.retire(std::move(host), std::move(copied));
    outputs_[id] = std::move(out);
  }

  /// A computed block copied to page-locked memory on the task's stream, then handed to its sink
  /// on a host thread (HostIo) while this worker goes on.
  void run_write(runtime::TaskId id, const plan::Task& task, int worker) override {
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    const Stream& s = d.stream();
    const void* block = device_pointer(d, plan_.inputs[task.inputs_begin].ref);
    const plan::WriteStage& w = plan_.writes[task.index];
    const std::size_t bytes =
        static_cast<std::size_t>(w.grid.block_shape(w.grid.block_index(task.block)).size()) *
        dtype_size(w.dtype);
    std::unique_ptr<PinnedBlock> host = io_.write_buffer(bytes);
    const GpuSpan span(s, "copy device to host", "copy", bytes);
    if (bytes > 0)
      CHUNKED_CUDA_TRY(cudaMemcpyAsync(host->data(), block, bytes, cudaMemcpyDeviceToHost, s.get()),
                       d.id(), "(writing a block)");
    auto copied = std::make_unique<Event>(d.id());
    copied->record(s);
    io_.write_after(id, std::move(host), std::move(copied));
  }

  /// A term after the first adds in place into the buffer of the term before, which only it
  /// reads (a copy of it where that is not on this device: received from another rank). The
  /// buffer's free stays ordered after this term: its readers wait for this term's event.
  void run_product(runtime::TaskId id, const plan::Task& task, int worker) override {
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    const plan::ProductShape sh = plan::product_shape(plan_, task);
    const plan::TaskInput* in = &plan_.inputs[task.inputs_begin];
    const void* a = device_pointer(d, in[0].ref);
    const void* b = device_pointer(d, in[1].ref);
    std::shared_ptr<Buffer> out;
    if (sh.accumulate) {
      const void* sum = device_pointer(d, in[2].ref);
      out = outputs_[in[2].ref.task];
      if (sum != out->data())
        out = d.temps.back(); // device_pointer's copy
    } else {
      out = d.memory.allocate(output_bytes(task.output, plan::ReduceOp::sum), d.stream());
    }
    const GpuSpan span(d.stream(), "matmul", "kernel");
    multiply_blocks(d.id(), d.stream().get(), scratch(d, blas_workspace_bytes), task.output.dtype,
                    sh, a, b, out->data());
    outputs_[id] = std::move(out);
  }

  void run_join(runtime::TaskId, const plan::Task&, int) override {
    throw BackendError(pieces_unsupported);
  }

  void run_scan(runtime::TaskId id, const plan::Task& task, int worker) override {
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    const plan::ScanStage& sc = plan_.scans[task.index];
    const plan::ScanBlock b = plan::scan_block(plan_, task);
    const void* in = device_pointer(d, plan_.inputs[task.inputs_begin].ref);
    const void* carry =
        b.carry_length > 0 ? device_pointer(d, plan_.inputs[task.inputs_begin + 1].ref) : nullptr;
    auto out = d.memory.allocate(output_bytes(task.output, plan::ReduceOp::sum), d.stream());
    void* scratch = nullptr;
    if (const std::size_t bytes = scan_scratch_bytes(sc.op, b, sc.dtype); bytes > 0) {
      d.temps.push_back(d.memory.allocate(bytes, d.stream()));
      scratch = d.temps.back()->data();
    }
    const GpuSpan span(d.stream(), "scan", "kernel");
    scan_block(sc.op, sc.dtype, b, in, carry, out->data(), scratch, d.stream());
    outputs_[id] = std::move(out);
  }

  /// The trace's kernels and copies: first, so that its events outlive every use.
  GpuTimeline timeline_;
  std::vector<std::unique_ptr<DeviceSlot>> slots_;
  std::vector<std::shared_ptr<Buffer>> outputs_;
  std::vector<int> worker_;
  /// Per task, once it ran: the event after its work and the stream it ran on.
  std::vector<std::unique_ptr<Event>> done_;
  std::vector<cudaStream_t> stream_of_;
  std::vector<std::vector<plan::TaskId>> consumers_;
  /// Per destination: page-locked host memory, which copies reach without staging.
  std::vector<char> pinned_destination_;
  /// Per program task: its destination is written by the task it copies (which finalizes into
  /// it), so the task itself runs nothing.
  std::vector<std::uint8_t> written_by_finalize_;
  /// ComputeOptions::stream: ordered before and after the computation's streams.
  UserStream user_stream_;
  /// Reads ahead and writes on host threads; last, so that its threads stop first, after the
  /// destructor has waited for the streams their blocks are copied on.
  HostIo io_;
};

} // namespace

std::vector<std::shared_ptr<Buffer>> execute(const plan::Plan& plan, const ComputeOptions& options,
                                             int device_count) {
  for (const plan::Task& task : plan.tasks)
    if (task.kind == TaskKind::join)
      throw BackendError(pieces_unsupported);
  const std::vector<int> devices = select_devices(options, device_count);
  // The background compiler starts while the executor makes its streams; joined either way.
  struct Joined {
    std::thread thread;
    ~Joined() {
      if (thread.joinable())
        thread.join();
    }
  } compiler{kernel_tier() == KernelTier::tiered ? start_background_compiles() : std::thread()};
  CudaExecutor exec(plan, devices, options);
  if (compiler.thread.joinable())
    compiler.thread.join();
  if (kernel_tier() != KernelTier::compiled)
    preload_interpreter(devices);
  prepare_modules(plan, devices, exec.skipped());
  runtime::run_plan(plan, exec, static_cast<int>(devices.size()), options, exec.workers());
  return exec.finish();
}

} // namespace chunked::cuda
