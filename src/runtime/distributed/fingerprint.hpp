// SPDX-License-Identifier: Apache-2.0
// plan_fingerprint: a hash of what a plan computes, compared across ranks before anything runs.
#pragma once

#include "plan/plan.hpp"

#include <cstdint>
#include <string_view>

namespace chunked::runtime {

/// A 64-bit hash of `plan` run on `backend`: its tasks, their dependencies, inputs and outputs,
/// every program with its constants, index maps and extents, the grids, shapes and dtypes, and
/// the sizes of stored blocks; not host data (each rank holds its own) nor addresses. Ranks that
/// built the same graph with the same chunks get the same fingerprint.
std::uint64_t plan_fingerprint(const plan::Plan& plan, std::string_view backend);

} // namespace chunked::runtime
