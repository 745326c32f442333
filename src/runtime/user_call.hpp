// SPDX-License-Identifier: Apache-2.0
// Calling a user block function (map_blocks, map_overlap) on one block, for every backend.
#pragma once

#include "plan/plan.hpp"
#include <chunked/core/block_info.hpp>

#include <string>
#include <vector>

namespace chunked::runtime {

/// "(i, j)": a block index for messages.
std::string block_label(const std::vector<index_t>& block);

/// Calls stage `u`'s function for the block `info` describes. An exception derived from
/// std::exception becomes a chunked::Error holding its message and naming the block (a
/// chunked::Error keeps its own message in it too); any other exception passes unchanged.
void call_user(const plan::UserStage& u, const BlockInfo& info, const chunked::detail::RawView& out,
               const std::vector<chunked::detail::RawView>& in);

} // namespace chunked::runtime
