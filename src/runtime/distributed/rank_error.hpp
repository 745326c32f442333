// SPDX-License-Identifier: Apache-2.0
// An error of one rank, told to the others: its kind and message, raised again on every rank.
#pragma once

#include <exception>
#include <string>

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

} // namespace chunked::runtime
