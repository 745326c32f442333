// SPDX-License-Identifier: Apache-2.0
// Writing to the log from inside the library (the public side is chunked/runtime/log.hpp).
#pragma once

#include <chunked/runtime/log.hpp>

#include <string_view>

namespace chunked::runtime {

/// Whether a message of `level` is delivered: test it before building an expensive message.
bool logging(LogLevel level);
/// Delivers `message` to the handler (or stderr) when `level` is at or above log_level().
void log(LogLevel level, std::string_view message) noexcept;

} // namespace chunked::runtime
