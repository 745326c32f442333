// SPDX-License-Identifier: Apache-2.0
// The process's writer of trace and report files: a computation hands its files over when it
// ends and returns; one thread formats and writes them, in the order they were handed over.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

namespace chunked::runtime {

/// Runs `write` on the writer thread after every write handed over before it. Waits first while
/// two writes are queued behind the one running, so that traces recorded faster than they are
/// written hold a bounded amount of memory. `write` throws chunked::Error for a file it cannot
/// write; the first such error is raised by the next wait_for_diagnostics_writes().
void write_diagnostics_later(std::function<void()> write);

/// Waits until every write handed over so far has run. Throws the first chunked::Error one of
/// them raised since the last call (the writes after it still ran).
void wait_for_diagnostics_writes();

/// Writes the file `path` whole with `produce`: a regular file (or a path that does not exist
/// yet) is written beside it and renamed over it, so that a reader finds either the earlier file
/// or the complete new one; anything else (a device such as /dev/null, a pipe) is written in
/// place. `option` names the ComputeOptions field in the chunked::Error raised when it cannot be
/// written.
void write_file_whole(const std::string& path, const char* option,
                      const std::function<void(std::ostream&)>& produce);

} // namespace chunked::runtime
