// SPDX-License-Identifier: Apache-2.0
// share_destinations: after a run over a cluster, every rank holds the whole result.
#pragma once

#include "runtime/distributed/distribution.hpp"

namespace chunked::runtime {

/// After a run: the values that each rank's tasks wrote into the plan's destinations (the
/// caller's arrays of compute(), item(), to_host()) go to every other rank, one rank's values
/// after the other, so that every rank holds every destination whole. Collective: every rank
/// calls it with the same plan. A destination in device memory (to_device) goes through a host
/// copy of it on each rank.
void share_destinations(const plan::Plan& plan, const Distribution& d);

} // namespace chunked::runtime
