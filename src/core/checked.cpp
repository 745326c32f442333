// SPDX-License-Identifier: Apache-2.0
// The error of an overflowing checked_add / checked_mul.
#include "core/checked.hpp"
#include <chunked/core/error.hpp>

namespace chunked::detail {

void throw_index_overflow(const char* op, index_t a, index_t b, const std::string& context) {
  throw ValueError(context + ": " + std::to_string(a) + " " + op + " " + std::to_string(b) +
                   " overflows int64 (at most 9223372036854775807)");
}

} // namespace chunked::detail
