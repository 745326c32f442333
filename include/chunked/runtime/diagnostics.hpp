// SPDX-License-Identifier: Apache-2.0
// Waiting for the trace and report files of computations that have returned.
#pragma once

namespace chunked {

/// Waits until the trace and report files (ComputeOptions::trace_path and report_path) of every
/// computation that has returned are complete at their paths, and returns.
///
/// A computation hands its files to a writer thread when it ends, so that formatting them does not
/// delay its return (a trace costs about a microsecond a task to write, as much as a tiny task
/// takes to run). Each file appears at its path whole: it is written beside the path and renamed
/// over it, so that a reader finds the earlier file (or an empty one) or the complete new one,
/// never a part. Files not waited for are finished when the process exits normally (returning
/// from `main` or calling `std::exit`).
///
/// Throws chunked::Error naming the first file that could not be written since the last call (a
/// full disk, a path removed meanwhile); every such failure is also logged at LogLevel::warn. The
/// path itself is checked when the computation starts, which raises the error then.
/// @code
/// opts.trace_path = "run.json";
/// x.compute(opts);
/// chunked::wait_for_diagnostics(); // run.json is complete
/// @endcode
void wait_for_diagnostics();

} // namespace chunked
