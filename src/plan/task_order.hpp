// SPDX-License-Identifier: Apache-2.0
// The order a plan's tasks run in: each result's inputs just before it, so that a block read by
// one task and then by the next is still in the caches.
#pragma once

#include "plan/plan.hpp"

namespace chunked::plan {

/// Renumbers the tasks of `plan` (ids, dependencies and every reference to a task) so that
/// tasks run, lowest id first, in the order of the first result each one leads to: a result is
/// a task nothing else reads (a block of a persisted array, a piece of a destination, the root
/// of a reduction), and its inputs are numbered right before it unless an earlier result needed
/// them. For `(x - x.mean(Axes{0})) / x.std(Axes{0})` over column blocks this puts each block's
/// moments, their combine and the block's result next to each other, so the result pass reads
/// the block from the caches the moments pass filled, not from memory. The ids stay a
/// topological order. Plans already in that order (the common case: one reduction tree, or
/// independent blocks) are left as they are.
void order_for_locality(Plan& plan);

} // namespace chunked::plan
