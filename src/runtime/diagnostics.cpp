// SPDX-License-Identifier: Apache-2.0
// Diagnostics: a computation's trace and report, checked before it runs and written after.
#include "runtime/diagnostics.hpp"

#include "runtime/diagnostics_writer.hpp"
#include "runtime/report.hpp"
#include <chunked/core/error.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

namespace chunked::runtime {

namespace {

/// Checks that `path` can be written, before anything runs: a long computation must not end in
/// a path it cannot write. Opened to append, so that an earlier file stays until the new one
/// replaces it whole.
void check_writable(const std::string& path, const char* option) {
  const std::ofstream out(path, std::ios::binary | std::ios::app);
  if (!out)
    throw Error(fmt::format("ComputeOptions::{} '{}' cannot be written: {}", option, path,
                            std::strerror(errno)));
}

std::string bytes_or_default(std::size_t bytes, const char* otherwise) {
  return bytes == 0 ? std::string(otherwise) : std::to_string(bytes) + " bytes";
}

/// The options a report lists, as the user would set them.
std::vector<std::pair<std::string, std::string>> option_list(const ComputeOptions& o,
                                                             const Backend& backend) {
  std::string devices = o.devices.empty() ? "all visible" : "";
  for (std::size_t i = 0; i < o.devices.size(); ++i)
    devices += (i ? ", " : "") + std::to_string(o.devices[i]);
  return {
      {"backend", backend.name()},
      {"scheduler", o.scheduler == Scheduler::threads ? "threads" : "single_threaded"},
      {"num_threads",
       o.num_threads == 0 ? "0 (all hardware threads)" : std::to_string(o.num_threads)},
      {"devices", devices},
      {"streams_per_device", o.streams_per_device == 0 ? "0 (the backend's choice)"
                                                       : std::to_string(o.streams_per_device)},
      {"device_memory_limit", bytes_or_default(o.device_memory_limit, "0 (80 % of free memory)")},
      {"host_memory_limit", bytes_or_default(o.host_memory_limit, "0 (no limit)")},
      {"spill_directory",
       o.spill_directory.empty() ? "(the system's temporary directory)" : o.spill_directory},
      {"progress_bar", o.progress_bar ? "true" : "false"},
      {"exact_sums", o.exact_sums ? "true" : "false"},
      {"stream", o.stream ? "a stream of the caller" : "none"},
      {"device_memory_resource", o.device_memory_resource ? "the caller's" : "the library's"},
      {"pinned_memory_resource", o.pinned_memory_resource ? "the caller's" : "the library's"},
      {"trace_path", o.trace_path},
      {"report_path", o.report_path},
  };
}

} // namespace

Diagnostics::Diagnostics(const ComputeOptions& options, const Backend& backend)
    : options_(options), backend_(backend),
      trace_(options.trace_path.empty() && options.report_path.empty()
                 ? nullptr
                 : std::make_unique<Trace>(backend.name())) {
  scope_.emplace(trace_.get());
  if (!options.trace_path.empty())
    check_writable(options.trace_path, "trace_path");
  if (!options.report_path.empty())
    check_writable(options.report_path, "report_path");
}

Diagnostics::~Diagnostics() {
  if (finished_ || !trace_)
    return;
  try {
    hand_over(true);
  } catch (...) { // NOLINT(bugprone-empty-catch): the computation's own error is the one raised
  }
}

void Diagnostics::finish() {
  finished_ = true;
  if (trace_)
    hand_over(false);
}

void Diagnostics::hand_over(bool failed) {
  // Nothing records into the trace once it is handed over: not this thread's later work, and the
  // workers and streams of the computation are done with it.
  scope_.reset();
  trace_->sample_memory();
  std::optional<ReportInput> report;
  if (!options_.report_path.empty()) {
    report.emplace();
    report->title = fmt::format("chunked: a computation on the {} backend{}", backend_.name(),
                                failed ? " (it failed)" : "");
    report->plan = std::move(plans_);
    report->options = option_list(options_, backend_);
    const Backend::CopyRate rate = backend_.copy_rate();
    report->copy_rate = rate.bytes_per_second;
    report->copy_rate_label = rate.what;
  }
  // Formatting a trace costs more than recording it (a microsecond a task, for tasks that take
  // one): the files are written after the computation returns, on the writer's thread.
  write_diagnostics_later([trace = std::shared_ptr<Trace>(std::move(trace_)),
                           trace_path = options_.trace_path, report_path = options_.report_path,
                           report = std::move(report)]() mutable {
    if (!trace_path.empty())
      write_file_whole(trace_path, "trace_path", [&](std::ostream& out) { trace->write(out); });
    if (!report)
      return;
    report->trace_json = trace->json();
    const std::string page = render_report(*report);
    write_file_whole(report_path, "report_path", [&](std::ostream& out) {
      out.write(page.data(), static_cast<std::streamsize>(page.size()));
    });
  });
}

} // namespace chunked::runtime
