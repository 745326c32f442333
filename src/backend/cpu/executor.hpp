// SPDX-License-Identifier: Apache-2.0
// The CPU backend's executor: runs a plan's tasks on host memory with the thread-pool scheduler.
#pragma once

#include "plan/plan.hpp"
#include <chunked/runtime/compute_options.hpp>

#include <memory>
#include <vector>

namespace chunked::cpu {

/// How the CPU backend cuts work into tasks: an array of a few large blocks is reduced, computed
/// into a caller's array or persisted by at least 64 tasks (of at least 64 Ki elements each), so
/// that up to 64 threads share it; one block per task would leave threads idle whenever there
/// are fewer blocks than threads, and make the slowest block the whole run's time when there are
/// as many. A constant, so that results do not depend on the thread count.
constexpr plan::TaskSplit task_split{64, index_t{1} << 16, 512};

/// Runs every task of plan on CPU threads (or inline). Returns, per task, the buffers of tasks
/// that nobody consumed and that hold results (persist); everything else is freed as soon as
/// its consumers finish.
std::vector<std::shared_ptr<Buffer>> execute(const plan::Plan& plan, const ComputeOptions& options);

} // namespace chunked::cpu
