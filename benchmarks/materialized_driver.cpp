// SPDX-License-Identifier: Apache-2.0
// chunked-b3-benchmark: elementwise programs and reductions over arrays stored in the backend's
// memory (BENCHMARKS.md B3), on any backend, timed run by run.
//
//   chunked-b3-benchmark [--gib 1] [--cols 4096] [--chunk-mib 128 | --chunk-cols K]
//                        [--backend cpu|cuda|auto]
//                        [--threads N] [--repeat 5] [--json FILE] [--exact-sums]
//
// Four arrays a, b, c, x of --gib GiB each (rows x --cols float64) are made with from_host and
// persist()ed, so on CUDA they live in device memory before any run. Programs:
//   (a * b + c).sum(Axes{0})                    result to the host (one row), traffic 3 x bytes
//   (x - x.mean(Axes{0})) / x.std(Axes{0})      result persisted (stays on the backend), 2 x bytes
//   a.persist()                                 the library's own copy of a stored array, 2 x bytes
//   x.mean(Axes{0}), x.std(Axes{0}) alone       to the host: the parts of standardize, 1 x bytes
//   a.sum()                                     the whole array's sum, 1 x bytes
//   (a + 0.0).persist()                         a computed copy (a kernel, not a copy call), 2 x
//   bytes a[1:].persist()                             blocks gathered from two stored blocks each,
//   2 x bytes
// --exact-sums runs them all with ComputeOptions::exact_sums.
// Traffic counts each byte the program must read or write once (B3). The limit on the CPU is the
// fastest memcpy of the same traffic split over 1, 2, 4, ... up to the same number of threads,
// timed here; on a GPU it is a device-to-device copy, which needs CUDA and is therefore measured
// by benchmarks/peers/b3_gpu.py (benchmarks/run_gpu_peers.py sets the two side by side); the
// library's own copy is printed beside it. Results are checked against host references on a few
// columns. Standardize is also given counting the two reads and one write it must make, against
// the fastest copy (the larger of memcpy and the library's copy).
#include "driver_util.hpp"

#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace chunked;

namespace {

struct Config : bench::SizeOptions {
  index_t cols = 4096;
  index_t chunk_cols = 0;    ///< > 0: chunks of whole columns, this many wide (--chunk-mib unused)
  std::string trace_program; ///< non-empty: --trace and --report follow this program alone

  Config() : SizeOptions(5, 128) {}
};

constexpr const char* usage_text =
    "usage: chunked-b3-benchmark [--gib G] [--cols C] [--chunk-mib M | --chunk-cols K]\n"
    "                            [--backend cpu|cuda|auto] [--threads N] [--repeat R] [--json "
    "FILE]\n"
    "                            [--exact-sums] [--trace-program NAME]\n"
    "  --gib        size of each of the four arrays in GiB (default 1)\n"
    "  --cols       columns (default 4096); rows follow from --gib\n"
    "  --chunk-mib  chunk size in MiB, whole rows (default 128)\n"
    "  --chunk-cols chunks of whole columns, K wide, instead: each chunk spans the reduced "
    "axis\n"
    "  --trace-program  --trace and --report record this program's runs alone (e.g.\n"
    "               part_mean_axis0), not the last computation\n" CHUNKED_BENCH_USAGE_COMMON(
        "timed runs after one warm-up run (default 5)");

bool parse_args(int argc, char** argv, Config& c) {
  return bench::parse_command_line(argc, argv, "chunked-b3-benchmark", usage_text, 1, c,
                                   [&](std::string_view arg, std::string_view value) {
                                     if (arg == "--cols")
                                       c.cols = bench::parse_int(arg, value, 1);
                                     else if (arg == "--chunk-cols")
                                       c.chunk_cols = bench::parse_int(arg, value, 1);
                                     else if (arg == "--trace-program")
                                       c.trace_program = std::string(value);
                                     else
                                       return bench::parse_size_option(arg, value, c);
                                     return true;
                                   });
}

/// The CPU limit: the fastest memcpy of `traffic` bytes (half read, half written) on 1, 2, 4, ...
/// and `threads` threads, each thread copying its own slice; a median of 5 per thread count, the
/// buffers touched first so that no page faults are timed. Every count up to the library's is
/// tried because glibc's memcpy on every core of a machine can be slower than on fewer (on a
/// 16-core Xeon, 67-80 GB/s on 16 threads against 100 on 8), and the limit is what a memcpy can
/// do on the machine, not how one thread count happens to fare.
struct MemcpyLimit {
  double rate = 0; // GB/s, read + write
  int threads = 0;
  std::vector<std::pair<int, double>> by_threads;
};

MemcpyLimit memcpy_limit(std::size_t traffic, int threads) {
  const std::size_t n = traffic / 2;
  auto src = std::make_unique<unsigned char[]>(n);
  auto dst = std::make_unique<unsigned char[]>(n);
  auto on_threads = [&](int count, bool touch) {
    const std::size_t part = (n + count - 1) / count;
    std::vector<std::thread> pool;
    for (int t = 0; t < count; ++t)
      pool.emplace_back([&, t] {
        const std::size_t lo = std::min(n, t * part), hi = std::min(n, lo + part);
        if (touch) {
          std::memset(src.get() + lo, 1, hi - lo);
          std::memset(dst.get() + lo, 2, hi - lo);
        } else {
          std::memcpy(dst.get() + lo, src.get() + lo, hi - lo);
        }
      });
    for (auto& th : pool)
      th.join();
  };
  on_threads(threads, true);
  MemcpyLimit limit;
  for (int count = 1;; count = std::min(2 * count, threads)) {
    std::vector<double> times;
    for (int i = 0; i < 5; ++i)
      times.push_back(bench::seconds_of([&] { on_threads(count, false); }));
    const double rate = static_cast<double>(traffic) / bench::median(times) / 1e9;
    limit.by_threads.emplace_back(count, rate);
    if (rate > limit.rate) {
      limit.rate = rate;
      limit.threads = count;
    }
    if (count == threads)
      return limit;
  }
}

struct Program {
  std::string name;
  double traffic = 0;
  double first_s = 0;
  std::vector<double> runs_s;
};

/// Column j of (a * b + c).sum(axis 0) and of the standardised x, from the host pattern.
struct Reference {
  double fma_sum = 0;
  double mean = 0;
  double stddev = 0;
};

Reference reference_column(index_t rows, index_t cols, index_t j) {
  long double s = 0, m = 0;
  for (index_t r = 0; r < rows; ++r) {
    const double v = bench::pattern_value(r * cols + j);
    s += static_cast<long double>(v * v + v);
    m += v;
  }
  m /= rows;
  long double var = 0;
  for (index_t r = 0; r < rows; ++r) {
    const long double d = bench::pattern_value(r * cols + j) - m;
    var += d * d;
  }
  return {static_cast<double>(s), static_cast<double>(m),
          static_cast<double>(std::sqrt(var / rows))};
}

template <class B>
std::vector<Program> measure(const Config& c, index_t rows, const ComputeOptions& traced) {
  // With --trace-program, the other programs and the checks run untraced.
  ComputeOptions options = traced;
  if (!c.trace_program.empty()) {
    options.trace_path.clear();
    options.report_path.clear();
  }
  const index_t cols = c.cols;
  const Shape shape{rows, cols};
  const index_t chunk_rows =
      c.chunk_cols > 0
          ? rows
          : std::clamp<index_t>(c.chunk_mib * (index_t{1} << 20) / (8 * cols), 1, rows);
  const Chunks chunks{chunk_rows, c.chunk_cols > 0 ? std::min(c.chunk_cols, cols) : cols};
  ChunkedArray<double, B> a, b, cc, x;
  {
    std::vector<double> host(static_cast<std::size_t>(rows * cols));
    for (std::size_t i = 0; i < host.size(); ++i)
      host[i] = bench::pattern_value(static_cast<std::int64_t>(i));
    // Separate stored arrays, as a user's four inputs would be (no shared buffers to cache).
    a = from_host<B>(host, shape, chunks).persist(options);
    b = from_host<B>(host, shape, chunks).persist(options);
    cc = from_host<B>(host, shape, chunks).persist(options);
    x = from_host<B>(host, shape, chunks).persist(options);
  }
  const double bytes = static_cast<double>(rows * cols) * 8;
  const auto fma = (a * b + cc).sum(Axes{0});
  const auto standardized = (x - x.mean(Axes{0})) / x.std(Axes{0});
  std::vector<double> row(static_cast<std::size_t>(cols));
  ChunkedArray<double, B> kept;

  const auto mean = x.mean(Axes{0});
  const auto stddev = x.std(Axes{0});
  // The last two are the parts of standardize, for where its time goes; they read x once.
  std::vector<Program> programs{{"a_mul_b_add_c_sum_axis0", 3 * bytes, 0, {}},
                                {"standardize_axis0", 2 * bytes, 0, {}},
                                {"library_copy", 2 * bytes, 0, {}},
                                {"part_mean_axis0", bytes, 0, {}},
                                {"part_std_axis0", bytes, 0, {}},
                                {"a_sum_whole", bytes, 0, {}},
                                {"a_plus_0_persist", 2 * bytes, 0, {}},
                                {"a_rows_from_1_persist", 2 * bytes * (rows - 1) / rows, 0, {}}};
  const auto whole = a.sum();
  const auto plus_0 = a + 0.0;
  const auto rows_from_1 = a(slice(1, rows), all);
  double whole_value = 0;
  auto run_one = [&](std::size_t p) {
    const ComputeOptions& run = programs[p].name == c.trace_program ? traced : options;
    return bench::seconds_of([&] {
      if (p == 0)
        fma.to_host(std::span<double>(row), run);
      else if (p == 1)
        kept = standardized.persist(run);
      else if (p == 2)
        kept = a.persist(run);
      else if (p == 5)
        whole_value = whole.item(run);
      else if (p == 6)
        kept = plus_0.persist(run);
      else if (p == 7)
        kept = rows_from_1.persist(run);
      else
        (p == 3 ? mean : stddev).to_host(std::span<double>(row), run);
    });
  };
  for (std::size_t p = 0; p < programs.size(); ++p) {
    programs[p].first_s = run_one(p);
    wait_for_kernels(); // warm runs launch the fused kernels
    for (int r = 0; r < c.repeat; ++r)
      programs[p].runs_s.push_back(run_one(p));
    kept = {};
  }

  // Check a few columns, and the whole sum, against host references.
  long double whole_want = 0, whole_abs = 0;
  for (index_t i = 0; i < rows * cols; ++i) {
    const double v = bench::pattern_value(i);
    whole_want += v;
    whole_abs += std::abs(v);
  }
  if (!(std::abs(whole_value - static_cast<double>(whole_want)) <=
        1e-12 * static_cast<double>(whole_abs)))
    throw std::runtime_error(fmt::format("a.sum() is {:.17g}, expected {:.17g}", whole_value,
                                         static_cast<double>(whole_want)));
  fma.to_host(std::span<double>(row), options);
  const std::vector<index_t> probe_cols{0, cols / 3, cols - 1};
  const auto head = standardized(slice(0, 2), all).compute(options);
  for (const index_t j : probe_cols) {
    const Reference ref = reference_column(rows, cols, j);
    const double got = row[static_cast<std::size_t>(j)];
    if (!(std::abs(got - ref.fma_sum) <= 1e-9 * std::abs(ref.fma_sum)))
      throw std::runtime_error(fmt::format("(a * b + c).sum(Axes{{0}}) column {} is {:.17g}, "
                                           "expected {:.17g}",
                                           j, got, ref.fma_sum));
    for (index_t r = 0; r < std::min<index_t>(rows, 2); ++r) {
      const double want = (bench::pattern_value(r * cols + j) - ref.mean) / ref.stddev;
      const double value = head(r, j);
      if (!(std::abs(value - want) <= 1e-8 * std::max(1.0, std::abs(want))))
        throw std::runtime_error(
            fmt::format("standardized ({}, {}) is {:.17g}, expected {:.17g}", r, j, value, want));
    }
  }
  return programs;
}

} // namespace

int main(int argc, char** argv) try {
  Config c;
  if (!parse_args(argc, argv, c))
    return 2;
  const index_t rows = c.rows(c.cols, 2, "two rows of --cols");

  ComputeOptions options = bench::compute_options(c);
  const bench::Machine machine(c.backend);
  const bool gpu = machine.gpu;
  const int workers = c.threads > 0 ? c.threads : static_cast<int>(std::max(machine.cores, 1u));

  const std::vector<Program> programs =
      bench::with_backend(c.backend, [&]<class B>() { return measure<B>(c, rows, options); });
  const double bytes = static_cast<double>(rows * c.cols) * 8;
  // The CPU limit: the fastest memcpy of the library copy's traffic on up to as many threads as
  // the library used. On a GPU the limit is a device copy (b3_gpu.py), so no memcpy is spent there.
  const MemcpyLimit memcpy =
      gpu ? MemcpyLimit{} : memcpy_limit(static_cast<std::size_t>(2 * bytes), workers);
  const double memcpy_rate = memcpy.rate;
  auto json_number = [](double v) {
    return v > 0 ? fmt::format("{:.6g}", v) : std::string("null");
  };
  const double library_copy_rate = programs[2].traffic / bench::median(programs[2].runs_s) / 1e9;

  machine.print_header("chunked-b3-benchmark");
  fmt::print("config:   4 stored arrays of {} x {} float64 ({:.3g} GiB each), {}, "
             "{}; 1 warm-up + {} timed runs\n",
             rows, c.cols, bytes / double(1 << 30),
             c.chunk_cols > 0 ? fmt::format("chunks of {} whole columns", c.chunk_cols)
                              : fmt::format("{} MiB chunks of whole rows", c.chunk_mib),
             gpu ? std::string("one worker per GPU") : fmt::format("{} CPU threads", workers),
             c.repeat);
  if (gpu) {
    fmt::print("limits:   library copy {:.2f} GB/s (read + write); the device-to-device copy "
               "limit is measured by benchmarks/peers/b3_gpu.py\n",
               library_copy_rate);
  } else {
    std::string counts;
    for (const auto& [count, rate] : memcpy.by_threads)
      counts += fmt::format("{}{} threads {:.1f}", counts.empty() ? "" : ", ", count, rate);
    fmt::print("limits:   memcpy {:.2f} GB/s (read + write), fastest on {} threads ({}); library "
               "copy {:.2f} GB/s\n",
               memcpy_rate, memcpy.threads, counts, library_copy_rate);
  }
  std::string json_programs;
  for (const Program& p : programs) {
    const double med = bench::median(p.runs_s);
    const double rate = p.traffic / med / 1e9;
    const double limit = gpu ? library_copy_rate : memcpy_rate;
    fmt::print("{:<26} median {:8.2f} ms (first {:8.2f} ms)  {:8.2f} GB/s  {:.2f} of {}\n", p.name,
               med * 1e3, p.first_s * 1e3, rate, rate / limit, gpu ? "the library copy" : "memcpy");
    json_programs += fmt::format(
        R"({}    "{}": {{"traffic_bytes": {:.17g}, "first_s": {:.6g}, "runs_s": {}, "median_s": {:.6g}, "GBps": {:.6g}, "vs_memcpy": {}, "vs_library_copy": {:.6g}}})",
        json_programs.empty() ? "" : ",\n", p.name, p.traffic, p.first_s,
        bench::json_list(p.runs_s), med, rate, json_number(gpu ? 0 : rate / memcpy_rate),
        rate / library_copy_rate);
  }
  // Standardize must read x twice and write once (BENCHMARKS.md B3): its rate counting those
  // bytes, against the fastest copy of the same bytes on the same threads (the larger of memcpy
  // and the library's copy; on a GPU the library's, which b3_gpu.py sets beside cudaMemcpy).
  const double two_reads = 3 * programs[1].traffic / 2 / bench::median(programs[1].runs_s) / 1e9;
  const double fastest = std::max(memcpy_rate, library_copy_rate);
  fmt::print("standardize counting two reads and a write: {:.2f} GB/s, {:.2f} of the fastest copy "
             "({} {:.2f} GB/s)\n",
             two_reads, two_reads / fastest,
             library_copy_rate >= memcpy_rate ? "the library's" : "memcpy", fastest);
  fmt::print("results checked at 3 columns against host references: ok\n");

  if (!c.json.empty()) {
    std::string memcpy_json;
    for (const auto& [count, rate] : memcpy.by_threads)
      memcpy_json += fmt::format("{}\"{}\": {:.6g}", memcpy_json.empty() ? "" : ", ", count, rate);
    bench::write_file(
        c.json,
        machine.json_header("B3") +
            fmt::format(
                R"(  "config": {{"shape": [{}, {}], "gib_per_array": {}, "chunk_mib": {}, "chunk_cols": {}, "backend": "{}", "threads": {}, "workers": {}, "repeat": {}}},
  "limits_GBps": {{"memcpy": {}, "memcpy_threads": {}, "memcpy_by_threads": {{{}}}, "library_copy": {:.6g}}},
  "programs": {{
{}
  }}
}}
)",
                rows, c.cols, c.gib, c.chunk_cols > 0 ? 0 : c.chunk_mib, c.chunk_cols, c.backend,
                c.threads, gpu ? 0 : workers, c.repeat, json_number(memcpy_rate), memcpy.threads,
                memcpy_json, library_copy_rate, json_programs));
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "chunked-b3-benchmark: %s\n", e.what());
  return 1;
}
