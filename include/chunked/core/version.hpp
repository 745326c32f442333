// SPDX-License-Identifier: Apache-2.0
// The library version, as compiled into the library and as seen by the headers.
#pragma once

#include <chunked/config.hpp>

namespace chunked {

/// The version of the compiled library, "MAJOR.MINOR.PATCH". It equals CHUNKED_VERSION_STRING
/// unless a program was built against headers from a different release than the library it links.
const char* version_string() noexcept;

} // namespace chunked
