// SPDX-License-Identifier: Apache-2.0
// ClusterComputation: one public computation (compute, persist, write) over a cluster's ranks.
#pragma once

#include "plan/plan.hpp"
#include "runtime/distributed/cluster_lock.hpp"
#include "runtime/distributed/distribution.hpp"
#include <chunked/runtime/compute_options.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace chunked::runtime {

class Backend;

/// The steps a computation takes over `ComputeOptions::cluster` (the engine's calls do nothing
/// more when there is none): the ranks agree on the plan before anything runs, each runs its
/// part, and every rank ends with the whole result.
class ClusterComputation {
public:
  /// Holds the cluster for this computation (one at a time per cluster); inactive without one.
  explicit ClusterComputation(const ComputeOptions& options);

  bool active() const { return cluster_ != nullptr; }

  /// `options` for the backend: over a cluster without `devices`, a Cuda computation uses the
  /// GPU of its local rank (`devices` usable there), one rank per GPU.
  ComputeOptions backend_options(const ComputeOptions& options, const Backend& backend,
                                 int devices) const;

  /// Plans with `make`, then compares with every rank: a rank whose planning failed makes every
  /// rank raise (it its own error, the others the same kind naming it), and ranks whose plans
  /// differ raise ValueError on every rank, naming the ranks and task counts.
  plan::Plan agree(const std::function<plan::Plan()>& make, const Backend& backend);

  /// Runs `execute` (the backend's, which calls run_plan) as this rank's part of `plan`, after
  /// fetching the persisted blocks its tasks read from other ranks, then shares the
  /// destinations' values with every rank. Returns what `execute` returned.
  std::vector<std::shared_ptr<Buffer>>
  run(plan::Plan& plan, const Backend& backend,
      const std::function<std::vector<std::shared_ptr<Buffer>>()>& execute);

  /// After run(): the rank that computed each task.
  const std::vector<int>& owners() const { return distribution_->owners(); }
  /// This rank's number.
  int rank() const;

private:
  Cluster* cluster_ = nullptr;
  ClusterLock lock_;
  std::optional<Distribution> distribution_;
};

/// persist() over a cluster: the blocks of `outputs` for `result` tasks that another rank
/// computed become RemoteBlocks naming it; returns the owner of each result block.
std::vector<int> keep_owned_blocks(const plan::Plan& plan, const std::vector<int>& owners, int rank,
                                   const std::vector<plan::TaskId>& result,
                                   std::vector<std::shared_ptr<Buffer>>& blocks);

} // namespace chunked::runtime
