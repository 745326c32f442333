// SPDX-License-Identifier: Apache-2.0
// The diagnostics of one public computation (compute(), persist(), to_zarr() ...): its trace
// and report when ComputeOptions asks for them, around every plan it makes and runs.
#pragma once

#include "plan/explain.hpp"
#include "plan/plan.hpp"
#include "runtime/backend.hpp"
#include "runtime/trace.hpp"
#include <chunked/runtime/compute_options.hpp>

#include <memory>
#include <optional>
#include <string>

namespace chunked::runtime {

/// Lives as long as the computation, on the thread that called it. With neither trace_path nor
/// report_path it records nothing, and a computation started by one of the tasks (a user
/// function that computes) records into no trace unless its own options ask for one.
class Diagnostics {
public:
  /// Checks that the paths can be written (chunked::Error naming the path) before anything runs.
  Diagnostics(const ComputeOptions& options, const Backend& backend);
  /// After a failure (finish() not called): hands over what was recorded all the same.
  ~Diagnostics();
  Diagnostics(const Diagnostics&) = delete;
  Diagnostics& operator=(const Diagnostics&) = delete;

  /// Makes a plan with `make`, recorded as "planning".
  template <class Make> plan::Plan plan(Make&& make) {
    if (!trace_)
      return make();
    const std::int64_t start = trace_->now();
    plan::Plan p = make();
    trace_->span("planning", "plan", start, trace_->now());
    // Only the report shows the plan: a trace alone does not pay for describing it.
    if (!options_.report_path.empty() && !p.roots.empty())
      plans_ += plan::explain(p, std::string(backend_.name()) + " backend") + "\n";
    return p;
  }

  /// Runs `plan`'s tasks with `run`; its task events are named by the plan afterwards.
  template <class Run> decltype(auto) run(const plan::Plan& plan, Run&& run) {
    if (!trace_)
      return run();
    trace_->begin_plan();
    struct Named {
      Trace& trace;
      const plan::Plan& plan;
      ~Named() {
        trace.sample_memory();
        trace.end_plan(plan);
      }
    } named{*trace_, plan};
    return run();
  }

  /// Hands the trace and the report to the diagnostics writer (runtime/diagnostics_writer.hpp),
  /// which writes them after the computation returns.
  void finish();

private:
  void hand_over(bool failed);

  const ComputeOptions& options_;
  const Backend& backend_;
  std::unique_ptr<Trace> trace_;
  std::optional<TraceScope> scope_; ///< ended before the trace is handed over
  std::string plans_;
  bool finished_ = false;
};

} // namespace chunked::runtime
