// SPDX-License-Identifier: Apache-2.0
// Writes the fixture's report (fixture.hpp) and its trace, for the headless-browser check.
// Usage: chunked_report_fixture REPORT.html TRACE.json
#include "report/fixture.hpp"
#include "runtime/report.hpp"

#include <cstdio>
#include <fstream>
#include <string>

namespace {

bool write_file(const char* path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "report_fixture: cannot write %s\n", path);
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s REPORT.html TRACE.json\n", argv[0]);
    return 2;
  }
  const chunked::runtime::ReportInput input = chunked::test::fixture_report_input();
  return write_file(argv[1], chunked::runtime::render_report(input)) &&
                 write_file(argv[2], input.trace_json)
             ? 0
             : 1;
}
