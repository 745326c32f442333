// SPDX-License-Identifier: Apache-2.0
// A hand-written report input: a short computation on two host workers and one GPU stream, with
// names, plan text and options that HTML and scripts must not take for markup.
#pragma once

#include "runtime/report.hpp"

#include <string>

namespace chunked::test {

/// The program name that tries to close the page's script element.
inline constexpr const char* hostile_program = "user fn </script><script>alert(1)</script> <!--";

/// A trace in runtime::Trace's format (trace.hpp): metadata, planning, five tasks of three
/// programs on two workers, a wait, a compile, a kernel and a copy on GPU 0's stream 1, and
/// memory counters.
inline std::string fixture_trace_json() {
  return std::string(R"json({"traceEvents": [
{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "host (Cuda)"}},
{"ph": "M", "name": "thread_name", "pid": 1, "tid": 0, "args": {"name": "worker 0 (calling thread)"}},
{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "worker 1"}},
{"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "GPU 0"}},
{"ph": "M", "name": "thread_name", "pid": 100, "tid": 1, "args": {"name": "GPU 0 stream 1"}},
{"ph": "C", "name": "memory", "pid": 1, "tid": 0, "ts": 0, "args": {"host": 0, "pinned": 0, "device": 0, "spilled": 0}},
{"ph": "X", "cat": "plan", "name": "planning", "pid": 1, "tid": 0, "ts": 0, "dur": 50},
{"ph": "X", "cat": "task", "name": "program 0: normal · add · sum", "pid": 1, "tid": 0, "ts": 60, "dur": 400, "args": {"kind": "elementwise", "block": "(0, 0)", "bytes": 2000000, "task": 0, "plan": 0}},
{"ph": "X", "cat": "task", "name": "program 0: normal · add · sum", "pid": 1, "tid": 1, "ts": 60, "dur": 380, "args": {"kind": "elementwise", "block": "(0, 1)", "bytes": 2000000, "task": 1, "plan": 0}},
{"ph": "C", "name": "memory", "pid": 1, "tid": 0, "ts": 60, "args": {"host": 4000000, "pinned": 0, "device": 0, "spilled": 0}},
{"ph": "X", "cat": "wait", "name": "waiting for work", "pid": 1, "tid": 1, "ts": 440, "dur": 130},
{"ph": "X", "cat": "task", "name": "program 1: sum", "pid": 1, "tid": 0, "ts": 470, "dur": 100, "args": {"kind": "reduction", "block": "(0)", "bytes": 16, "task": 2, "plan": 0}},
{"ph": "C", "name": "memory", "pid": 1, "tid": 0, "ts": 470, "args": {"host": 8000000, "pinned": 1000000, "device": 0, "spilled": 0}},
{"ph": "X", "cat": "compile", "name": "NVRTC compile store", "pid": 1, "tid": 0, "ts": 580, "dur": 200},
{"ph": "X", "cat": "task", "name": ")json") +
         hostile_program +
         R"json(", "pid": 1, "tid": 1, "ts": 600, "dur": 50, "args": {"kind": "user", "block": "(1, 0)", "bytes": 8, "task": 3, "plan": 0}},
{"ph": "X", "cat": "task", "name": "program 0: normal · add · sum", "pid": 1, "tid": 1, "ts": 660, "dur": 90, "args": {"kind": "elementwise", "block": "(1, 1)", "bytes": 2000000, "task": 4, "plan": 0}},
{"ph": "X", "cat": "kernel", "name": "store", "pid": 100, "tid": 1, "ts": 800, "dur": 120, "args": {"task": 4, "plan": 0}},
{"ph": "C", "name": "memory", "pid": 1, "tid": 0, "ts": 800, "args": {"host": 2000000, "pinned": 1000000, "device": 4000000, "spilled": 0}},
{"ph": "X", "cat": "copy", "name": "copy host to device", "pid": 100, "tid": 1, "ts": 930, "dur": 60, "args": {"task": 4, "plan": 0, "bytes": 4000000}},
{"ph": "C", "name": "memory", "pid": 1, "tid": 0, "ts": 1000, "args": {"host": 0, "pinned": 0, "device": 0, "spilled": 0}}
],
"displayTimeUnit": "ms",
"otherData": {"backend": "Cuda"}}
)json";
}

/// The fixture's whole input: the trace, a plan and options with markup characters in them, and
/// a copy rate.
inline runtime::ReportInput fixture_report_input() {
  runtime::ReportInput input;
  input.title = "chunked: sum <fixture> & more";
  input.trace_json = fixture_trace_json();
  input.plan = "program 0: normal · add · sum\n  4 blocks, where x < y && y > z\n"
               "program 1: sum\n  1 block\n";
  input.options = {{"num_threads", "2"}, {"report_path", "run<1>.html"}, {"backend", "Cuda"}};
  input.copy_rate = 10e9;
  input.copy_rate_label = "host memcpy, 2 threads";
  return input;
}

} // namespace chunked::test
