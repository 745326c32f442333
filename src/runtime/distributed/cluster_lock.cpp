// SPDX-License-Identifier: Apache-2.0
// ClusterLock (cluster_lock.hpp).
#include "runtime/distributed/cluster_lock.hpp"

#include <chunked/runtime/cluster.hpp>

namespace chunked::runtime {

namespace {

/// The cluster the innermost ClusterLock of this thread holds.
thread_local Cluster* held = nullptr;

} // namespace

ClusterLock::ClusterLock(Cluster* cluster) : previous_(held) {
  if (!cluster || cluster == held)
    return;
  lock_ = std::unique_lock(cluster->computation_mutex());
  held = cluster;
}

ClusterLock::~ClusterLock() { held = previous_; }

} // namespace chunked::runtime
