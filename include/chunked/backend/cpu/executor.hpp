// SPDX-License-Identifier: Apache-2.0
// The CPU backend's executor: runs a plan's tasks on host memory with the thread-pool scheduler.
#pragma once

#include <chunked/plan/plan.hpp>
#include <chunked/runtime/compute_options.hpp>

#include <memory>
#include <vector>

namespace chunked::cpu {

/// Runs every task of plan on CPU threads (or inline). Returns, per task, the buffers of tasks
/// that nobody consumed and that hold results (persist); everything else is freed as soon as
/// its consumers finish.
std::vector<std::shared_ptr<Buffer>> execute(const plan::Plan& plan, const ComputeOptions& options);

} // namespace chunked::cpu
