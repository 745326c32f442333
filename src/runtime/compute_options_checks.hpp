// SPDX-License-Identifier: Apache-2.0
// Checks of ComputeOptions that depend on where a computation runs, once its backend is resolved.
#pragma once

#include <chunked/runtime/compute_options.hpp>

namespace chunked::runtime {

/// Throws ValueError when `options` ask for what a computation on the CPU cannot give: a CUDA
/// stream to order it on. `why` says why it runs there ("the Cpu backend"), for the message. Memory
/// resources are not refused: the CPU makes no device or pinned allocation, so every one it makes
/// has gone through them, and options meant for Auto run on either.
void validate_for_cpu(const ComputeOptions& options, const char* why);

} // namespace chunked::runtime
