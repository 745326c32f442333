// SPDX-License-Identifier: Apache-2.0
// run_distributed: this rank's part of a plan, with the blocks it exchanges with the others.
#pragma once

#include "runtime/distributed/distribution.hpp"
#include "runtime/plan_executor.hpp"

#include <exception>
#include <span>

namespace chunked::runtime {

/// Runs the tasks of `plan` that this rank computes (`tasks`: `exec` itself, or a wrapper that
/// keeps results) on `workers` workers, while the calling thread drives the cluster: outputs
/// that other ranks read are sent as their tasks finish (from the backend's host memory), and
/// outputs of other ranks that this rank's tasks read become tasks that run when they arrive.
///
/// A failure on any rank ends the run on every rank: the failing rank tells the others, they
/// stop, and every rank waits until no message is in flight before it raises: the failing rank
/// its own error, the others the same kind of error naming the rank (the lowest failing one).
void run_distributed(const plan::Plan& plan, PlanExecutor& exec, TaskExecutor& tasks, int workers,
                     const ComputeOptions& options, std::span<const int> worker,
                     Distribution& distribution);

/// When a rank fails before its run starts (the backend refused to run): tells the others, as a
/// failing run does, receives what they send until every rank is done, then raises `error`.
void abandon_distributed(const plan::Plan& plan, Distribution& distribution,
                         std::exception_ptr error);

} // namespace chunked::runtime
