// SPDX-License-Identifier: Apache-2.0
// The CUDA backend's JIT for plans: the module of a block program's kernels on a device (codegen
// and NVRTC behind the one module cache), the compiles a plan needs, made before it runs or in the
// background while the interpreter (interpreter.hpp) runs their programs.
#pragma once

#include "backend/cuda/codegen.hpp"
#include "backend/cuda/compiler.hpp"
#include "plan/plan.hpp"

#include <cstdint>
#include <vector>

namespace chunked::cuda {

/// The module holding the kernels of `set` for `program` on `device`.
const Module& program_module(int device, const plan::BlockProgram& program, KernelSet set);

/// Which kernels run a program: `tiered` (the default) launches its generated kernels once they
/// are compiled and the interpreter's until then, so that no run waits for NVRTC; `compiled`
/// always waits for the generated kernels; `interpreter` runs every program it can on the
/// interpreter and compiles nothing for them. Results are bitwise the same under each. Read once
/// from CHUNKED_CUDA_KERNELS (tiered, compiled or interpreter).
enum class KernelTier : std::uint8_t { tiered, compiled, interpreter };
KernelTier kernel_tier();
/// Overrides CHUNKED_CUDA_KERNELS for the rest of the process (tests, benchmarks).
void set_kernel_tier(KernelTier tier);

/// The module to launch the kernels of `set` for `program` from on `device`, or nullptr when the
/// interpreter is to run it: under `tiered`, a program it can run whose module is not loaded yet
/// (its compile then starts in the background); under `interpreter`, every program it can run.
const Module* launch_module(int device, const plan::BlockProgram& program, KernelSet set);

/// Compiles the modules a plan's tasks launch for every device before any task runs, on
/// several threads: NVRTC compiles one module on one thread, so a first run of a plan with
/// several programs then waits for its slowest compile rather than for their sum. Tasks of one
/// stage differ only in their box, so the kernel sets of its first and last blocks (the ragged
/// edge) stand for all of them; a set met later compiles when first launched. Program tasks with
/// `skipped[task]` set launch nothing and are left out. Under `tiered`, a plan whose programs
/// cover fewer elements than a compile takes to pay for does not wait: the interpreter runs them
/// (launch_module) while they compile in the background.
void prepare_modules(const plan::Plan& plan, const std::vector<int>& devices,
                     const std::vector<std::uint8_t>& skipped);

} // namespace chunked::cuda
