// SPDX-License-Identifier: Apache-2.0
// What the library says about its own work: where a computation runs and why, code generation
// and its caches, blocks spilled to files and read back. Off the hot path: a message below the
// level costs one comparison.
#pragma once

#include <functional>
#include <string_view>

namespace chunked {

/// How much a message matters, least first.
enum class LogLevel : int { debug = 0, info = 1, warn = 2 };

/// Receives each message at or above log_level(), one call at a time, from whichever thread
/// wrote it. An exception it throws is dropped: logging never fails a computation.
using LogHandler = std::function<void(LogLevel, std::string_view)>;

/// Sends the library's messages to `handler` instead of standard error (as
/// "chunked [level] message" lines); an empty handler restores standard error. Returns the
/// handler it replaces (empty for standard error).
/// @code
/// chunked::set_log_handler([](chunked::LogLevel l, std::string_view m) { my_log(l, m); });
/// @endcode
LogHandler set_log_handler(LogHandler handler);

/// The least level delivered: the environment variable CHUNKED_LOG (debug, info or warn; read
/// at the first message) until set_log_level is called; warn without either.
LogLevel log_level();
/// Sets the least level delivered, for the rest of the process.
void set_log_level(LogLevel level);

/// "debug", "info" or "warn".
std::string_view to_string(LogLevel level);

} // namespace chunked
