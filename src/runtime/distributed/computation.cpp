// SPDX-License-Identifier: Apache-2.0
// ClusterComputation (computation.hpp).
#include "runtime/distributed/computation.hpp"
#include "runtime/backend.hpp"
#include "runtime/distributed/destinations.hpp"
#include "runtime/distributed/fingerprint.hpp"
#include "runtime/distributed/rank_error.hpp"
#include "runtime/distributed/remote_block.hpp"
#include "runtime/distributed/run.hpp"
#include "runtime/distributed/stored_blocks.hpp"

#include <chunked/core/error.hpp>

#include <sstream>

namespace chunked::runtime {

namespace {

/// What each rank tells the others once it has planned: fixed size, for one allgather.
struct PlanRecord {
  std::uint64_t fingerprint = 0;
  std::uint64_t tasks = 0;
  RankErrorRecord error;
};

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << std::hex << v;
  return s.str();
}

} // namespace

ClusterComputation::ClusterComputation(const ComputeOptions& options)
    : cluster_(options.cluster.get()), lock_(cluster_) {
  if (cluster_)
    cluster_->check_thread();
}

int ClusterComputation::rank() const { return cluster_ ? cluster_->rank() : 0; }

ComputeOptions ClusterComputation::backend_options(const ComputeOptions& options,
                                                   const Backend& backend, int devices) const {
  ComputeOptions local = options;
  if (cluster_ && options.devices.empty() && &backend != &cpu_backend() && devices > 0)
    local.devices = {cluster_->local_rank() % devices};
  return local;
}

plan::Plan ClusterComputation::agree(const std::function<plan::Plan()>& make,
                                     const Backend& backend) {
  if (!cluster_)
    return make();
  std::optional<plan::Plan> plan;
  std::exception_ptr error;
  PlanRecord mine;
  try {
    plan = make();
    mine.fingerprint = plan_fingerprint(*plan, backend.name());
    mine.tasks = plan->tasks.size();
    if (mine.tasks >= static_cast<std::uint64_t>(cluster_->max_tag()))
      throw ValueError("a computation over " + cluster_->name() + " has " +
                       std::to_string(mine.tasks) + " tasks; its messages allow at most " +
                       std::to_string(cluster_->max_tag() - 1) + ": use larger chunks");
  } catch (...) {
    error = std::current_exception();
    mine.error.set(error);
  }
  std::vector<PlanRecord> all(static_cast<std::size_t>(cluster_->size()));
  cluster_->allgather(&mine, sizeof(PlanRecord), all.data());
  std::vector<RankErrorRecord> errors;
  errors.reserve(all.size());
  for (const PlanRecord& r : all)
    errors.push_back(r.error);
  raise_if_any_failed(errors.data(), errors.size(), error, *cluster_);
  for (std::size_t r = 1; r < all.size(); ++r)
    if (all[r].fingerprint != all[0].fingerprint)
      throw ValueError(
          "the ranks of " + cluster_->name() + " built different graphs: rank 0's plan has " +
          std::to_string(all[0].tasks) + " tasks (fingerprint " + hex(all[0].fingerprint) +
          "), rank " + std::to_string(r) + "'s " + std::to_string(all[r].tasks) +
          " tasks (fingerprint " + hex(all[r].fingerprint) +
          "); every rank must build the same arrays, with the same chunks and "
          "constants, and compute them in the same order on the same backend");
  return std::move(*plan);
}

std::vector<std::shared_ptr<Buffer>>
ClusterComputation::run(plan::Plan& plan, const Backend& backend,
                        const std::function<std::vector<std::shared_ptr<Buffer>>()>& execute) {
  check_stored_blocks_reachable(plan, cluster_);
  if (!cluster_)
    return execute();
  distribution_.emplace(*cluster_, backend, plan);
  Distribution& d = *distribution_;
  const auto copies = fetch_stored_blocks(plan, d);
  std::vector<std::shared_ptr<Buffer>> outputs;
  {
    const DistributionScope scope(&d);
    try {
      outputs = execute();
    } catch (...) {
      // Refused before its run began: the other ranks still wait to hear from this one.
      if (!d.entered)
        abandon_distributed(plan, d, std::current_exception());
      throw;
    }
  }
  share_destinations(plan, d);
  return outputs;
}

std::vector<int> keep_owned_blocks(const plan::Plan& plan, const std::vector<int>& owners, int rank,
                                   const std::vector<plan::TaskId>& result,
                                   std::vector<std::shared_ptr<Buffer>>& blocks) {
  std::vector<int> owner(result.size());
  for (std::size_t b = 0; b < result.size(); ++b) {
    owner[b] = owners[result[b]];
    if (owner[b] != rank)
      blocks[b] = std::make_shared<RemoteBlock>(task_output_bytes(plan, result[b]), owner[b]);
  }
  return owner;
}

} // namespace chunked::runtime
