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
std::string render_report(const ReportInput& input);

} // namespace chunked::runtime
