// SPDX-License-Identifier: Apache-2.0
// The CUDA backend's JIT for plans: the module of a block program's kernels on a device (codegen
// and NVRTC behind the one module cache), and the compiles a plan needs, made before it runs.
#pragma once

#include "backend/cuda/codegen.hpp"
#include "backend/cuda/compiler.hpp"
#include "plan/plan.hpp"

#include <cstdint>
#include <vector>

namespace chunked::cuda {

/// The module holding the kernels of `set` for `program` on `device`.
const Module& program_module(int device, const plan::BlockProgram& program, KernelSet set);

/// Compiles the modules a plan's tasks launch for every device before any task runs, on
/// several threads: NVRTC compiles one module on one thread, so a first run of a plan with
/// several programs then waits for its slowest compile rather than for their sum. Tasks of one
/// stage differ only in their box, so the kernel sets of its first and last blocks (the ragged
/// edge) stand for all of them; a set met later compiles when first launched. Program tasks with
/// `skipped[task]` set launch nothing and are left out.
void prepare_modules(const plan::Plan& plan, const std::vector<int>& devices,
                     const std::vector<std::uint8_t>& skipped);

} // namespace chunked::cuda
