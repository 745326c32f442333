// SPDX-License-Identifier: Apache-2.0
// The exception hierarchy: every error chunked raises derives from chunked::Error.
#pragma once

#include <stdexcept>
#include <string>

namespace chunked {

/// Base of every exception the library throws. Messages name what was given and what was expected.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Shapes, chunkings or ranks that do not fit together (broadcasting, `item()` on many
/// elements...).
class ShapeError : public Error {
public:
  using Error::Error;
};

/// An integer index or axis outside its range.
class IndexError : public Error {
public:
  using Error::Error;
};

/// An argument with the right type but an unusable value (zero step, chunk length <= 0, bad
/// dtype...).
class ValueError : public Error {
public:
  using Error::Error;
};

/// A backend that is not built or cannot run here, or a failure reported by it (CUDA errors).
class BackendError : public Error {
public:
  using Error::Error;
};

/// An allocation that failed or would exceed the configured memory limit.
class OutOfMemory : public Error {
public:
  using Error::Error;
};

} // namespace chunked
