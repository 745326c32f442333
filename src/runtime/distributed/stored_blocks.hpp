// SPDX-License-Identifier: Apache-2.0
// fetch_stored_blocks: the blocks of arrays persisted over a cluster that a rank's tasks read
// but another rank holds.
#pragma once

#include "runtime/distributed/distribution.hpp"

#include <chunked/core/buffer.hpp>

#include <memory>
#include <vector>

namespace chunked::runtime {

/// Before a run: each block of an array persisted over the cluster (graph::StoredData::owners)
/// that a task of another rank reads is sent to that rank by its owner, once per rank, and the
/// plan's inputs on the reading rank point at the copy that arrived. Returns the copies, which
/// must outlive the run. Collective: every rank calls it with the same plan.
std::vector<std::shared_ptr<Buffer>> fetch_stored_blocks(plan::Plan& plan, const Distribution& d);

/// ValueError when `plan`, run without a cluster (`cluster` null), reads a block of an array
/// persisted over a cluster that this rank does not hold (over a cluster, fetch_stored_blocks
/// refuses blocks held by ranks beyond its size).
void check_stored_blocks_reachable(const plan::Plan& plan, const Cluster* cluster);

} // namespace chunked::runtime
