// SPDX-License-Identifier: Apache-2.0
// ClusterLock: a cluster held by one thread for one public call, which may run several steps.
#pragma once

#include <mutex>

namespace chunked {
class Cluster;
}

namespace chunked::runtime {

/// Holds `cluster`'s computation mutex (Cluster::computation_mutex) on this thread, so that no
/// other thread of this rank interleaves its messages or collectives with this call's. A
/// ClusterLock for a cluster this thread already holds does nothing: to_zarr holds its cluster
/// around its own collectives and the computation they surround. Null `cluster`: nothing.
class ClusterLock {
public:
  explicit ClusterLock(Cluster* cluster);
  ClusterLock(const ClusterLock&) = delete;
  ClusterLock& operator=(const ClusterLock&) = delete;
  ~ClusterLock();

private:
  Cluster* previous_ = nullptr;
  std::unique_lock<std::mutex> lock_;
};

} // namespace chunked::runtime
