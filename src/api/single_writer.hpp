// SPDX-License-Identifier: Apache-2.0
// check_single_writer: files are written by one process until ranks can share one store.
#pragma once

#include <chunked/core/error.hpp>
#include <chunked/runtime/compute_options.hpp>

#include <filesystem>
#include <string>

namespace chunked::detail {

/// ValueError when `options` run over a cluster of more than one rank: each rank would write its
/// blocks into a store of its own and replace the others' (to_zarr and save_npy write into a
/// temporary store, then move it into place). Until the ranks share one store, write after
/// compute() or from a one-rank cluster.
inline void check_single_writer(const ComputeOptions& options, const char* call,
                                const std::filesystem::path& path) {
  if (options.cluster && options.cluster->size() > 1)
    throw ValueError(std::string(call) + "('" + path.string() + "') over a cluster of " +
                     std::to_string(options.cluster->size()) +
                     " ranks is not supported yet: write from one rank (compute() the array, or "
                     "give that call no cluster)");
}

} // namespace chunked::detail
