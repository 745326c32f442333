// SPDX-License-Identifier: Apache-2.0
// The performance report of ComputeOptions::report_path: one self-contained HTML page drawn from
// a computation's trace.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace chunked::runtime {

/// What a report shows besides the trace itself.
struct ReportInput {
  /// The page's heading, e.g. "chunked: compute on the Cpu backend".
  std::string title;
  /// The computation's Chrome trace-event JSON, as runtime::Trace writes it (trace.hpp lists
  /// the events and their arguments).
  std::string trace_json;
  /// The plan as text (explain()).
  std::string plan;
  /// The options the computation ran with, as name and value.
  std::vector<std::pair<std::string, std::string>> options;
  /// The machine's copy rate in bytes per second (host memory on the CPU, device memory on a
  /// GPU), against which each block program's rate is shown; 0 when unknown.
  double copy_rate = 0;
  /// What copy_rate measures, e.g. "host memcpy, 16 threads".
  std::string copy_rate_label;
};

/// The report: one HTML page with its styles, scripts and data inline (no network needed to view
/// it) showing the task stream, memory over time, a table of time per block program, the plan and
/// the options.
///
/// The page's scripts draw from the trace: "X" spans (or "B"/"E" pairs) per pid/tid track, named
/// by "M" thread_name events; "C" events named "memory"; the header's backend is otherData's
/// "backend", else the name of process 1. Every string is inserted as text, never as markup.
/// When they have drawn everything the scripts set the body's data-rendered attribute to "ok";
/// on an error (a trace that is not JSON, say) they set it to "error: ..." and show the error in
/// <pre id="errors">, so that a headless browser can check the page (tests/report/).
std::string render_report(const ReportInput& input);

} // namespace chunked::runtime
