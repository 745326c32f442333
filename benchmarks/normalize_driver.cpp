// SPDX-License-Identifier: Apache-2.0
// chunked-normalize-benchmark: a / a.sum() of a float64 array held in host memory (BENCHMARKS.md
// B2), result written back to host memory, timed run by run.
//
//   chunked-normalize-benchmark [--gib 1] [--chunk-mib 256] [--backend cpu|cuda|auto]
//                               [--threads N] [--repeat 3] [--json FILE]
//
// Each run wraps the host array with from_host (a host-side copy, timed on its own; pinned memory
// for the Cuda backend) and then computes (a / a.sum()).to_host(out), with `out` in pinned memory
// when a GPU is usable: two passes over the data, the sum and the division. The rate "per pass"
// is 2 x array bytes / time of that compute. B2 compares it with the pinned
// host<->device copy rate; this file never includes a CUDA header, so the hardware rate is
// measured by benchmarks/peers/normalize_cupy.py and set beside ours by
// benchmarks/run_gpu_peers.py. What this driver measures itself is the library's own transfer
// rate: persist() of the host-held array (host -> backend memory) and to_host of the persisted
// copy (backend memory -> host), both through the same staging the computation uses.
// The result is checked at spread-out elements against the closed-form sum of the input, and
// every run must give bitwise the same values there.
#include "driver_util.hpp"

#include "backend/cuda/runtime_api.hpp"
#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace chunked;

namespace {

struct Config : bench::SizeOptions {
  Config() : SizeOptions(3, 256) {}
};

constexpr const char* usage_text =
    "usage: chunked-normalize-benchmark [--gib G] [--chunk-mib M] [--backend cpu|cuda|auto]\n"
    "                                   [--threads N] [--repeat R] [--json FILE]\n"
    "  --gib        size of the host array in GiB (default 1; B2 names 32)\n"
    "  --chunk-mib  chunk size in MiB (default 256)\n" CHUNKED_BENCH_USAGE_COMMON(
        "warm runs after the first (default 3)");

bool parse_args(int argc, char** argv, Config& c) {
  return bench::parse_command_line(argc, argv, "chunked-normalize-benchmark", usage_text, 0, c,
                                   [&](std::string_view arg, std::string_view value) {
                                     return bench::parse_size_option(arg, value, c);
                                   });
}

/// Where the result is checked: the ends and elements spread over the whole array, so that every
/// chunk of a large array is visited.
std::vector<std::int64_t> probe_indices(std::int64_t n) {
  std::vector<std::int64_t> idx{0, n - 1};
  const std::int64_t count = std::min<std::int64_t>(n, 4096);
  for (std::int64_t k = 0; k < count; ++k)
    idx.push_back((k * n) / count + (k * 7919) % std::max<std::int64_t>(n / count, 1));
  return idx;
}

struct Run {
  double from_host_s = 0;
  double compute_s = 0;
};

struct Measurement {
  Run first;
  std::vector<Run> warm;
  std::vector<double> upload_s, download_s;
  double max_rel_error = 0;
};

template <class B>
Measurement measure(const Config& c, std::span<const double> a, std::span<double> out,
                    const ComputeOptions& options) {
  const auto n = static_cast<index_t>(a.size());
  const index_t chunk = std::max<index_t>(c.chunk_mib * (index_t{1} << 20) / 8, 1);
  const double expected_sum = bench::pattern_sum(n);
  const std::vector<std::int64_t> probes = probe_indices(n);
  std::vector<double> first_values;
  Measurement m;
  ChunkedArray<double, B> held;

  auto check = [&](int run) {
    std::vector<double> values;
    for (const std::int64_t i : probes) {
      const double want = a[static_cast<std::size_t>(i)] / expected_sum;
      const double got = out[static_cast<std::size_t>(i)];
      const double rel = std::abs(got - want) / want;
      if (!(rel <= 1e-9))
        throw std::runtime_error(
            fmt::format("run {}: element {} is {:.17g}, expected {:.17g}", run, i, got, want));
      m.max_rel_error = std::max(m.max_rel_error, rel);
      values.push_back(got);
    }
    // Every run must give bitwise the same values (DESIGN section 3).
    if (first_values.empty())
      first_values = values;
    else if (values != first_values)
      throw std::runtime_error(fmt::format("run {} differs bitwise from the first run", run));
  };

  for (int run = 0; run <= c.repeat; ++run) {
    Run r;
    held = {}; // the previous run's copy goes first: at B2's 32 GiB two would not fit
    r.from_host_s = bench::seconds_of([&] { held = from_host<B>(a, Shape{n}, Chunks{chunk}); });
    r.compute_s = bench::seconds_of([&] { (held / held.sum()).to_host(out, options); });
    check(run + 1);
    (run == 0 ? m.first : m.warm.emplace_back()) = r;
    wait_for_kernels(); // warm runs launch the fused kernels
  }
  // The library's own transfer rate, through the staging the computation above uses.
  for (int run = 0; run <= c.repeat; ++run) {
    ChunkedArray<double, B> resident;
    const double up = bench::seconds_of([&] { resident = held.persist(options); });
    const double down = bench::seconds_of([&] { resident.to_host(out, options); });
    if (run > 0 || c.repeat == 0) {
      m.upload_s.push_back(up);
      m.download_s.push_back(down);
    }
  }
  for (const std::int64_t i : {std::int64_t{0}, n / 2, n - 1})
    if (out[static_cast<std::size_t>(i)] != a[static_cast<std::size_t>(i)])
      throw std::runtime_error(fmt::format("the round trip changed element {}", i));
  return m;
}

} // namespace

int main(int argc, char** argv) try {
  Config c;
  if (!parse_args(argc, argv, c))
    return 2;
  const std::int64_t n = c.rows(1, 1, "one element");
  const double bytes = static_cast<double>(n) * 8;

  std::vector<double> a(static_cast<std::size_t>(n));
  // The result goes to memory the GPU writes directly (page-locked when a GPU is usable), as the
  // pinned CuPy loop of B2 does; with the CPU backend it is ordinary memory.
  const auto out_buffer = cuda::make_transfer_buffer(static_cast<std::size_t>(n) * 8);
  const std::span<double> out(static_cast<double*>(out_buffer->data()),
                              static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    a[static_cast<std::size_t>(i)] = bench::pattern_value(i);

  ComputeOptions options = bench::compute_options(c);
  const bench::Machine machine(c.backend);
  const std::span<const double> in(a);
  const Measurement m =
      bench::with_backend(c.backend, [&]<class B>() { return measure<B>(c, in, out, options); });

  std::vector<double> from_host_s, compute_s, total_s;
  for (const Run& r : m.warm.empty() ? std::vector<Run>{m.first} : m.warm) {
    from_host_s.push_back(r.from_host_s);
    compute_s.push_back(r.compute_s);
    total_s.push_back(r.from_host_s + r.compute_s);
  }
  const double compute = bench::median(compute_s);
  const double total = bench::median(total_s);
  const double per_pass = 2 * bytes / compute / 1e9;
  const double per_pass_total = 2 * bytes / total / 1e9;
  const double upload = bytes / bench::median(m.upload_s) / 1e9;
  const double download = bytes / bench::median(m.download_s) / 1e9;
  const std::int64_t chunk_elems = std::max<std::int64_t>(c.chunk_mib * (1 << 20) / 8, 1);
  const std::int64_t chunks = (n + chunk_elems - 1) / chunk_elems;

  machine.print_header("chunked-normalize-benchmark");
  fmt::print("config:   a / a.sum(), {} float64 ({:.3g} GiB) in host memory, {} chunks of {} MiB; "
             "1 first + {} warm runs\n",
             n, bytes / double(1 << 30), chunks, c.chunk_mib, c.repeat);
  fmt::print(
      "result:   ok at {} probes, largest relative error {:.2g}; bitwise the same every run\n",
      probe_indices(n).size(), m.max_rel_error);
  fmt::print("time:     first run from_host {:.3f} s + compute {:.3f} s; warm median from_host "
             "{:.3f} s, compute {:.3f} s\n",
             m.first.from_host_s, m.first.compute_s, bench::median(from_host_s), compute);
  fmt::print("rate:     {:.2f} GB/s per pass (2 passes over {:.3g} GB), {:.2f} GB/s per pass with "
             "from_host\n",
             per_pass, bytes / 1e9, per_pass_total);
  fmt::print("library transfer: host -> {} {:.2f} GB/s (persist), back {:.2f} GB/s (to_host); "
             "per pass / upload = {:.2f}\n",
             machine.resolved, upload, download, per_pass / upload);
  fmt::print("the pinned copy limit is measured by benchmarks/peers/normalize_cupy.py "
             "(benchmarks/run_gpu_peers.py sets the two side by side)\n");

  if (!c.json.empty()) {
    std::vector<double> warm_from, warm_compute;
    for (const Run& r : m.warm) {
      warm_from.push_back(r.from_host_s);
      warm_compute.push_back(r.compute_s);
    }
    bench::write_file(
        c.json,
        machine.json_header("B2") +
            fmt::format(
                R"(  "config": {{"elements": {}, "bytes": {:.17g}, "gib": {}, "chunk_mib": {}, "num_chunks": {}, "backend": "{}", "threads": {}, "repeat": {}}},
  "result": {{"ok": true, "probes": {}, "max_rel_error": {:.3g}}},
  "time_s": {{"first": {{"from_host": {:.6g}, "compute": {:.6g}}}, "warm_from_host": {}, "warm_compute": {}, "median_compute": {:.6g}, "median_from_host_plus_compute": {:.6g}}},
  "per_pass_GBps": {:.6g},
  "per_pass_with_from_host_GBps": {:.6g},
  "library_transfer_GBps": {{"upload": {:.6g}, "download": {:.6g}, "upload_s": {}, "download_s": {}}},
  "per_pass_vs_library_upload": {:.6g}
}}
)",
                n, bytes, c.gib, c.chunk_mib, chunks, c.backend, c.threads, c.repeat,
                probe_indices(n).size(), m.max_rel_error, m.first.from_host_s, m.first.compute_s,
                bench::json_list(warm_from), bench::json_list(warm_compute), compute, total,
                per_pass, per_pass_total, upload, download, bench::json_list(m.upload_s),
                bench::json_list(m.download_s), per_pass / upload));
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "chunked-normalize-benchmark: %s\n", e.what());
  return 1;
}
