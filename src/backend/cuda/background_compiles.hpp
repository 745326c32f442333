// SPDX-License-Identifier: Apache-2.0
// Compiles of generated kernels on background threads, while the interpreter runs their programs.
#pragma once

#include "backend/cuda/codegen.hpp"

#include <thread>

namespace chunked::cuda {

/// The first time it is called, a thread that starts the background compiler (NVRTC's first
/// compile, tens of milliseconds) while the caller makes its streams; the caller joins it. Later
/// calls return an empty thread.
std::thread start_background_compiles();

/// Starts compiling the module of `set` for `program` on `device` on a background thread, unless
/// it is loaded, queued or compiling. Once done, program_module finds it loaded. A compile that
/// fails is logged and not retried: the interpreter goes on running the program. The threads
/// stop at exit after the compiles under way (queued ones are dropped).
void compile_in_background(int device, const plan::BlockProgram& program, KernelSet set);

/// Waits until no background compile is queued or under way (tests, benchmarks).
void wait_for_background_compiles();

} // namespace chunked::cuda
