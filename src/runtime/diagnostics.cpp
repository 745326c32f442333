// SPDX-License-Identifier: Apache-2.0
// Diagnostics: a computation's trace and report, checked before it runs and written after.
#include "runtime/diagnostics.hpp"

#include "runtime/report.hpp"
#include <chunked/core/error.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

namespace chunked::runtime {

namespace {

/// Opens `path` for writing (creating or emptying it); chunked::Error naming it when it cannot.
std::ofstream open_for_writing(const std::string& path, const char* option) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw Error(fmt::format("ComputeOptions::{} '{}' cannot be written: {}", option, path,
                            std::strerror(errno)));
  return out;
}

void write_file(const std::string& path, const char* option, const std::string& text) {
  std::ofstream out = open_for_writing(path, option);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out)
    throw Error(
        fmt::format("ComputeOptions::{} '{}': writing {} bytes failed", option, path, text.size()));
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
                 : std::make_unique<Trace>(backend.name())),
      scope_(trace_.get()) {
  // Before anything runs: a long computation must not end in a path it cannot write.
  if (!options.trace_path.empty())
    open_for_writing(options.trace_path, "trace_path");
  if (!options.report_path.empty())
    open_for_writing(options.report_path, "report_path");
}

Diagnostics::~Diagnostics() {
  if (finished_ || !trace_)
    return;
  try {
    write(true);
  } catch (...) { // NOLINT(bugprone-empty-catch): the computation's own error is the one raised
  }
}

void Diagnostics::finish() {
  finished_ = true;
  if (trace_)
    write(false);
}

void Diagnostics::write(bool failed) {
  trace_->sample_memory(true);
  if (!options_.trace_path.empty()) {
    std::ofstream out = open_for_writing(options_.trace_path, "trace_path");
    trace_->write(out);
    out.close();
    if (!out)
      throw Error(fmt::format("ComputeOptions::trace_path '{}': writing the trace failed",
                              options_.trace_path));
  }
  if (options_.report_path.empty())
    return;
  ReportInput input;
  input.title = fmt::format("chunked: a computation on the {} backend{}", backend_.name(),
                            failed ? " (it failed)" : "");
  input.trace_json = trace_->json();
  input.plan = plans_;
  input.options = option_list(options_, backend_);
  const Backend::CopyRate rate = backend_.copy_rate();
  input.copy_rate = rate.bytes_per_second;
  input.copy_rate_label = rate.what;
  write_file(options_.report_path, "report_path", render_report(input));
}

} // namespace chunked::runtime
