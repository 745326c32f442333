// SPDX-License-Identifier: Apache-2.0
// An error of one rank, told to the others: its kind and message, raised again on every rank.
#pragma once

#include <cstdint>
#include <exception>
#include <string>

namespace chunked {
class Cluster;
}

namespace chunked::runtime {

/// What another rank needs to raise the same error: the chunked::Error subclass and message.
struct RankError {
  enum class Kind : char { error, value, shape, index, backend, out_of_memory, other };
  Kind kind = Kind::error;
  std::string message;

  /// The kind and message of `error` (any exception).
  static RankError of(const std::exception_ptr& error);
  /// One byte of kind, then the message.
  std::string encode() const;
  static RankError decode(const char* data, std::size_t bytes);

  /// Throws the error as it failed on `rank` of `cluster` ("MPI"), with the same class (a
  /// non-chunked exception as chunked::Error).
  [[noreturn]] void raise(const std::string& cluster, int rank) const;
};

/// Whether a rank's step failed and how, in a fixed size for collectives that gather one record
/// from every rank.
struct RankErrorRecord {
  std::uint32_t failed = 0;
  std::uint32_t bytes = 0;
  char text[504] = {}; ///< RankError::encode(), cut to fit

  /// Records `error` (failed = 0 when it is null).
  void set(const std::exception_ptr& error);
};

/// After gathering every rank's record into `all` (`size` of them, in rank order): when any rank
/// failed, rethrows `mine` when this rank failed, else raises the lowest failing rank's error.
void raise_if_any_failed(const RankErrorRecord* all, std::size_t size,
                         const std::exception_ptr& mine, const Cluster& cluster);

/// Every rank of `cluster` tells the others whether its step failed (`error`, null when it did
/// not); when any did, every rank raises (raise_if_any_failed). Collective: every rank calls it at
/// the same point, which also orders the step's effects on every rank before what follows.
void agree_on_outcome(Cluster& cluster, const std::exception_ptr& error);

} // namespace chunked::runtime
