// SPDX-License-Identifier: Apache-2.0
// CPU executor: maps plan tasks to interpreter calls, owns intermediate buffers until released.
#include <chunked/backend/cpu/executor.hpp>
#include <chunked/backend/cpu/interpreter.hpp>
#include <chunked/backend/cpu/partials.hpp>
#include <chunked/plan/partial.hpp>
#include <chunked/runtime/scheduler.hpp>
#include <chunked/runtime/task_graph.hpp>

#include <cstring>
#include <mutex>

namespace chunked::cpu {

namespace {

using plan::InputRef;
using plan::Output;
using plan::PartialWord;
using plan::TaskKind;

std::size_t output_bytes(const Output& out, plan::ReduceOp op) {
  if (out.kind == Output::Kind::partial)
    return static_cast<std::size_t>(out.elements) * 8u *
           static_cast<std::size_t>(plan::partial_layout(op, out.dtype).words);
  return static_cast<std::size_t>(out.elements) * dtype_size(out.dtype);
}

class CpuExecutor final : public runtime::TaskExecutor {
public:
  explicit CpuExecutor(const plan::Plan& plan) : plan_(plan), outputs_(plan.tasks.size()) {}

  std::uint64_t run(runtime::TaskId id, int) override {
    const plan::Task& task = plan_.tasks[id];
    switch (task.kind) {
    case TaskKind::program:
      run_program_task(id, task);
      break;
    case TaskKind::gather:
      run_gather(id, task);
      break;
    case TaskKind::combine:
      run_combine(id, task);
      break;
    case TaskKind::join:
      block_buffer(id, task.output);
      break; // its pieces wrote it
    }
    return plan_.work_bytes(id);
  }

  void release(runtime::TaskId id) override { outputs_[id].reset(); }

  std::vector<std::shared_ptr<Buffer>> take_outputs() { return std::move(outputs_); }

private:
  const void* pointer(const InputRef& ref) const {
    return ref.kind == InputRef::Kind::stored ? ref.stored->data() : outputs_[ref.task]->data();
  }

  void run_program_task(runtime::TaskId id, const plan::Task& task) {
    thread_local plan::BlockProgram program;
    thread_local std::vector<const void*> inputs;
    plan_.instantiate(id, program);
    inputs.clear();
    for (std::uint32_t j = task.inputs_begin; j < task.inputs_end; ++j)
      inputs.push_back(pointer(plan_.inputs[j].ref));
    void* out;
    if (task.output.kind == Output::Kind::destination) {
      out = plan_.destinations[task.output.destination].data;
    } else if (task.output.kind == Output::Kind::piece) {
      out = block_buffer(task.output.owner, plan_.tasks[task.output.owner].output)->data();
    } else {
      outputs_[id] = make_host_buffer(output_bytes(task.output, program.sink.op));
      out = outputs_[id]->data();
    }
    run_program(program, inputs, out);
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

  void run_gather(runtime::TaskId id, const plan::Task& task) {
    const std::size_t bytes = output_bytes(task.output, plan::ReduceOp::sum);
    outputs_[id] = make_host_buffer(bytes);
    for (const auto& piece : plan_.gathers[task.index]) {
      const void* in = pointer(piece.source);
      run_program(piece.program, std::span<const void* const>(&in, 1), outputs_[id]->data());
    }
  }

  void run_combine(runtime::TaskId id, const plan::Task& task) {
    const plan::Combine& c = plan_.combines[task.index];
    const index_t n = task.output.elements;
    const auto layout = plan::partial_layout(c.op, c.input);
    const std::size_t partial_bytes =
        static_cast<std::size_t>(n) * 8u * static_cast<std::size_t>(layout.words);
    const auto* first =
        static_cast<const PartialWord*>(pointer(plan_.combine_inputs[task.inputs_begin]));
    std::shared_ptr<Buffer> acc;
    const PartialWord* result = first;
    if (task.inputs_end - task.inputs_begin > 1) {
      acc = make_host_buffer(partial_bytes);
      auto* a = static_cast<PartialWord*>(acc->data());
      std::memcpy(a, first, partial_bytes);
      for (std::uint32_t j = task.inputs_begin + 1; j < task.inputs_end; ++j)
        combine_partials(c.op, c.input, a,
                         static_cast<const PartialWord*>(pointer(plan_.combine_inputs[j])), a, n);
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
    const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(task.output.dtype);
    outputs_[id] = make_host_buffer(bytes);
    finalize_partials(c.op, c.result, c.input, result, n, c.count, c.ddof, outputs_[id]->data());
  }

  const plan::Plan& plan_;
  std::vector<std::shared_ptr<Buffer>> outputs_;
  std::mutex blocks_mutex_; ///< block_buffer's allocations
};

} // namespace

std::vector<std::shared_ptr<Buffer>> execute(const plan::Plan& plan,
                                             const ComputeOptions& options) {
  runtime::TaskGraph graph;
  for (std::size_t i = 0; i < plan.tasks.size(); ++i)
    graph.add(plan.deps[i], -1, plan.tasks[i].kind == TaskKind::program);
  CpuExecutor exec(plan);
  runtime::run_graph(graph, exec, runtime::default_num_threads(options), options);
  return exec.take_outputs();
}

} // namespace chunked::cpu
