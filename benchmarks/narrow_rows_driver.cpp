// SPDX-License-Identifier: Apache-2.0
// chunked-narrow-rows-benchmark: reductions along the rows of tall arrays of few columns (issue
// 27, narrow rows): the same --mib MiB of float64 laid out as rows x cols for each --cols,
// in blocks of a quarter of the rows (so the last block is ragged unless 4 divides the rows),
// each reduced along axis 0 by std, mean and sum, best of --repeat runs after a warm-up. Every
// time is also given as a ratio to the same reduction over the widest --cols given (by default
// 64 columns, which the row folds take a whole block of vectors at a time).
//
//   chunked-narrow-rows-benchmark [--mib 256] [--cols 10,16,64] [--backend cpu|cuda|auto]
//                                 [--threads N] [--repeat 5] [--json FILE]
#include "driver_util.hpp"

#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace chunked;

namespace {

struct Config : bench::CommonOptions {
  index_t mib = 256;
  std::vector<index_t> cols{10, 16, 64};

  Config() : CommonOptions(5) {}
};

constexpr const char* usage_text =
    "usage: chunked-narrow-rows-benchmark [--mib M] [--cols C1,C2,...]\n"
    "                                     [--backend cpu|cuda|auto] [--threads N] [--repeat R]\n"
    "                                     [--json FILE]\n"
    "  --mib        size of each array in MiB of float64 (default 256)\n"
    "  --cols       column counts, comma-separated; the widest is the reference (default "
    "10,16,64)\n" CHUNKED_BENCH_USAGE_COMMON("timed runs after one warm-up run, best taken "
                                             "(default 5)");

std::vector<index_t> parse_list(std::string_view flag, std::string_view text) {
  std::vector<index_t> out;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(bench::parse_int(flag, text.substr(at, comma - at), 1));
    at = comma + 1;
  }
  return out;
}

bool parse_args(int argc, char** argv, Config& c) {
  return bench::parse_command_line(argc, argv, "chunked-narrow-rows-benchmark", usage_text, 1, c,
                                   [&](std::string_view arg, std::string_view value) {
                                     if (arg == "--mib")
                                       c.mib = bench::parse_int(arg, value, 1);
                                     else if (arg == "--cols")
                                       c.cols = parse_list(arg, value);
                                     else
                                       return false;
                                     return true;
                                   });
}

struct Row {
  index_t cols = 0;
  double ms[3] = {}; // std, mean, sum
};

constexpr const char* op_names[3] = {"std", "mean", "sum"};

template <class B> int run(const Config& c) {
  const ComputeOptions o = bench::compute_options(c);
  const index_t elements = c.mib * (index_t{1} << 20) / 8;
  std::vector<Row> rows;
  for (const index_t cols : c.cols) {
    const index_t n = elements / cols;
    Generator rng(5);
    const auto x = rng.normal<double, B>(Shape{n, cols}, Chunks{(n + 3) / 4, cols}).persist(o);
    Row r{cols, {}};
    for (int op = 0; op < 3; ++op) {
      double best = 1e300;
      for (int rep = 0; rep <= c.repeat; ++rep) {
        const double s = bench::seconds_of([&] {
          if (op == 0)
            (void)x.std(Axes{0}).compute(o);
          else if (op == 1)
            (void)x.mean(Axes{0}).compute(o);
          else
            (void)x.sum(Axes{0}).compute(o);
        });
        if (rep > 0)
          best = std::min(best, s);
      }
      r.ms[op] = 1e3 * best;
    }
    rows.push_back(r);
  }
  const auto widest = std::max_element(rows.begin(), rows.end(),
                                       [](const Row& a, const Row& b) { return a.cols < b.cols; });
  std::printf("narrow rows: %lld MiB float64 per array, blocks of a quarter of the rows, "
              "threads %d, best of %d\n",
              static_cast<long long>(c.mib), c.threads, c.repeat);
  std::string json = "{\"benchmark\": \"narrow_rows\", \"mib\": " + std::to_string(c.mib) +
                     ", \"threads\": " + std::to_string(c.threads) + ", \"runs\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::printf("  %5lld columns", static_cast<long long>(r.cols));
    json += fmt::format("{}{{\"cols\": {}", i ? ", " : "", r.cols);
    for (int op = 0; op < 3; ++op) {
      std::printf("  %s %7.2f ms (%.2fx)", op_names[op], r.ms[op], r.ms[op] / widest->ms[op]);
      json += fmt::format(", \"{}_ms\": {:.4f}", op_names[op], r.ms[op]);
    }
    std::printf("\n");
    json += "}";
  }
  json += "]}\n";
  if (!c.json.empty())
    bench::write_file(c.json, json);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  Config c;
  if (!parse_args(argc, argv, c))
    return 2;
  return bench::with_backend(c.backend, [&]<class B>() { return run<B>(c); });
}
