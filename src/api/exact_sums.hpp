// SPDX-License-Identifier: Apache-2.0
// ComputeOptions::exact_sums as a rewrite of the graph a computation plans.
#pragma once

#include "plan/plan.hpp"

#include <vector>

namespace chunked::detail {

/// Rewrites the requests' graphs for ComputeOptions::exact_sums: every sum and mean of float or
/// double values becomes its exact reduction (ops::ReduceOp::exact_sum, exact_mean), and every
/// var and std becomes NumPy's two passes over exact sums: the mean m (the exact sum rounded to
/// double, over the count), then the exact sum of (x - m)^2 in double, over max(count - ddof, 0).
/// Nothing else changes (integer and bool reductions are exact already; prod, min, max, arg*
/// do not depend on the grouping); a cumsum of float or double values becomes its exact scan.
/// Nodes shared below several requests stay shared; any depth of graph is walked without
/// recursion.
void apply_exact_sums(std::vector<plan::Request>& requests);

} // namespace chunked::detail
