// SPDX-License-Identifier: Apache-2.0
// Distribution: one computation's share of a cluster (DESIGN 8.6), as the runtime sees it.
#pragma once

#include "plan/plan.hpp"
#include <chunked/runtime/cluster.hpp>

#include <vector>

namespace chunked::runtime {

class Backend;

/// Which rank computes each task of a plan, and with what: set for the thread that runs the
/// computation (DistributionScope), where run_plan and the executors find it.
class Distribution {
public:
  /// The tasks of `plan` go to `cluster`'s ranks by the fixed partition (runtime/partition.hpp).
  Distribution(Cluster& cluster, const Backend& backend, const plan::Plan& plan);

  Cluster& cluster() const { return cluster_; }
  const Backend& backend() const { return backend_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  /// Per task, the rank that computes it.
  const std::vector<int>& owners() const { return owner_; }
  /// Whether this rank computes `task`.
  bool here(plan::TaskId task) const { return owner_[task] == rank_; }

  /// Set once this rank has started exchanging with the others (run_distributed).
  bool entered = false;

private:
  Cluster& cluster_;
  const Backend& backend_;
  int rank_;
  int ranks_;
  std::vector<int> owner_;
};

/// The distribution of the computation the calling thread runs, or null.
Distribution* current_distribution();

/// Whether this process computes `task` of the current computation (always, outside a cluster).
inline bool task_runs_here(plan::TaskId task) {
  const Distribution* d = current_distribution();
  return !d || d->here(task);
}

/// Makes `d` the calling thread's current distribution while it lives.
class DistributionScope {
public:
  explicit DistributionScope(Distribution* d);
  ~DistributionScope();
  DistributionScope(const DistributionScope&) = delete;
  DistributionScope& operator=(const DistributionScope&) = delete;

private:
  Distribution* previous_;
};

/// Bytes of task `task`'s output buffer (values, or partial entries of its reduction).
std::size_t task_output_bytes(const plan::Plan& plan, plan::TaskId task);

} // namespace chunked::runtime
