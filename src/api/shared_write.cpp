// SPDX-License-Identifier: Apache-2.0
// write_through (shared_write.hpp).
#include "api/shared_write.hpp"

#include "runtime/distributed/cluster_lock.hpp"
#include "runtime/distributed/rank_error.hpp"

#include <chunked/runtime/cluster.hpp>

#include <cstdint>
#include <exception>
#include <functional>

namespace chunked::detail {

namespace {

/// `text` from rank `root` on every rank.
void broadcast_string(Cluster& cluster, std::string& text, int root) {
  std::uint64_t size = text.size();
  cluster.broadcast(&size, sizeof(size), root);
  text.resize(size);
  if (size > 0)
    cluster.broadcast(text.data(), size, root);
}

/// Runs `step` where `here`; when it failed on any rank, rank 0 runs `discard` and every rank
/// raises once it has.
template <class Step>
void collective_step(Cluster& cluster, bool here, const Step& step,
                     const std::function<void()>& discard) {
  std::exception_ptr error;
  if (here) {
    try {
      step();
    } catch (...) {
      error = std::current_exception();
    }
  }
  try {
    runtime::agree_on_outcome(cluster, error);
  } catch (...) {
    if (cluster.rank() == 0)
      discard();
    char done = 0;
    cluster.broadcast(&done, 1, 0);
    throw;
  }
}

} // namespace

void write_through(const WriteSteps& steps, const ComputeOptions& options) {
  Cluster* cluster = options.cluster.get();
  if (!cluster || cluster->size() == 1) {
    (void)steps.create();
    steps.write();
    steps.commit();
    return;
  }
  cluster->check_thread();
  // Held from creation to commit, so that no other computation of this rank comes between the
  // ranks' steps; the computation in `write` runs under the same hold.
  const runtime::ClusterLock lock(cluster);
  const bool root = cluster->rank() == 0;
  std::string temp;
  collective_step(
      *cluster, root, [&] { temp = steps.create(); }, steps.discard);
  broadcast_string(*cluster, temp, 0);
  const std::string what = "rank 0 of " + cluster->name() + " created it, and ranks writing one " +
                           "file together need a file system that all of them share";
  collective_step(
      *cluster, !root, [&] { steps.join(temp, what); }, steps.discard);
  // Every rank has stopped writing before rank 0 removes or commits.
  collective_step(*cluster, true, steps.write, steps.discard);
  collective_step(*cluster, root, steps.commit, steps.discard);
}

} // namespace chunked::detail
