// SPDX-License-Identifier: Apache-2.0
// chunked-seed-benchmark: times (x + 1)[::2, ::2].sum() for x = normal(10, 1) (BENCHMARKS.md B1).
//
// The default, 20000x40000 in 10000x10000 chunks (8 chunks, the same work on 1, 2, 4 or 8
// workers), finishes in well under a minute on two cores; the published workload is
// `--shape 500000x500000` (2500 chunks, 2 TB). Prints the machine, the configuration, the
// checked result, the backend's start, the first run and the median of warm runs, throughputs,
// the time per chunk and the whole-array estimate beside the published Dask figures; --json
// writes the same as JSON (benchmarks/results/ is where the comparison script keeps them).
#include "driver_util.hpp"

#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace chunked;

namespace {

struct Extent2 {
  index_t rows = 0;
  index_t cols = 0;
};

struct Config : bench::CommonOptions {
  Extent2 shape{20000, 40000};
  Extent2 chunks{10000, 10000};
  bool progress = false;
  std::uint64_t seed = 42;
  int streams = 0;

  Config() : CommonOptions(2) {}
};

// The seed study's published times (2019) and its shape: what our estimate is set beside.
constexpr double seed_elements = 500000.0 * 500000.0;
struct Published {
  const char* system;
  double seconds;
};
constexpr Published published[] = {
    {"Dask + NumPy, 1 CPU core", 2.0 * 3600 + 39 * 60},
    {"Dask + NumPy, 40 CPU cores", 11 * 60 + 30},
    {"Dask + CuPy, 1 GPU", 60 + 37},
    {"Dask + CuPy, 8 GPUs", 19},
};

constexpr const char* usage_text =
    "usage: chunked-seed-benchmark [--shape RxC] [--chunks RxC] [--backend cpu|cuda|auto]\n"
    "                              [--threads N] [--streams S] [--repeat R] [--json FILE]\n"
    "                              [--progress] [--trace FILE] [--report FILE] [--exact-sums]\n"
    "  --shape    array shape (default 20000x40000; the published workload is 500000x500000)\n"
    "  --chunks   chunk shape (default 10000x10000)\n"
    "  --backend  where to compute (default auto: CUDA when a device is usable, else the CPU)\n"
    "  --threads  CPU worker threads (default 0: all hardware threads)\n"
    "  --streams  CUDA streams per GPU (default 0: the backend's choice)\n"
    "  --repeat   warm runs after the first (default 2)\n"
    "  --json     also write the results to FILE as JSON\n"
    "  --progress draw a progress bar on stderr\n"
    "  --trace    write each computation's Chrome trace to FILE (the last one's stays)\n"
    "  --report   write each computation's HTML report to FILE (the last one's stays)\n"
    "  --exact-sums ComputeOptions::exact_sums: the sum does not depend on the chunking\n";

Extent2 parse_extent(std::string_view flag, std::string_view text) {
  const auto x = text.find('x');
  Extent2 e;
  try {
    std::size_t used_r = 0, used_c = 0;
    const std::string r(text.substr(0, x)), c(x == text.npos ? "" : text.substr(x + 1));
    e.rows = std::stoll(r, &used_r);
    e.cols = std::stoll(c, &used_c);
    if (used_r != r.size() || used_c != c.size() || e.rows <= 0 || e.cols <= 0)
      throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw std::invalid_argument(
        fmt::format("{} expects RxC with positive integers, got '{}'", flag, text));
  }
  return e;
}

bool parse_args(int argc, char** argv, Config& c) {
  return bench::parse_command_line(
      argc, argv, "chunked-seed-benchmark", usage_text, 0, c,
      [&](std::string_view arg, std::string_view value) {
        if (arg == "--shape")
          c.shape = parse_extent(arg, value);
        else if (arg == "--chunks")
          c.chunks = parse_extent(arg, value);
        else if (arg == "--seed")
          c.seed = static_cast<std::uint64_t>(bench::parse_int(arg, value, 0));
        else if (arg == "--streams")
          c.streams = static_cast<int>(bench::parse_int(arg, value, 0));

        else
          return false;
        return true;
      },
      [&](std::string_view arg) {
        if (arg != "--progress")
          return false;
        c.progress = true;
        return true;
      });
}

std::string duration_text(double s) {
  if (s < 1e-3)
    return fmt::format("{:.1f} us", s * 1e6);
  if (s < 1)
    return fmt::format("{:.2f} ms", s * 1e3);
  if (s < 120)
    return fmt::format("{:.2f} s", s);
  if (s < 7200)
    return fmt::format("{} min {:02.0f} s", static_cast<int>(s / 60), std::fmod(s, 60));
  return fmt::format("{} h {:02} min", static_cast<int>(s / 3600),
                     static_cast<int>(std::fmod(s, 3600) / 60));
}

// One timed computation of the seed benchmark: builds the lazy program and sums it.
template <class B> double run_once(const Config& c, const ComputeOptions& options) {
  Generator rng(c.seed);
  auto x = rng.normal<double, B>(Shape{c.shape.rows, c.shape.cols},
                                 Chunks{c.chunks.rows, c.chunks.cols}, 10.0, 1.0);
  return (x + 1.0)(slice(none, none, 2), slice(none, none, 2)).sum().item(options);
}

struct Timings {
  double result = 0;
  double startup = 0; ///< the backend's start and a one-element compute, before the first run
  double first = 0;
  std::vector<double> warm;
};

template <class B> Timings measure(const Config& c, const ComputeOptions& options) {
  Timings t;
  auto timed = [&] {
    double s = 0;
    const double seconds = bench::seconds_of([&] { s = run_once<B>(c, options); });
    // Every run must give bitwise the same sum (DESIGN section 3); a difference is a bug.
    if (t.first > 0 && s != t.result)
      throw std::runtime_error(
          fmt::format("run {} gave {:.17g}, the first run gave {:.17g}: results "
                      "must be bitwise reproducible",
                      t.warm.size() + 2, s, t.result));
    t.result = s;
    return seconds;
  };
  // A first compute also starts the backend (on CUDA: the context, streams and memory pool), which
  // is not the seed program's cost; a one-element sum, whose kernels share nothing with the seed
  // program's, pays for it first, so that the first run's excess over a warm run is the seed
  // program's own code generation.
  t.startup =
      bench::seconds_of([&] { (void)zeros<double, B>(Shape{1}, Chunks{1}).sum().item(options); });
  t.first = timed();
  wait_for_kernels(); // warm runs launch the fused kernel
  for (int i = 0; i < c.repeat; ++i)
    t.warm.push_back(timed());
  return t;
}

} // namespace

int main(int argc, char** argv) try {
  Config c;
  if (!parse_args(argc, argv, c))
    return 2;

  ComputeOptions options = bench::compute_options(c);
  options.streams_per_device = c.streams;
  options.progress_bar = c.progress;
  const bench::Machine machine(c.backend);
  const bool gpu = machine.gpu;
  const int workers = gpu ? 0 : (c.threads > 0 ? c.threads : static_cast<int>(machine.cores));

  const Timings t =
      bench::with_backend(c.backend, [&]<class B>() { return measure<B>(c, options); });

  const double total = static_cast<double>(c.shape.rows) * static_cast<double>(c.shape.cols);
  const double kept =
      static_cast<double>((c.shape.rows + 1) / 2) * static_cast<double>((c.shape.cols + 1) / 2);
  const index_t chunks = ((c.shape.rows + c.chunks.rows - 1) / c.chunks.rows) *
                         ((c.shape.cols + c.chunks.cols - 1) / c.chunks.cols);
  const double expected = 11.0 * kept;
  const double tolerance = 6.0 * std::sqrt(kept) + 1e-12 * expected;
  const bool ok = std::abs(t.result - expected) <= tolerance;
  const double med = t.warm.empty() ? t.first : bench::median(t.warm);
  const double per_chunk = med / static_cast<double>(chunks);
  // One chunk's work on one worker: what a single-core chunk loop (NumPy) is compared with.
  const double per_chunk_worker = gpu ? per_chunk : per_chunk * workers;
  const double estimate = med * seed_elements / total;

  machine.print_header("chunked-seed-benchmark");
  fmt::print(
      "config:   x = normal(10, 1), shape {}x{}, chunks {}x{} ({} chunks), float64, seed {}\n",
      c.shape.rows, c.shape.cols, c.chunks.rows, c.chunks.cols, chunks, c.seed);
  fmt::print("          sum((x + 1)[::2, ::2]); {}; 1 first + {} warm runs\n",
             gpu ? std::string("one worker per GPU")
                 : fmt::format("{} CPU worker thread(s)", workers),
             c.repeat);
  fmt::print("result:   {:.17g}, expected {:.6g} +- {:.3g}: {}\n", t.result, expected, tolerance,
             ok ? "ok" : "WRONG");
  fmt::print("time:     first {}, median of warm {} (before them, starting the backend with a "
             "one-element compute: {})\n",
             duration_text(t.first), duration_text(med), duration_text(t.startup));
  fmt::print("rate:     {:.4g} kept elements/s, {:.4g} array elements/s ({:.4g} per worker)\n",
             kept / med, total / med, total / med / std::max(workers, 1));
  fmt::print("chunk:    {} per chunk wall, {} per chunk per worker\n", duration_text(per_chunk),
             duration_text(per_chunk_worker));
  fmt::print("whole 500000x500000 (2 TB) at this rate: {}{}\n", duration_text(estimate),
             total == seed_elements ? "" : " (measure it with --shape 500000x500000)");
  for (const auto& p : published)
    fmt::print("  published 2019, {:<28} {:>12}  ({:.3g}x ours)\n", p.system,
               duration_text(p.seconds), p.seconds / estimate);

  if (!c.json.empty()) {
    std::string refs;
    for (std::size_t i = 0; i < std::size(published); ++i)
      refs += fmt::format("{}\n    {{\"system\": \"{}\", \"seconds\": {}}}", i ? "," : "",
                          published[i].system, published[i].seconds);
    bench::write_file(
        c.json,
        machine.json_header("seed") +
            fmt::format(
                R"(  "config": {{"shape": [{}, {}], "chunks": [{}, {}], "num_chunks": {}, "backend": "{}", "threads": {}, "streams": {}, "workers": {}, "repeat": {}, "seed": {}}},
  "result": {{"sum": {:.17g}, "expected": {:.17g}, "tolerance": {:.6g}, "ok": {}}},
  "time_s": {{"startup": {:.6g}, "first": {:.6g}, "warm": {}, "median_warm": {:.6g}}},
  "kept_elements_per_s": {:.6g},
  "array_elements_per_s": {:.6g},
  "per_chunk_s": {:.6g},
  "per_chunk_per_worker_s": {:.6g},
  "estimate_500000x500000_s": {:.6g},
  "published_500000x500000": [{}
  ]
}}
)",
                c.shape.rows, c.shape.cols, c.chunks.rows, c.chunks.cols, chunks, c.backend,
                c.threads, c.streams, workers, c.repeat, c.seed, t.result, expected, tolerance,
                ok ? "true" : "false", t.startup, t.first, bench::json_list(t.warm), med,
                kept / med, total / med, per_chunk, per_chunk_worker, estimate, refs));
  }
  if (!ok) {
    std::fprintf(stderr,
                 "chunked-seed-benchmark: the result is wrong (off by %.6g, tolerance %.6g)\n",
                 t.result - expected, tolerance);
    return 1;
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "chunked-seed-benchmark: %s\n", e.what());
  return 1;
}
