// SPDX-License-Identifier: Apache-2.0
// The CUDA executor: runs a plan's tasks on one worker per GPU, with generated kernels, device
// buffers that stay on the device between tasks, and pinned staging for host copies.
#include <chunked/backend/cuda/codegen.hpp>
#include <chunked/backend/cuda/compiler.hpp>
#include <chunked/backend/cuda/partials.hpp>
#include <chunked/backend/cuda/runtime.hpp>
#include <chunked/backend/cuda/runtime_api.hpp>
#include <chunked/plan/partial.hpp>
#include <chunked/runtime/scheduler.hpp>
#include <chunked/runtime/task_graph.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

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

/// Pinned staging per host copy: large copies go through in pieces of this size.
constexpr std::size_t staging_bytes = std::size_t{64} << 20;
/// Most CUDA blocks of pass 1 of a reduction over every axis. Fixed, so that the fold order and
/// therefore the result depend on the box alone, never on the GPU model or count.
constexpr index_t max_reduce_parts = 1024;
constexpr index_t max_grid = 8192;

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

/// Calls f(offset, step, len, j) for the rows of flat positions [t0, t1) of the box: positions
/// j .. j+len-1 (relative to t0) map to offset + step * k under `map`.
template <class F>
void for_each_row(const BlockProgram& p, const plan::AffineMap& map, index_t t0, index_t t1,
                  F&& f) {
  if (p.ndim == 0) {
    if (t0 < t1)
      f(map.base, index_t{0}, index_t{1}, index_t{0});
    return;
  }
  const int last = p.ndim - 1;
  index_t idx[plan::max_ndim] = {};
  index_t rest = t0;
  for (int k = last; k >= 0; --k) {
    idx[k] = rest % p.extent[k];
    rest /= p.extent[k];
  }
  for (index_t j = 0; t0 + j < t1;) {
    const index_t len = std::min(t1 - t0 - j, p.extent[last] - idx[last]);
    f(map.at(idx, p.ndim), map.coef[last], len, j);
    j += len;
    idx[last] = 0;
    for (int k = last - 1; k >= 0 && ++idx[k] == p.extent[k]; --k)
      idx[k] = 0;
  }
}

struct DeviceSlot {
  int id = 0;
  Stream* stream = nullptr;
  std::shared_ptr<MemoryBudget> budget;
  std::unique_ptr<PinnedBuffer> staging;
  std::shared_ptr<Buffer> scratch;
  std::mutex uploads_mutex;
  std::unordered_map<const Buffer*, std::shared_ptr<Buffer>> uploads; // stored inputs, per compute
  std::unordered_map<std::string, const Module*> modules;             // by structure key
};

class CudaExecutor final : public runtime::TaskExecutor {
public:
  CudaExecutor(const plan::Plan& plan, std::vector<int> devices, const ComputeOptions& options)
      : plan_(plan), outputs_(plan.tasks.size()), worker_(plan.tasks.size(), 0),
        sync_after_(plan.tasks.size(), 0) {
    for (int id : devices) {
      auto slot = std::make_unique<DeviceSlot>();
      slot->id = id;
      slot->stream = device_state(id).stream;
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
  }

  int worker_of(std::size_t task) const { return worker_[task]; }

  std::uint64_t run(runtime::TaskId id, int worker) override {
    DeviceSlot& d = *slots_[static_cast<std::size_t>(worker)];
    DeviceGuard guard(d.id);
    const plan::Task& task = plan_.tasks[id];
    std::vector<std::shared_ptr<Buffer>> temps;
    switch (task.kind) {
    case TaskKind::program:
      run_program_task(id, task, d, temps);
      break;
    case TaskKind::gather:
      run_gather(id, task, d, temps);
      break;
    case TaskKind::combine:
      run_combine(id, task, d, temps);
      break;
    }
    // Temporaries from other devices were copied synchronously; an output read on another device
    // must be complete before that device's copy starts.
    if (sync_after_[id])
      d.stream->synchronize(fmt::format("(task {})", id));
    return plan_.work_bytes(id);
  }

  void release(runtime::TaskId id) override { outputs_[id].reset(); }

  std::vector<std::shared_ptr<Buffer>> finish() {
    for (auto& slot : slots_)
      slot->stream->synchronize("(end of compute)");
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
    for (std::size_t t = 0; t < plan_.tasks.size(); ++t)
      for (plan::TaskId dep : plan_.deps[t])
        if (worker_[dep] != worker_[t])
          sync_after_[dep] = 1;
  }

  std::shared_ptr<Buffer> allocate(DeviceSlot& d, std::size_t bytes) {
    return std::make_shared<DeviceBuffer>(d.id, bytes, d.budget);
  }

  PinnedBuffer& staging(DeviceSlot& d) {
    if (!d.staging)
      d.staging = std::make_unique<PinnedBuffer>(staging_bytes);
    return *d.staging;
  }

  /// A device copy of a host buffer, through pinned staging in pieces.
  std::shared_ptr<Buffer> upload(DeviceSlot& d, const Buffer& host) {
    auto dev = allocate(d, host.bytes());
    PinnedBuffer& stage = staging(d);
    const auto* src = static_cast<const char*>(host.data());
    for (std::size_t off = 0; off < host.bytes(); off += staging_bytes) {
      const std::size_t n = std::min(staging_bytes, host.bytes() - off);
      std::memcpy(stage.data(), src + off, n);
      CHUNKED_CUDA_TRY(cudaMemcpyAsync(static_cast<char*>(dev->data()) + off, stage.data(), n,
                                       cudaMemcpyHostToDevice, d.stream->get()),
                       d.id, fmt::format("(upload of {} bytes)", n));
      d.stream->synchronize("(upload)"); // the staging buffer is reused by the next piece
    }
    return dev;
  }

  /// A copy on this device of a buffer on another device.
  std::shared_ptr<Buffer> copy_from_peer(DeviceSlot& d, const Buffer& src) {
    auto dev = allocate(d, src.bytes());
    CHUNKED_CUDA_TRY(
        cudaMemcpyPeerAsync(dev->data(), d.id, src.data(), src.space().device, src.bytes(),
                            d.stream->get()),
        d.id, fmt::format("(copy of {} bytes from device {})", src.bytes(), src.space().device));
    d.stream->synchronize("(peer copy)");
    return dev;
  }

  const void* device_pointer(DeviceSlot& d, const InputRef& ref,
                             std::vector<std::shared_ptr<Buffer>>& temps) {
    const Buffer* buf = ref.kind == InputRef::Kind::stored ? ref.stored : outputs_[ref.task].get();
    if (!buf)
      throw BackendError("Cuda backend: a task input is missing (released too early)");
    const MemorySpace space = buf->space();
    if (space.kind == MemorySpace::Kind::device && space.device == d.id)
      return buf->data();
    if (ref.kind == InputRef::Kind::task) {
      temps.push_back(space.kind == MemorySpace::Kind::host ? upload(d, *buf)
                                                            : copy_from_peer(d, *buf));
      return temps.back()->data();
    }
    std::lock_guard lock(d.uploads_mutex);
    auto& cached = d.uploads[buf];
    if (!cached)
      cached = space.kind == MemorySpace::Kind::host ? upload(d, *buf) : copy_from_peer(d, *buf);
    return cached->data();
  }

  const Module& module_for(DeviceSlot& d, const BlockProgram& p) {
    const std::string key = p.structure_key();
    auto it = d.modules.find(key);
    if (it != d.modules.end())
      return *it->second;
    const Module& m = get_module(d.id, key, generate_source(p));
    d.modules.emplace(key, &m);
    return m;
  }

  void* scratch(DeviceSlot& d) {
    if (!d.scratch)
      d.scratch = allocate(d, static_cast<std::size_t>(max_reduce_parts) * 3 * 8);
    return d.scratch->data();
  }

  /// Launches `p` writing to `out` (values for store sinks, partial words for reduce sinks).
  void run_kernel(DeviceSlot& d, const BlockProgram& p, const std::vector<const void*>& inputs,
                  void* out) {
    const index_t size = p.size();
    const bool reduce = p.sink.kind == plan::Sink::Kind::reduce;
    if (size == 0) {
      if (reduce)
        init_partials(p.sink.op, p.result_dtype(), out, p.sink.num_partials, *d.stream);
      return;
    }
    const Module& m = module_for(d, p);
    kernel::ProgramArgs args = make_args(p, inputs.data(), out, reduce ? scratch(d) : nullptr);
    void* params[] = {&args, nullptr};
    if (!reduce) {
      launch(m.function(kernel_store), grid_for(size), kernel::block_threads_host, params,
             *d.stream, "store");
      return;
    }
    if (args.kept != p.sink.num_partials)
      init_partials(p.sink.op, p.result_dtype(), out, p.sink.num_partials, *d.stream);
    if (args.kept == 1) {
      int parts = static_cast<int>(std::clamp<index_t>((size + 2047) / 2048, 1, max_reduce_parts));
      launch(m.function(kernel_reduce_all), static_cast<unsigned>(parts),
             kernel::block_threads_host, params, *d.stream, "reduce pass 1");
      void* final_params[] = {&args, &parts, nullptr};
      launch(m.function(kernel_reduce_final), 1, kernel::block_threads_host, final_params,
             *d.stream, "reduce pass 2");
    } else {
      launch(m.function(kernel_reduce_axes), grid_for(args.kept), kernel::block_threads_host,
             params, *d.stream, "axis reduce");
    }
  }

  std::uint64_t run_program_task(runtime::TaskId id, const plan::Task& task, DeviceSlot& d,
                                 std::vector<std::shared_ptr<Buffer>>& temps) {
    thread_local BlockProgram program;
    plan_.instantiate(id, program);
    std::vector<const void*> inputs;
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
      inputs.push_back(device_pointer(d, plan_.inputs[j].ref, temps));
    if (task.output.kind != Output::Kind::destination) {
      const std::size_t bytes = output_bytes(task.output, program.sink.op);
      auto out = allocate(d, bytes);
      run_kernel(d, program, inputs, out->data());
      outputs_[id] = std::move(out);
      return bytes;
    }
    // Destination: compute the block densely on the device, then scatter it into host memory.
    const std::size_t esize = dtype_size(task.output.dtype);
    const index_t size = program.size();
    const plan::AffineMap target = program.sink.map;
    index_t stride = 1;
    program.sink.map = plan::AffineMap{};
    for (int k = program.ndim; k-- > 0;) {
      program.sink.map.coef[k] = stride;
      stride *= program.extent[k];
    }
    auto block = allocate(d, static_cast<std::size_t>(size) * esize);
    run_kernel(d, program, inputs, block->data());
    auto* dst = static_cast<char*>(plan_.destinations[task.output.destination].data);
    PinnedBuffer& stage = staging(d);
    const index_t piece = static_cast<index_t>(staging_bytes / esize);
    for (index_t t0 = 0; t0 < size; t0 += piece) {
      const index_t t1 = std::min(size, t0 + piece);
      CHUNKED_CUDA_TRY(cudaMemcpyAsync(stage.data(), static_cast<char*>(block->data()) + t0 * esize,
                                       static_cast<std::size_t>(t1 - t0) * esize,
                                       cudaMemcpyDeviceToHost, d.stream->get()),
                       d.id, fmt::format("(copy of {} bytes to the host)", (t1 - t0) * esize));
      d.stream->synchronize(fmt::format("(task {})", id));
      const auto* src = static_cast<const char*>(stage.data());
      for_each_row(
          program, target, t0, t1, [&](index_t offset, index_t step, index_t len, index_t j) {
            if (step == 1) {
              std::memcpy(dst + offset * esize, src + j * esize,
                          static_cast<std::size_t>(len) * esize);
            } else {
              for (index_t k = 0; k < len; ++k)
                std::memcpy(dst + (offset + k * step) * esize, src + (j + k) * esize, esize);
            }
          });
    }
    return static_cast<std::uint64_t>(size) * esize;
  }

  std::uint64_t run_gather(runtime::TaskId id, const plan::Task& task, DeviceSlot& d,
                           std::vector<std::shared_ptr<Buffer>>& temps) {
    const std::size_t bytes = output_bytes(task.output, plan::ReduceOp::sum);
    auto out = allocate(d, bytes);
    for (const auto& piece : plan_.gathers[task.index]) {
      const std::vector<const void*> in{device_pointer(d, piece.source, temps)};
      run_kernel(d, piece.program, in, out->data());
    }
    outputs_[id] = std::move(out);
    return bytes;
  }

  std::uint64_t run_combine(runtime::TaskId id, const plan::Task& task, DeviceSlot& d,
                            std::vector<std::shared_ptr<Buffer>>& temps) {
    const plan::Combine& c = plan_.combines[task.index];
    const index_t n = task.output.elements;
    const auto layout = plan::partial_layout(c.op, c.input);
    const std::size_t partial_bytes =
        static_cast<std::size_t>(n) * 8u * static_cast<std::size_t>(layout.words);
    const void* first = device_pointer(d, plan_.combine_inputs[task.inputs_begin], temps);
    auto acc = allocate(d, partial_bytes);
    CHUNKED_CUDA_TRY(cudaMemcpyAsync(acc->data(), first, partial_bytes, cudaMemcpyDeviceToDevice,
                                     d.stream->get()),
                     d.id, fmt::format("(copy of {} bytes)", partial_bytes));
    for (std::uint32_t j = task.inputs_begin + 1; j < task.inputs_end; ++j)
      combine_partials(c.op, c.input, acc->data(),
                       device_pointer(d, plan_.combine_inputs[j], temps), acc->data(), n,
                       *d.stream);
    if (task.output.kind == Output::Kind::partial) {
      outputs_[id] = std::move(acc);
      return partial_bytes;
    }
    const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(task.output.dtype);
    auto out = allocate(d, bytes);
    finalize_partials(c.op, c.input, acc->data(), n, c.count, c.ddof, out->data(), *d.stream);
    outputs_[id] = std::move(out);
    return bytes;
  }

  const plan::Plan& plan_;
  std::vector<std::unique_ptr<DeviceSlot>> slots_;
  std::vector<std::shared_ptr<Buffer>> outputs_;
  std::vector<int> worker_;
  std::vector<char> sync_after_;
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

} // namespace

std::vector<std::shared_ptr<Buffer>> execute(const plan::Plan& plan,
                                             const ComputeOptions& options) {
  const std::vector<int> devices = select_devices(options);
  CudaExecutor exec(plan, devices, options);
  runtime::TaskGraph graph;
  graph.reserve(plan.tasks.size(), 0);
  for (std::size_t i = 0; i < plan.tasks.size(); ++i)
    graph.add(plan.deps[i], exec.worker_of(i), plan.tasks[i].kind == TaskKind::program);
  runtime::run_graph(graph, exec, static_cast<int>(devices.size()), options);
  return exec.finish();
}

} // namespace chunked::cuda
