// SPDX-License-Identifier: Apache-2.0
// Modules of block programs, and a plan's compiles ahead of its run (jit.hpp).
#include "backend/cuda/jit.hpp"

#include "backend/cuda/background_compiles.hpp"
#include "backend/cuda/interpreter.hpp"
#include "runtime/parallel_for.hpp"
#include "runtime/trace.hpp"
#include <chunked/core/error.hpp>

#include <atomic>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace chunked::cuda {

const Module& program_module(int device, const plan::BlockProgram& program, KernelSet set) {
  return get_module(device, module_key(program, set),
                    [&] { return generate_source(program, set); });
}

namespace {

KernelTier tier_from_environment() {
  const char* env = std::getenv("CHUNKED_CUDA_KERNELS");
  const std::string_view v = env ? env : "";
  if (v.empty() || v == "tiered")
    return KernelTier::tiered;
  if (v == "compiled")
    return KernelTier::compiled;
  if (v == "interpreter")
    return KernelTier::interpreter;
  throw ValueError("CHUNKED_CUDA_KERNELS is '" + std::string(v) +
                   "'; expected tiered, compiled or interpreter");
}

std::atomic<KernelTier>& tier_setting() {
  static std::atomic<KernelTier> tier{tier_from_environment()};
  return tier;
}

} // namespace

KernelTier kernel_tier() { return tier_setting().load(std::memory_order_relaxed); }

void set_kernel_tier(KernelTier tier) { tier_setting().store(tier); }

/// Elements of a plan's programs from which its first run waits for its compiles: the
/// interpreter runs them at a fraction of the generated kernels' speed, so a run of this size
/// (about 0.1 s in generated kernels on one GPU) loses more to it than a compile costs.
constexpr double wait_for_compiles_elements = 16e9;

const Module* launch_module(int device, const plan::BlockProgram& program, KernelSet set) {
  const KernelTier tier = kernel_tier();
  if (tier == KernelTier::compiled || !interpretable(program) || !interpreter_available(device))
    return &program_module(device, program, set);
  if (tier == KernelTier::interpreter)
    return nullptr;
  if (const Module* m = find_module(device, module_key(program, set)))
    return m;
  compile_in_background(device, program, set);
  return nullptr;
}

void prepare_modules(const plan::Plan& plan, const std::vector<int>& devices,
                     const std::vector<std::uint8_t>& skipped) {
  struct Job {
    std::string key;
    plan::BlockProgram program;
    KernelSet set;
  };
  // Programs and their counts, from the first and last task of each stage.
  std::vector<plan::TaskId> first(plan.stages.size(), ~plan::TaskId{0}), last = first;
  std::vector<std::size_t> tasks(plan.stages.size(), 0);
  for (std::size_t t = 0; t < plan.tasks.size(); ++t) {
    const plan::Task& task = plan.tasks[t];
    if (task.kind != plan::TaskKind::program || skipped[t])
      continue;
    if (first[task.index] == ~plan::TaskId{0})
      first[task.index] = static_cast<plan::TaskId>(t);
    last[task.index] = static_cast<plan::TaskId>(t);
    ++tasks[task.index];
  }
  std::vector<plan::BlockProgram> programs;
  double elements = 0;
  for (std::size_t st = 0; st < plan.stages.size(); ++st)
    for (const plan::TaskId t : {first[st], last[st]})
      if (t != ~plan::TaskId{0}) {
        plan.instantiate(t, programs.emplace_back());
        if (t == first[st])
          elements += static_cast<double>(programs.back().size()) * static_cast<double>(tasks[st]);
      }
  for (const plan::Task& task : plan.tasks)
    if (task.kind == plan::TaskKind::gather || task.kind == plan::TaskKind::assemble)
      for (const auto& piece : plan.gathers[task.index])
        programs.push_back(piece.program);

  // A plan long enough to hide its compiles waits for them; a shorter one lets the interpreter
  // run its programs while they compile (launch_module).
  const KernelTier tier = kernel_tier();
  const bool interpret = tier == KernelTier::interpreter ||
                         (tier == KernelTier::tiered && elements < wait_for_compiles_elements);
  std::vector<Job> jobs;
  std::unordered_set<std::string> seen;
  for (const plan::BlockProgram& p : programs) {
    if (p.size() == 0)
      continue; // launches nothing
    const KernelSet set = kernel_set(p);
    std::string key = module_key(p, set);
    if (!seen.insert(key).second)
      continue;
    if (interpret && interpretable(p) && interpreter_available(devices[0])) {
      // The interpreter runs it until launch_module finds its module; a module in the disk cache
      // loads at once (a millisecond or two), others compile in the background.
      if (tier == KernelTier::tiered)
        for (int device : devices)
          if (!find_or_load_cached(device, key, [&] { return generate_source(p, set); }))
            compile_in_background(device, p, set);
      continue;
    }
    // Only what some device has not loaded yet: a warm run compiles nothing and starts no thread.
    for (int device : devices)
      if (!find_module(device, key)) {
        jobs.push_back(Job{std::move(key), p, set});
        break;
      }
  }
  if (jobs.empty())
    return;
  // The source text is generated only for a key this process has not compiled for the device's
  // architecture.
  runtime::Trace* const trace = runtime::current_trace(); // its compiles, on these threads too
  runtime::parallel_for(jobs.size() * devices.size(), runtime::hardware_threads(),
                        [&](std::size_t i) {
                          const runtime::TraceScope traced(trace, runtime::Trace::compile_track +
                                                                      static_cast<int>(i));
                          const Job& job = jobs[i / devices.size()];
                          program_module(devices[i % devices.size()], job.program, job.set);
                        });
}

} // namespace chunked::cuda
