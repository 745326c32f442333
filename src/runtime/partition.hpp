// SPDX-License-Identifier: Apache-2.0
// The fixed partition of a plan's tasks over workers that hold their own memory: GPUs of one
// process, and the ranks of a cluster.
#pragma once

#include "plan/plan.hpp"

#include <vector>

namespace chunked::runtime {

/// Per task of `plan`, which of `parts` memories computes it, by a rule that depends only on the
/// plan, so that every process derives the same partition and results do not depend on `parts`:
///
/// - program, load and write tasks by block number, contiguous ranges of the grid's blocks per
///   part (a program task of a stage that cuts blocks into pieces by the block it is a piece of,
///   so that one block's pieces share their buffer); a program that only copies a finalized
///   reduction into a destination (runtime::destination_copy) goes with that reduction, whose
///   backend may finalize straight into the destination;
/// - every other task (gathers, combines, joins, scans, user functions, assembles) with its
///   first input made by a task, where its data mostly is; part 0 when it has none.
std::vector<int> partition_tasks(const plan::Plan& plan, int parts);

/// The block of `stage.blocks` that box `box` of a cut stage's grid lies in (a cut keeps each
/// box inside one block: the block holding its first element).
index_t block_of_cut_box(const plan::Stage& stage, index_t box);

} // namespace chunked::runtime
