// SPDX-License-Identifier: Apache-2.0
// write_through: a file or store written by one process or by every rank of a cluster.
#pragma once

#include <chunked/runtime/compute_options.hpp>

#include <functional>
#include <string>

namespace chunked::detail {

/// The steps by which a written file or store comes to be (save_npy, to_zarr).
struct WriteSteps {
  /// Creates the target's temporary form beside it and returns its name.
  std::function<std::string()> create;
  /// Opens the temporary form that another process created (`temp`, its name); `what` says why it
  /// should be there, for the error when it is not.
  std::function<void(const std::string& temp, const std::string& what)> join;
  /// Computes the array and writes its blocks (detail::write_blocks).
  std::function<void()> write;
  /// Moves the complete temporary form into place.
  std::function<void()> commit;
  /// Removes the temporary form, if this process created it and has not committed it; never
  /// throws.
  std::function<void()> discard;
};

/// Runs `steps` in this process or, over `options.cluster` of several ranks sharing one file
/// system, SPMD: rank 0 creates the temporary form, the others join it, every rank writes the
/// blocks it computes, and rank 0 commits once every rank has written. A failure on any rank
/// makes every rank raise only after every rank has stopped writing and rank 0 has removed the
/// temporary form, leaving the target as it was.
void write_through(const WriteSteps& steps, const ComputeOptions& options);

} // namespace chunked::detail
