// SPDX-License-Identifier: Apache-2.0
// A computation that writes its report and trace through the public API only, for the
// headless-browser check of a real run's report.
// Usage: chunked_report_smoke REPORT.html TRACE.json
#include <chunked/chunked.hpp>

#include <cstdio>
#include <exception>
#include <filesystem>

int main(int argc, char** argv) try {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s REPORT.html TRACE.json\n", argv[0]);
    return 2;
  }
  for (const char* path : {argv[1], argv[2]})
    std::filesystem::remove(path);

  using namespace chunked;
  Generator g(1);
  auto x = g.normal<double, Cpu>(Shape{2000, 2000}, Chunks{500, 500});
  ComputeOptions options;
  options.num_threads = 2;
  options.report_path = argv[1];
  options.trace_path = argv[2];
  const double sum = x.sum().item(options);
  std::printf("sum = %.6g\n", sum);
  wait_for_diagnostics();

  for (const char* path : {argv[1], argv[2]}) {
    std::error_code error;
    if (std::filesystem::file_size(path, error) == 0 || error) {
      std::fprintf(stderr, "report_smoke: the computation wrote no %s\n", path);
      return 1;
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "report_smoke: %s\n", e.what());
  return 1;
}
