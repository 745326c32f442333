// SPDX-License-Identifier: Apache-2.0
// chunked-first-call-benchmark: what a program's first call costs in a fresh process against its
// warm calls (BENCHMARKS.md B5), for B3's two programs and a pipeline of ten.
//
//   chunked-first-call-benchmark [--gib 2] [--cols 4096] [--chunk-mib 128]
//                                [--backend cpu|cuda|auto] [--threads N] [--repeat 5] [--json F]
//                                [--trace F] [--report F]
//
// The backend starts first (a one-element sum, timed apart), then four stored arrays a, b, c, x
// of --gib GiB each (rows x --cols float64, from_host, persist()ed). Each workload then runs once
// (its first call: code generation, or on CUDA the interpreter while it compiles) and --repeat
// more times (warm). Workloads, each in its own first call:
//   b3_sum       (a * b + c).sum(Axes{0}) to the host
//   standardize  ((x - x.mean(Axes{0})) / x.std(Axes{0})).persist()
//   pipeline     ten programs of different structure, one after the other (below)
// Run it in fresh processes with an empty and with a filled kernel cache (CHUNKED_CACHE_DIR);
// scripts/first-call does, beside JAX and PyTorch (benchmarks/peers/first_call_peers.py).
// CHUNKED_CUDA_KERNELS=compiled gives the library's first calls without its interpreter tier.
#include "driver_util.hpp"

#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

using namespace chunked;

namespace {

struct Config : bench::SizeOptions {
  index_t cols = 4096;
  Config() : SizeOptions(5, 128) {}
};

constexpr const char* usage_text =
    "usage: chunked-first-call-benchmark [--gib G] [--cols C] [--chunk-mib M]\n"
    "                                    [--backend cpu|cuda|auto] [--threads N] [--repeat R]\n"
    "                                    [--json FILE]\n"
    "  --gib        size of each of the four arrays in GiB (default 1)\n"
    "  --cols       columns (default 4096); rows follow from --gib\n"
    "  --chunk-mib  chunk size in MiB, whole rows (default 128)\n" CHUNKED_BENCH_USAGE_COMMON(
        "warm runs after the first call (default 5)") "  --trace and --report record each "
                                                      "workload's first call alone, to "
                                                      "FILE.<workload> (the\n"
                                                      "               pipeline's last "
                                                      "computation)\n";

struct Workload {
  std::string name;
  double first_s = 0;
  std::vector<double> warm_s;
};

/// Ten programs of different structure over x, a and b (no two share a generated kernel), each
/// computed to the backend's memory or to the host before the next starts.
template <class B>
void pipeline(const ChunkedArray<double, B>& x, const ChunkedArray<double, B>& a,
              const ChunkedArray<double, B>& b, const ComputeOptions& o, std::vector<double>& row) {
  const auto r1 = (x * 1.5 + 2.0).persist(o);
  const auto r2 = sqrt(abs(r1) + 1.0).persist(o);
  r2.sum(Axes{0}).to_host(row, o);
  const auto r4 = where(a > 1.2, a, b * 0.5).persist(o);
  const auto r5 = exp(-square(x - 1.0)).persist(o);
  (r4 / (abs(r1) + 1.0)).std(Axes{0}).to_host(row, o);
  const auto r7 = tanh(r2 - r5).persist(o);
  (r7 * r7 + r4).max(Axes{0}).to_host(row, o);
  const auto r9 = (log1p(abs(a - b)) * r5).persist(o);
  (r9 - r7).min(Axes{0}).to_host(row, o);
}

template <class B> std::vector<Workload> measure(const Config& c, index_t rows, double& start_s) {
  const ComputeOptions options = bench::compute_options(c);
  // The backend's start (context, streams, pools): a one-element sum, not counted as a first call.
  start_s = bench::seconds_of(
      [&] { (void)full<double, B>(Shape{1}, Chunks{1}, 1.0).sum().item(options); });
  const Shape shape{rows, c.cols};
  const Chunks chunks{std::clamp<index_t>(c.chunk_mib * (index_t{1} << 20) / (8 * c.cols), 1, rows),
                      c.cols};
  ChunkedArray<double, B> a, b, cc, x;
  {
    std::vector<double> host(static_cast<std::size_t>(rows * c.cols));
    for (std::size_t i = 0; i < host.size(); ++i)
      host[i] = bench::pattern_value(static_cast<std::int64_t>(i));
    a = from_host<B>(host, shape, chunks).persist(options);
    b = from_host<B>(host, shape, chunks).persist(options);
    cc = from_host<B>(host, shape, chunks).persist(options);
    x = from_host<B>(host, shape, chunks).persist(options);
  }
  std::vector<double> row(static_cast<std::size_t>(c.cols));
  ChunkedArray<double, B> kept;
  using Run = std::function<void(const ComputeOptions&)>;
  const std::vector<std::pair<std::string, Run>> runs = {
      {"b3_sum", [&](const ComputeOptions& o) { (a * b + cc).sum(Axes{0}).to_host(row, o); }},
      {"standardize",
       [&](const ComputeOptions& o) {
         kept = ((x - x.mean(Axes{0})) / x.std(Axes{0})).persist(o);
       }},
      {"pipeline", [&](const ComputeOptions& o) { pipeline(x, a, b, o, row); }}};
  // --trace and --report record each workload's first call, to FILE.<workload>.
  ComputeOptions warm = options;
  warm.trace_path.clear();
  warm.report_path.clear();
  std::vector<Workload> out;
  for (const auto& [name, run] : runs) {
    ComputeOptions first = options;
    if (!c.trace.empty())
      first.trace_path = c.trace + "." + name;
    if (!c.report.empty())
      first.report_path = c.report + "." + name;
    Workload w{name, bench::seconds_of([&] { run(first); }), {}};
    wait_for_kernels(); // warm runs launch the fused kernels
    for (int r = 0; r < c.repeat; ++r)
      w.warm_s.push_back(bench::seconds_of([&] { run(warm); }));
    out.push_back(std::move(w));
  }
  return out;
}

} // namespace

int main(int argc, char** argv) try {
  Config c;
  if (!bench::parse_command_line(argc, argv, "chunked-first-call-benchmark", usage_text, 1, c,
                                 [&](std::string_view arg, std::string_view value) {
                                   if (arg == "--cols")
                                     c.cols = bench::parse_int(arg, value, 1);
                                   else
                                     return bench::parse_size_option(arg, value, c);
                                   return true;
                                 }))
    return 2;
  const index_t rows = c.rows(c.cols, 1, "one row of --cols");
  const bench::Machine machine(c.backend);
  double start_s = 0;
  const std::vector<Workload> workloads =
      bench::with_backend(c.backend, [&]<class B>() { return measure<B>(c, rows, start_s); });
  const char* tier = std::getenv("CHUNKED_CUDA_KERNELS");
  const char* cache = std::getenv("CHUNKED_CACHE_DIR");
  machine.print_header("chunked-first-call-benchmark");
  fmt::print("config:   4 stored arrays of {} x {} float64 ({:.3g} GiB each); kernels {}; cache "
             "{}\nbackend start {:.1f} ms\n",
             rows, c.cols, static_cast<double>(rows * c.cols) * 8 / double(1 << 30),
             tier ? tier : "tiered", cache ? cache : "default", start_s * 1e3);
  std::string json;
  for (const Workload& w : workloads) {
    const double warm = bench::median(w.warm_s);
    fmt::print("{:<12} first {:9.2f} ms  warm {:9.2f} ms  first/warm {:6.2f}  budget (2 x warm + "
               "5 ms) {:8.2f} ms: {}\n",
               w.name, w.first_s * 1e3, warm * 1e3, w.first_s / warm, (2 * warm + 5e-3) * 1e3,
               w.first_s <= 2 * warm + 5e-3 ? "within" : "over");
    json +=
        fmt::format(R"({}    "{}": {{"first_s": {:.6g}, "warm_s": {}, "warm_median_s": {:.6g}}})",
                    json.empty() ? "" : ",\n", w.name, w.first_s, bench::json_list(w.warm_s), warm);
  }
  if (!c.json.empty())
    bench::write_file(c.json, machine.json_header("first_call") +
                                  fmt::format(R"(  "kernels": "{}",
  "backend_start_s": {:.6g},
  "workloads": {{
{}
  }}
}}
)",
                                              tier ? tier : "tiered", start_s, json));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "chunked-first-call-benchmark: %s\n", e.what());
  return 1;
}
