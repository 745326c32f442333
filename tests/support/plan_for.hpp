// SPDX-License-Identifier: Apache-2.0
// The plan of one array computed into a host buffer, for the tests of planning.
#pragma once

#include "plan/plan.hpp"
#include <chunked/graph/node.hpp>

#include <vector>

namespace chunked::test {

/// The plan that computes `node` (float64) into `storage`, which is resized to hold it.
inline plan::Plan plan_for(const graph::NodePtr& node, std::vector<double>& storage) {
  storage.assign(static_cast<std::size_t>(node->shape.size()), 0.0);
  plan::Request r;
  r.node = node;
  r.destination = plan::Destination{storage.data(), node->dtype, node->shape, MemorySpace{}, {}};
  return plan::make_plan({r});
}

} // namespace chunked::test
