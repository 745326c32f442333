// SPDX-License-Identifier: Apache-2.0
// Overflow-checked index arithmetic: the one place element, byte and block counts and index maps
// are added and multiplied when a result could leave int64.
#pragma once

#include <chunked/core/types.hpp>

#include <string>

namespace chunked::detail {

/// Sets `out` to a + b (a * b) and returns false, or returns true when the exact result does not
/// fit int64 (`out` is then unspecified). For callers that raise their own error.
inline bool add_overflows(index_t a, index_t b, index_t& out) {
  return __builtin_add_overflow(a, b, &out);
}
inline bool mul_overflows(index_t a, index_t b, index_t& out) {
  return __builtin_mul_overflow(a, b, &out);
}

/// Throws chunked::ValueError "<context>: <a> <op> <b> overflows int64".
[[noreturn]] void throw_index_overflow(const char* op, index_t a, index_t b,
                                       const std::string& context);

/// a + b, or ValueError naming `context` when the exact sum does not fit int64. Used where counts
/// and index maps are built (node construction, planning), never per element: a check there is
/// what makes the backends' unchecked per-element index arithmetic safe.
inline index_t checked_add(index_t a, index_t b, const char* context = "index arithmetic") {
  index_t r;
  if (add_overflows(a, b, r))
    throw_index_overflow("+", a, b, context);
  return r;
}

/// a * b, or ValueError naming `context` when the exact product does not fit int64.
inline index_t checked_mul(index_t a, index_t b, const char* context = "index arithmetic") {
  index_t r;
  if (mul_overflows(a, b, r))
    throw_index_overflow("*", a, b, context);
  return r;
}

} // namespace chunked::detail
