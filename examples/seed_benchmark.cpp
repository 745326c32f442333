// SPDX-License-Identifier: Apache-2.0
// The seed benchmark as a user writes it: sum of (x + 1)[::2, ::2] for x = normal(10, 1), checked.
//
// Usage: chunked_example_seed_benchmark [--shape RxC] [--chunks RxC]
// The defaults are the full 500000x500000 array (2 TB of float64) in 10000x10000 chunks; it runs
// on a GPU when one is usable and on the CPU cores otherwise. For timings, use
// chunked-seed-benchmark.
#include "example_options.hpp"

#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unistd.h>

using namespace chunked;

namespace {

struct Extent2 {
  index_t rows;
  index_t cols;
};

// Parses "RxC" (two positive integers); false for anything else.
bool parse_extent(std::string_view text, Extent2& out) {
  const auto x = text.find('x');
  return x != std::string_view::npos && example::parse_positive(text.substr(0, x), out.rows) &&
         example::parse_positive(text.substr(x + 1), out.cols);
}

constexpr const char* usage = "usage: chunked_example_seed_benchmark [--shape RxC] [--chunks RxC]\n"
                              "defaults: --shape 500000x500000 --chunks 10000x10000\n";

} // namespace

int main(int argc, char** argv) try {
  Extent2 shape{500000, 500000};
  Extent2 chunks{10000, 10000};
  const int status = example::parse_options(argc, argv, usage, [&](auto name, auto value) {
    return name == "--shape"    ? parse_extent(value, shape)
           : name == "--chunks" ? parse_extent(value, chunks)
                                : false;
  });
  if (status >= 0)
    return status;

  // The program of the design's opening, with the backend left to Auto.
  Generator rng(42);
  auto x = rng.normal<double, Auto>(Shape{shape.rows, shape.cols}, Chunks{chunks.rows, chunks.cols},
                                    10.0, 1.0);
  auto kept = (x + 1.0)(slice(none, none, 2), slice(none, none, 2));

  ComputeOptions options;
  options.progress_bar = isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  const double s = kept.sum().item(options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Each kept element is 11 + N(0, 1), independent, so the sum is 11 n give or take sqrt(n).
  // Six standard deviations fail a correct program about once in 5e8 runs; the relative term
  // covers the rounding of summing up to 6e10 doubles.
  const double n = static_cast<double>(kept.size());
  const double expected = 11.0 * n;
  const double tolerance = 6.0 * std::sqrt(n) + 1e-12 * expected;
  fmt::print("x: {}\n", x);
  fmt::print("sum((x + 1)[::2, ::2]) = {:.17g}\n", s);
  fmt::print("expected {:.17g} +- {:.3g} ({} kept elements); {:.3f} s on {}\n", expected, tolerance,
             kept.size(), seconds, cuda_available() ? "CUDA" : "the CPU");
  if (!(std::abs(s - expected) <= tolerance)) {
    std::fprintf(stderr, "seed_benchmark: the sum is off by %.6g, more than %.6g\n", s - expected,
                 tolerance);
    return 1;
  }
  return 0;
} catch (const chunked::Error& e) {
  std::fprintf(stderr, "seed_benchmark: %s\n", e.what());
  return 1;
}
