// SPDX-License-Identifier: Apache-2.0
// The launches that run one block program on a stream: its generated kernels, or the
// interpreter's while they compile (jit.hpp's launch_module).
#pragma once

#include "backend/cuda/runtime.hpp"
#include "plan/block_program.hpp"

#include <cstddef>
#include <functional>
#include <span>

namespace chunked::cuda {

/// Launches `p` on `stream` of `device`, writing to `out` (values for store sinks, partial words
/// for reduce sinks). `inputs[j]` is the device pointer of stored input j; `scratch(bytes)` gives
/// a buffer of at least `bytes` that kernels on `stream` use one after the other.
void launch_program(int device, const Stream& stream, const plan::BlockProgram& p,
                    std::span<const void* const> inputs, void* out,
                    const std::function<void*(std::size_t)>& scratch);

} // namespace chunked::cuda
