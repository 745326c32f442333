// SPDX-License-Identifier: Apache-2.0
// CPU executor: maps plan tasks to interpreter calls, owns intermediate buffers until released;
// and the CPU backend behind runtime::cpu_backend().
#include "backend/cpu/executor.hpp"
#include "backend/cpu/gemm.hpp"
#include "backend/cpu/interpreter.hpp"
#include "backend/cpu/partials.hpp"
#include "backend/cpu/scan.hpp"
#include "plan/partial.hpp"
#include "runtime/backend.hpp"
#include "runtime/block_io_call.hpp"
#include "runtime/plan_executor.hpp"
#include "runtime/user_call.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace chunked::cpu {

namespace {

using plan::InputRef;
using plan::Output;
using plan::PartialWord;
using runtime::output_bytes;

/// Bytes of the accumulating entries a combine task takes through all its inputs at a time.
constexpr index_t combine_range_bytes = index_t{32} << 10;

class CpuExecutor final : public runtime::PlanExecutor {
public:
  explicit CpuExecutor(const plan::Plan& plan) : PlanExecutor(plan), outputs_(plan.tasks.size()) {}

  void release(runtime::TaskId id) override { outputs_[id].reset(); }

  std::vector<std::shared_ptr<Buffer>> take_outputs() { return std::move(outputs_); }

  void adopt_output(runtime::TaskId id, std::shared_ptr<Buffer> buffer) override {
    outputs_[id] = std::move(buffer);
  }
  std::shared_ptr<const Buffer> host_output(runtime::TaskId id, int) override {
    return outputs_[id];
  }

private:
  const void* pointer(const InputRef& ref) const {
    return ref.kind == InputRef::Kind::stored ? ref.stored->data() : outputs_[ref.task]->data();
  }

  void run_program(runtime::TaskId id, const plan::Task& task, int) override {
    thread_local plan::BlockProgram program;
    thread_local std::vector<const void*> inputs;
    plan_.instantiate(id, program);
    inputs.clear();
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
      inputs.push_back(pointer(plan_.inputs[j].ref));
    if (const plan::Combine* c = plan::finalizing_combine(plan_, task)) {
      // A block alone along the reduced axes: its partials, finalized as a combine would.
      const index_t n = task.output.elements;
      const auto partials =
          make_host_buffer(output_bytes(Output{Output::Kind::partial, c->input, n, -1}, c->op));
      cpu::run_program(program, inputs, partials->data());
      finalize_output(id, task, *c, static_cast<const PartialWord*>(partials->data()));
      return;
    }
    void* out;
    if (task.output.kind == Output::Kind::destination) {
      out = plan_.destinations[task.output.destination].data;
    } else if (task.output.kind == Output::Kind::piece) {
      out = block_buffer(task.output.owner, plan_.tasks[task.output.owner].output)->data();
    } else {
      outputs_[id] = make_host_buffer(output_bytes(task.output, program.sink.op));
      out = outputs_[id]->data();
    }
    cpu::run_program(program, inputs, out);
  }

  void run_join(runtime::TaskId id, const plan::Task& task, int) override {
    block_buffer(id, task.output); // its pieces wrote it
  }

  /// The buffer of a block cut into pieces, held by its join task: allocated by whichever piece
  /// runs first (so that it exists only once the block is being computed), or by the join itself.
  Buffer* block_buffer(runtime::TaskId join, const Output& output) {
    std::lock_guard lock(blocks_mutex_);
    std::shared_ptr<Buffer>& buffer = outputs_[join];
    if (!buffer)
      buffer = make_host_buffer(output_bytes(output, plan::ReduceOp::sum));
    return buffer.get();
  }

  void run_gather(runtime::TaskId id, const plan::Task& task, int) override {
    const std::size_t bytes = output_bytes(task.output, plan::ReduceOp::sum);
    outputs_[id] = make_host_buffer(bytes);
    for (const auto& piece : plan_.gathers[task.index]) {
      const void* in = pointer(piece.source);
      cpu::run_program(piece.program, std::span<const void* const>(&in, 1), outputs_[id]->data());
    }
  }

  /// The user's function on the host buffers of its inputs (each the block with its halo).
  void run_user(runtime::TaskId id, const plan::Task& task, int) override {
    const plan::UserStage& u = plan_.users[task.index];
    const BlockInfo info = u.info(task.block);
    const Shape in_shape = u.input_shape(task.block);
    std::vector<chunked::detail::RawView> in;
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j) {
      const InputRef& ref = plan_.inputs[j].ref;
      in.push_back({const_cast<void*>(pointer(ref)), in_shape,
                    plan::user_input_strides(ref, in_shape, false)});
    }
    if (task.output.kind == Output::Kind::destination) { // a persisted stencil's one buffer
      runtime::call_user(
          u, info,
          plan::user_destination(plan_.destinations[task.output.destination], u, task.block), in);
      return;
    }
    auto out = make_host_buffer(output_bytes(task.output, plan::ReduceOp::sum));
    runtime::call_user(u, info, {out->data(), info.shape, {}}, in);
    outputs_[id] = std::move(out);
  }

  /// Reads run on the worker threads, so that several blocks are read at once.
  void run_load(runtime::TaskId id, const plan::Task& task, int) override {
    auto out = make_host_buffer(output_bytes(task.output, plan::ReduceOp::sum));
    runtime::read_block(plan_.loads[task.index], task.block, out->data());
    outputs_[id] = std::move(out);
  }

  void run_write(runtime::TaskId, const plan::Task& task, int) override {
    runtime::write_block(plan_.writes[task.index], task.block,
                         pointer(plan_.inputs[task.inputs_begin].ref));
  }

  void run_combine(runtime::TaskId id, const plan::Task& task, int) override {
    const plan::Combine& c = plan_.combines[task.index];
    const index_t n = task.output.elements;
    const std::size_t partial_bytes =
        output_bytes(Output{Output::Kind::partial, c.input, n, -1}, c.op);
    const auto* first =
        static_cast<const PartialWord*>(pointer(plan_.combine_inputs[task.inputs_begin]));
    std::shared_ptr<Buffer> acc;
    const PartialWord* result = first;
    if (task.inputs_end - task.inputs_begin > 1) {
      acc = make_host_buffer(partial_bytes);
      auto* a = static_cast<PartialWord*>(acc->data());
      // A range of entries at a time takes every input in order, so that the accumulating
      // entries stay in cache (an exact sum's are 600 bytes each).
      const index_t words = plan::partial_layout(c.op, c.input).words;
      const index_t range = std::max<index_t>(1, combine_range_bytes / (8 * words));
      for (index_t p0 = 0; p0 < n; p0 += range) {
        const index_t m = std::min(range, n - p0);
        std::memcpy(a + p0 * words, first + p0 * words, static_cast<std::size_t>(m * words) * 8u);
        for (std::uint32_t j = task.inputs_begin + 1; j < task.inputs_end; ++j)
          combine_partials(c.op, c.input, a + p0 * words,
                           static_cast<const PartialWord*>(pointer(plan_.combine_inputs[j])) +
                               p0 * words,
                           a + p0 * words, m);
      }
      result = a;
    }
    if (task.output.kind == Output::Kind::partial) {
      if (!acc) {
        acc = make_host_buffer(partial_bytes);
        std::memcpy(acc->data(), first, partial_bytes);
      }
      outputs_[id] = std::move(acc);
      return;
    }
    finalize_output(id, task, c, result);
  }

  /// Finalizes `partials` (the task's output elements) by `c` into a new buffer, its output.
  void finalize_output(runtime::TaskId id, const plan::Task& task, const plan::Combine& c,
                       const PartialWord* partials) {
    outputs_[id] = make_host_buffer(output_bytes(task.output, c.op));
    finalize_partials(c.op, c.result, c.input, partials, task.output.elements, c.count, c.ddof,
                      outputs_[id]->data());
  }

  /// A term after the first adds into the buffer of the term before, which only it reads.
  void run_product(runtime::TaskId id, const plan::Task& task, int) override {
    const plan::ProductShape s = plan::product_shape(plan_, task);
    if (s.accumulate)
      outputs_[id] = outputs_[plan_.inputs[task.inputs_begin + 2].ref.task];
    else
      outputs_[id] = make_host_buffer(output_bytes(task.output, plan::ReduceOp::sum));
    multiply_blocks(task.output.dtype, s, pointer(plan_.inputs[task.inputs_begin].ref),
                    pointer(plan_.inputs[task.inputs_begin + 1].ref), outputs_[id]->data());
  }

  void run_scan(runtime::TaskId id, const plan::Task& task, int) override {
    const plan::ScanStage& sc = plan_.scans[task.index];
    const plan::ScanBlock b = plan::scan_block(plan_, task);
    outputs_[id] = make_host_buffer(output_bytes(task.output, plan::ReduceOp::sum));
    const void* carry =
        b.carry_length > 0 ? pointer(plan_.inputs[task.inputs_begin + 1].ref) : nullptr;
    scan_block(sc.op, sc.dtype, b, pointer(plan_.inputs[task.inputs_begin].ref), carry,
               outputs_[id]->data());
  }

  std::vector<std::shared_ptr<Buffer>> outputs_;
  std::mutex blocks_mutex_; ///< block_buffer's allocations
};

/// Blocks that persist() left in another backend's memory (a GPU) are copied to the host before
/// a CPU run reads them; the copies live as long as the returned vector.
std::vector<std::shared_ptr<Buffer>> host_copies_of_stored_inputs(plan::Plan& plan) {
  std::unordered_map<const Buffer*, std::shared_ptr<Buffer>> copies;
  auto fix = [&](InputRef& ref) {
    if (ref.kind != InputRef::Kind::stored || ref.stored->space().kind == MemorySpace::Kind::host)
      return;
    auto& copy = copies[ref.stored];
    if (!copy)
      copy = runtime::backend_of(ref.stored->space()).to_host(*ref.stored);
    ref.stored = copy.get();
  };
  for (auto& in : plan.inputs)
    fix(in.ref);
  for (auto& pieces : plan.gathers)
    for (auto& piece : pieces)
      fix(piece.source);
  std::vector<std::shared_ptr<Buffer>> keep;
  keep.reserve(copies.size());
  for (auto& [ptr, copy] : copies)
    keep.push_back(std::move(copy));
  return keep;
}

class CpuBackend final : public runtime::Backend {
public:
  const char* name() const override { return "Cpu"; }
  bool built() const override { return true; }
  int usable_devices() const override { return 1; }
  plan::TaskSplit task_split() const override { return cpu::task_split; }
  std::vector<std::shared_ptr<Buffer>> execute(plan::Plan& plan, const ComputeOptions& options,
                                               int) const override {
    const auto host_copies = host_copies_of_stored_inputs(plan);
    return cpu::execute(plan, options);
  }
  std::shared_ptr<Buffer> host_buffer(std::size_t bytes,
                                      const std::function<void(void*)>& fill) const override {
    auto buffer = make_host_buffer(bytes);
    if (fill)
      fill(buffer->data());
    return buffer;
  }
  std::shared_ptr<Buffer> to_host(const Buffer& buffer) const override {
    if (buffer.space().kind != MemorySpace::Kind::host)
      throw BackendError("Cpu backend: a buffer in device memory is not the CPU backend's to copy");
    auto copy = make_host_buffer(buffer.bytes());
    if (buffer.bytes() > 0)
      std::memcpy(copy->data(), buffer.data(), buffer.bytes());
    return copy;
  }
  void copy_bytes(void* dst, MemorySpace to, const void* src, MemorySpace from,
                  std::size_t bytes) const override {
    if (to.kind != MemorySpace::Kind::host || from.kind != MemorySpace::Kind::host)
      throw BackendError("Cpu backend: device memory is not the CPU backend's to copy");
    if (bytes > 0)
      std::memcpy(dst, src, bytes);
  }
  std::shared_ptr<Buffer> framed_buffer(std::size_t bytes, const ComputeOptions&,
                                        int) const override {
    return make_host_buffer(bytes);
  }
  void fill_frame(const runtime::Frame& frame) const override {
    runtime::fill_frame_on_host(frame);
  }
  CopyRate copy_rate() const override { return runtime::host_copy_rate(); }
};

} // namespace

std::vector<std::shared_ptr<Buffer>> execute(const plan::Plan& plan,
                                             const ComputeOptions& options) {
  CpuExecutor exec(plan);
  runtime::run_plan(plan, exec, runtime::default_num_threads(options), options);
  return exec.take_outputs();
}

} // namespace chunked::cpu

namespace chunked::runtime {

const Backend& cpu_backend() {
  static const cpu::CpuBackend backend;
  return backend;
}

} // namespace chunked::runtime
