// SPDX-License-Identifier: Apache-2.0
// Reading a trace file (ComputeOptions::trace_path) back in the tests of traces.
#pragma once

#include "io/json.hpp"
#include <chunked/runtime/diagnostics.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace chunked::test {

/// The events of the trace file at `path`, checked to be the object form of the format, once the
/// computations that returned have written their files.
inline std::vector<io::Json> trace_events(const std::string& path) {
  wait_for_diagnostics();
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const io::Json trace = io::Json::parse(text.str());
  const io::Json* events = trace.find("traceEvents");
  EXPECT_NE(events, nullptr) << path << " has no traceEvents";
  if (!events)
    return {};
  return events->as_array("traceEvents");
}

/// The string `key` of an event (or of its args), empty when it has none.
inline std::string string_of(const io::Json& event, const char* key) {
  const io::Json* v = event.find(key);
  return v && v->is_string() ? v->as_string(key) : std::string();
}

/// The number `key` of an event (or of its args), -1 when it has none.
inline double number_of(const io::Json& event, const char* key) {
  const io::Json* v = event.find(key);
  return v && v->is_number() ? v->as_double(key) : -1.0;
}

} // namespace chunked::test
