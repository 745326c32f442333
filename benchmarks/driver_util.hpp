// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the benchmark drivers: argument parsing, machine description, JSON, medians.
#pragma once

#include <chunked/core/backend_tags.hpp>
#include <chunked/core/version.hpp>
#include <chunked/runtime/compute_options.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

/// The last lines of a usage text whose option names are padded to 13 columns: the options every
/// driver has, `repeat` saying what --repeat counts.
#define CHUNKED_BENCH_USAGE_COMMON(repeat)                                                         \
  "  --backend    where to compute (default auto: CUDA when a device is usable, else the CPU)\n"   \
  "  --threads    CPU worker threads (default 0: all hardware threads)\n"                          \
  "  --repeat     " repeat "\n"                                                                    \
  "  --json       also write the results to FILE as JSON\n"                                        \
  "  --trace      write each computation's Chrome trace to FILE (the last one's stays)\n"          \
  "  --report     write each computation's HTML report to FILE (the last one's stays)\n"           \
  "  --exact-sums ComputeOptions::exact_sums: sums that do not depend on the chunking\n"

namespace chunked::bench {

/// The options every driver takes; parse_common_option fills them.
struct CommonOptions {
  std::string backend = "auto";
  int threads = 0;
  int repeat = 0;
  std::string json;
  std::string trace, report; ///< ComputeOptions::trace_path and report_path of every computation
  bool exact_sums = false;   ///< ComputeOptions::exact_sums (--exact-sums)

  explicit CommonOptions(int default_repeat) : repeat(default_repeat) {}
};

/// The options of the drivers over float64 arrays made on the host; parse_size_option fills them.
struct SizeOptions : CommonOptions {
  double gib = 1.0;
  std::int64_t chunk_mib = 0;

  SizeOptions(int default_repeat, std::int64_t default_chunk_mib)
      : CommonOptions(default_repeat), chunk_mib(default_chunk_mib) {}

  /// How many rows of `row_elements` float64 fit in --gib GiB; throws std::invalid_argument
  /// "--gib is too small for `what`" when fewer than `min_rows` do.
  std::int64_t rows(std::int64_t row_elements, std::int64_t min_rows, std::string_view what) const {
    const auto n = static_cast<std::int64_t>(gib * double(1 << 30) / (8.0 * row_elements));
    if (n < min_rows)
      throw std::invalid_argument(fmt::format("--gib is too small for {}", what));
    return n;
  }
};

inline std::int64_t parse_int(std::string_view flag, std::string_view text, std::int64_t min) {
  try {
    std::size_t used = 0;
    const std::int64_t v = std::stoll(std::string(text), &used);
    if (used == text.size() && v >= min)
      return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(
      fmt::format("{} expects an integer >= {}, got '{}'", flag, min, text));
}

inline double parse_positive(std::string_view flag, std::string_view text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(std::string(text), &used);
    if (used == text.size() && v > 0)
      return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(fmt::format("{} expects a positive number, got '{}'", flag, text));
}

/// Takes the options every driver has (--backend, --threads, --repeat, --json, --trace,
/// --report) into `c`;
/// false when `arg value` is not one of them, a --backend value outside cpu|cuda|auto included.
inline bool parse_common_option(std::string_view arg, std::string_view value, CommonOptions& c,
                                std::int64_t min_repeat) {
  if (arg == "--backend" && (value == "cpu" || value == "cuda" || value == "auto"))
    c.backend = value;
  else if (arg == "--threads")
    c.threads = static_cast<int>(parse_int(arg, value, 0));
  else if (arg == "--repeat")
    c.repeat = static_cast<int>(parse_int(arg, value, min_repeat));
  else if (arg == "--json")
    c.json = value;
  else if (arg == "--trace")
    c.trace = value;
  else if (arg == "--report")
    c.report = value;
  else
    return false;
  return true;
}

/// The ComputeOptions of the common options: worker threads, and the trace and report paths.
inline ComputeOptions compute_options(const CommonOptions& c) {
  ComputeOptions options;
  options.num_threads = c.threads;
  options.trace_path = c.trace;
  options.report_path = c.report;
  options.exact_sums = c.exact_sums;
  return options;
}

/// Takes the size options of the drivers over host-made arrays (--gib, --chunk-mib) into `c`;
/// false when `arg` is neither.
inline bool parse_size_option(std::string_view arg, std::string_view value, SizeOptions& c) {
  if (arg == "--gib")
    c.gib = parse_positive(arg, value);
  else if (arg == "--chunk-mib")
    c.chunk_mib = parse_int(arg, value, 1);
  else
    return false;
  return true;
}

/// Fills `c` from the command line. `--help`/`-h` prints `usage` and exits; `flag(arg)` takes the
/// options without a value (returns whether it knew `arg`), `option(arg, value)` the driver's own
/// `--name value` pairs after the common ones. On a bad argument prints the error and `usage` to
/// stderr and returns false (the driver then exits with status 2).
template <class Config, class Option, class Flag>
bool parse_command_line(int argc, char** argv, const char* program, const char* usage,
                        std::int64_t min_repeat, Config& c, Option&& option, Flag&& flag) {
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string_view arg = argv[i];
      if (flag(arg))
        continue;
      if (arg == "--exact-sums") {
        c.exact_sums = true;
        continue;
      }
      if (arg == "--help" || arg == "-h") {
        std::fputs(usage, stdout);
        std::exit(0);
      }
      if (i + 1 >= argc)
        throw std::invalid_argument(fmt::format("unknown option or missing value: '{}'", arg));
      const std::string_view value = argv[++i];
      if (!parse_common_option(arg, value, c, min_repeat) && !option(arg, value))
        throw std::invalid_argument(fmt::format("unknown option '{} {}'", arg, value));
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n%s", program, e.what(), usage);
    return false;
  }
  return true;
}

/// The same for drivers without valueless options.
template <class Config, class Option>
bool parse_command_line(int argc, char** argv, const char* program, const char* usage,
                        std::int64_t min_repeat, Config& c, Option&& option) {
  return parse_command_line(argc, argv, program, usage, min_repeat, c, std::forward<Option>(option),
                            [](std::string_view) { return false; });
}

/// Calls `f.template operator()<B>()` with the backend tag that --backend names.
template <class F> decltype(auto) with_backend(std::string_view backend, F&& f) {
  if (backend == "cpu")
    return f.template operator()<Cpu>();
  if (backend == "cuda")
    return f.template operator()<Cuda>();
  return f.template operator()<Auto>();
}

inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos)
        return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

inline std::string json_escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\')
      out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20)
      out += fmt::format("\\u{:04x}", static_cast<int>(ch));
    else
      out += ch;
  }
  return out;
}

/// Where a driver runs, as its report and JSON describe it.
struct Machine {
  std::string backend;  ///< what --backend asked for: cpu, cuda or auto
  bool gpu = false;     ///< whether the work runs on CUDA devices
  std::string resolved; ///< "cuda" or "cpu"
  unsigned cores = std::thread::hardware_concurrency();

  explicit Machine(std::string_view requested)
      : backend(requested), gpu(requested == "cuda" || (requested == "auto" && cuda_available())),
        resolved(gpu ? "cuda" : "cpu") {}

  /// The report's first two lines: program and version, then the machine.
  void print_header(std::string_view program) const {
    fmt::print("{} (chunked {})\n", program, version_string());
    fmt::print("machine:  {}, {} hardware threads; backend {}{}\n", cpu_model(), cores, resolved,
               backend == "auto" ? " (auto)" : "");
  }

  /// The opening of a driver's JSON record, up to and including the "machine" line.
  std::string json_header(std::string_view benchmark) const {
    return fmt::format(R"({{
  "benchmark": "{}",
  "implementation": "chunked",
  "version": "{}",
  "date": "{}",
  "machine": {{"cpu_model": "{}", "hardware_threads": {}, "backend": "{}"}},
)",
                       benchmark, version_string(), utc_now(), json_escape(cpu_model()), cores,
                       resolved);
  }
};

/// Writes `text` to `path`, or throws.
inline void write_file(const std::string& path, std::string_view text) {
  std::ofstream out(path);
  out << text;
  if (!out)
    throw std::runtime_error("cannot write " + path);
}

/// A JSON array of numbers.
inline std::string json_list(const std::vector<double>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    out += fmt::format("{}{:.6g}", i ? ", " : "", v[i]);
  return out + "]";
}

inline double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Seconds of wall time of one call of f (every compute call returns after its work is done,
/// GPU work included, so a host clock times it correctly).
template <class F> double seconds_of(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Element i of the arrays the drivers store: varied values near 1, periodic so that sums have a
/// closed form (see pattern_sum).
inline double pattern_value(std::int64_t i) { return 1.0 + static_cast<double>(i % 977) * 1e-3; }

/// The exact sum of pattern_value(i) for i in [0, n), rounded once.
inline double pattern_sum(std::int64_t n) {
  const std::int64_t q = n / 977, r = n % 977;
  const std::int64_t residues = q * (976 * 977 / 2) + r * (r - 1) / 2;
  return static_cast<double>(n) + 1e-3 * static_cast<double>(residues);
}

} // namespace chunked::bench
