// SPDX-License-Identifier: Apache-2.0
// chunked-scan-benchmark: cumsum along an axis of a stored float64 array, on any backend, timed
// run by run, beside the copy limits measured in the same process.
//
//   chunked-scan-benchmark [--rows 16384] [--cols 8192] [--chunk 4096] [--axis 1]
//                          [--backend cpu|cuda|auto] [--threads N] [--repeat 5] [--json FILE]
//
// x (rows x cols float64, chunks of --chunk x --chunk) is made with from_host and persist()ed, so
// on CUDA it lives in device memory before any run. Programs:
//   cumsum(x, axis).sum()        to the host (one value); traffic counted as 1 x bytes (x read)
//   cumsum(x, axis).persist()    stays on the backend; traffic 2 x bytes (x read, result written)
//   x.persist()                  the library's own copy of a stored array, 2 x bytes
// The limit on the CPU is the fastest host memcpy of the same traffic on 1, 2, 4, ... up to the
// library's thread count; on a GPU the library's own copy (a device-to-device copy kernel) stands
// for it. A scan reads its blocks in a chain along the axis, so fewer blocks across the axis than
// workers leave workers idle: that is visible here by changing --chunk and --axis.
#include "driver_util.hpp"

#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace chunked;

namespace {

struct Config : bench::CommonOptions {
  index_t rows = 16384;
  index_t cols = 8192;
  index_t chunk = 4096;
  index_t axis = 1;

  Config() : CommonOptions(5) {}
};

constexpr const char* usage_text =
    "usage: chunked-scan-benchmark [--rows R] [--cols C] [--chunk K] [--axis A]\n"
    "                              [--backend cpu|cuda|auto] [--threads N] [--repeat R] [--json "
    "FILE]\n"
    "  --rows       rows of x (default 16384)\n"
    "  --cols       columns of x (default 8192)\n"
    "  --chunk      chunk edge, both axes (default 4096)\n"
    "  --axis       axis of the scan: 0, 1, -1 or -2 (default 1)\n" CHUNKED_BENCH_USAGE_COMMON(
        "timed runs after one warm-up run (default 5)");

bool parse_args(int argc, char** argv, Config& c) {
  return bench::parse_command_line(argc, argv, "chunked-scan-benchmark", usage_text, 1, c,
                                   [&](std::string_view arg, std::string_view value) {
                                     if (arg == "--rows")
                                       c.rows = bench::parse_int(arg, value, 1);
                                     else if (arg == "--cols")
                                       c.cols = bench::parse_int(arg, value, 1);
                                     else if (arg == "--chunk")
                                       c.chunk = bench::parse_int(arg, value, 1);
                                     else if (arg == "--axis")
                                       c.axis = bench::parse_int(arg, value, -2);
                                     else
                                       return false;
                                     return true;
                                   });
}

/// The fastest host memcpy of `traffic` bytes (half read, half written) over 1, 2, 4, ... and
/// `threads` threads, each copying its own slice, median of 3 per count, pages touched first.
double memcpy_rate(std::size_t traffic, int threads) {
  const std::size_t n = traffic / 2;
  auto src = std::make_unique<unsigned char[]>(n);
  auto dst = std::make_unique<unsigned char[]>(n);
  auto copy_on = [&](int count, bool touch) {
    const std::size_t part = (n + static_cast<std::size_t>(count) - 1) / count;
    std::vector<std::thread> pool;
    for (int t = 0; t < count; ++t)
      pool.emplace_back([&, t] {
        const std::size_t lo = std::min(n, t * part), hi = std::min(n, lo + part);
        if (touch)
          std::memset(dst.get() + lo, 1, hi - lo), std::memset(src.get() + lo, 2, hi - lo);
        else
          std::memcpy(dst.get() + lo, src.get() + lo, hi - lo);
      });
    for (auto& th : pool)
      th.join();
  };
  copy_on(threads, true);
  double best = 0;
  for (int count = 1;; count = std::min(2 * count, threads)) {
    std::vector<double> times;
    for (int i = 0; i < 3; ++i)
      times.push_back(bench::seconds_of([&] { copy_on(count, false); }));
    best = std::max(best, static_cast<double>(traffic) / bench::median(times) / 1e9);
    if (count == threads)
      return best;
  }
}

struct Program {
  std::string name;
  double traffic = 0;
  double first_s = 0;
  std::vector<double> runs_s;
};

/// The sum of cumsum(x, axis) from the pattern on the host: element k along the axis is counted
/// once for every position at or after it.
double reference_total(index_t rows, index_t cols, index_t axis) {
  long double total = 0;
  for (index_t r = 0; r < rows; ++r)
    for (index_t j = 0; j < cols; ++j)
      total += static_cast<long double>(bench::pattern_value(r * cols + j)) *
               static_cast<long double>(axis == 0 ? rows - r : cols - j);
  return static_cast<double>(total);
}

template <class B> std::vector<Program> measure(const Config& c, const ComputeOptions& options) {
  const Shape shape{c.rows, c.cols};
  const Chunks chunks{std::min(c.chunk, c.rows), std::min(c.chunk, c.cols)};
  ChunkedArray<double, B> x;
  {
    std::vector<double> host(static_cast<std::size_t>(c.rows * c.cols));
    for (std::size_t i = 0; i < host.size(); ++i)
      host[i] = bench::pattern_value(static_cast<std::int64_t>(i));
    x = from_host<B>(host, shape, chunks).persist(options);
  }
  const double bytes = static_cast<double>(c.rows * c.cols) * 8;
  const auto scanned = cumsum(x, c.axis);
  const auto total = scanned.sum();
  std::vector<Program> programs{{"cumsum_sum", bytes, 0, {}},
                                {"cumsum_persist", 2 * bytes, 0, {}},
                                {"library_copy", 2 * bytes, 0, {}}};
  double value = 0;
  ChunkedArray<double, B> kept;
  auto run_one = [&](std::size_t p) {
    return bench::seconds_of([&] {
      if (p == 0)
        value = total.item(options);
      else
        kept = (p == 1 ? scanned : x).persist(options);
    });
  };
  for (std::size_t p = 0; p < programs.size(); ++p) {
    programs[p].first_s = run_one(p);
    wait_for_kernels(); // warm runs launch the fused kernels
    for (int r = 0; r < c.repeat; ++r)
      programs[p].runs_s.push_back(run_one(p));
    kept = {};
  }
  const double want = reference_total(c.rows, c.cols, c.axis < 0 ? c.axis + 2 : c.axis);
  if (!(std::abs(value - want) <= 1e-9 * std::abs(want)))
    throw std::runtime_error(
        fmt::format("cumsum(x, {}).sum() is {:.17g}, expected {:.17g}", c.axis, value, want));
  return programs;
}

} // namespace

int main(int argc, char** argv) try {
  Config c;
  if (!parse_args(argc, argv, c))
    return 2;
  if (c.axis > 1)
    throw std::invalid_argument("--axis must be 0, 1, -1 or -2");
  ComputeOptions options = bench::compute_options(c);
  const bench::Machine machine(c.backend);
  const int workers = c.threads > 0 ? c.threads : static_cast<int>(std::max(machine.cores, 1u));
  const std::vector<Program> programs =
      bench::with_backend(c.backend, [&]<class B>() { return measure<B>(c, options); });
  const double bytes = static_cast<double>(c.rows * c.cols) * 8;
  const double copy_rate = programs[2].traffic / bench::median(programs[2].runs_s) / 1e9;
  const double limit =
      machine.gpu ? copy_rate : memcpy_rate(static_cast<std::size_t>(2 * bytes), workers);
  const char* limit_name = machine.gpu ? "the library copy" : "memcpy";

  machine.print_header("chunked-scan-benchmark");
  fmt::print("config:   {} x {} float64 ({:.3g} GiB), chunks {} x {}, axis {}, {}; 1 warm-up + "
             "{} timed runs\n",
             c.rows, c.cols, bytes / double(1 << 30), std::min(c.chunk, c.rows),
             std::min(c.chunk, c.cols), c.axis,
             machine.gpu ? std::string("one worker per GPU") : fmt::format("{} threads", workers),
             c.repeat);
  fmt::print("limit:    {} {:.2f} GB/s (read + write); library copy {:.2f} GB/s\n", limit_name,
             limit, copy_rate);
  std::string json_programs;
  for (const Program& p : programs) {
    const double med = bench::median(p.runs_s);
    const double rate = p.traffic / med / 1e9;
    fmt::print("{:<16} median {:9.2f} ms (first {:9.2f} ms)  {:8.2f} GB/s  {:.2f} of {}\n", p.name,
               med * 1e3, p.first_s * 1e3, rate, rate / limit, limit_name);
    json_programs += fmt::format(
        R"({}    "{}": {{"traffic_bytes": {:.17g}, "first_s": {:.6g}, "runs_s": {}, "median_s": {:.6g}, "GBps": {:.6g}, "vs_limit": {:.6g}}})",
        json_programs.empty() ? "" : ",\n", p.name, p.traffic, p.first_s,
        bench::json_list(p.runs_s), med, rate, rate / limit);
  }
  fmt::print("cumsum(x, axis).sum() checked against the host reference: ok\n");
  if (!c.json.empty())
    bench::write_file(
        c.json,
        machine.json_header("scan") +
            fmt::format(
                R"(  "config": {{"shape": [{}, {}], "chunk": {}, "axis": {}, "backend": "{}", "threads": {}, "repeat": {}}},
  "limit_GBps": {{"{}": {:.6g}, "library_copy": {:.6g}}},
  "programs": {{
{}
  }}
}}
)",
                c.rows, c.cols, c.chunk, c.axis, c.backend, c.threads, c.repeat,
                machine.gpu ? "library_copy" : "memcpy", limit, copy_rate, json_programs));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "chunked-scan-benchmark: %s\n", e.what());
  return 1;
}
