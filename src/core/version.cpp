// SPDX-License-Identifier: Apache-2.0
// The version of the compiled library, fixed when the library is built.
#include <chunked/core/version.hpp>

namespace chunked {

const char* version_string() noexcept { return CHUNKED_VERSION_STRING; }

} // namespace chunked
