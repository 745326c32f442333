// SPDX-License-Identifier: Apache-2.0
// Normalise a host array so it sums to one: a / a.sum(), two passes over chunked data, checked.
//
// Usage: chunked_example_normalize [--size N] [--chunk C]
// The array starts and ends in host memory; on a GPU the chunks stream across the bus.
#include "example_options.hpp"

#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace chunked;

constexpr const char* usage = "usage: chunked_example_normalize [--size N] [--chunk C]\n"
                              "defaults: --size 100000000 --chunk 10000000\n";

int main(int argc, char** argv) try {
  index_t size = 100'000'000;
  index_t chunk = 10'000'000;
  const int status = example::parse_options(argc, argv, usage, [&](auto name, auto value) {
    return name == "--size"    ? example::parse_positive(value, size)
           : name == "--chunk" ? example::parse_positive(value, chunk)
                               : false;
  });
  if (status >= 0)
    return status;

  // Positive values of very different sizes, so that a wrong sum or a wrong divisor shows.
  std::vector<double> host(static_cast<std::size_t>(size));
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = 1.0 + static_cast<double>(i % 1000) * 0.25;

  const auto start = std::chrono::steady_clock::now();
  auto a = from_host<Auto>(std::span<const double>(host), Shape{size}, Chunks{chunk});
  auto normalized = a / a.sum();
  std::vector<double> out(host.size());
  normalized.to_host(std::span<double>(out));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Check against a sum computed here in extended precision, so that its own error is negligible:
  // each element must be its input divided by that sum, and the results must add up to one.
  long double total = 0;
  for (double v : host)
    total += v;
  long double out_total = 0;
  double worst = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    out_total += out[i];
    worst = std::max(worst, static_cast<double>(std::abs(out[i] * total / host[i] - 1.0L)));
  }
  fmt::print("a: {}\n", a);
  fmt::print("sum(a / a.sum()) = {:.17g}; worst relative error per element {:.3g}; {:.3f} s\n",
             static_cast<double>(out_total), worst, seconds);
  // A blocked or tree-ordered sum of 1e8 doubles is typically exact to ~1e-12 relative; a sum
  // that missed or doubled one element of 1e8 is off by ~1e-8, so 1e-10 tells them apart.
  const double tolerance = 1e-10;
  if (!(std::abs(static_cast<double>(out_total) - 1.0) <= tolerance) || !(worst <= tolerance)) {
    std::fprintf(stderr,
                 "normalize: the result does not sum to one (off by %.3g, tolerance %.3g)\n",
                 static_cast<double>(out_total) - 1.0, tolerance);
    return 1;
  }
  return 0;
} catch (const chunked::Error& e) {
  std::fprintf(stderr, "normalize: %s\n", e.what());
  return 1;
}
