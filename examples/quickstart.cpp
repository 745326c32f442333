// SPDX-License-Identifier: Apache-2.0
// A first tour of chunked: make lazy arrays, combine and slice them, reduce, compute.
#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <span>
#include <vector>

using namespace chunked;

int main() try {
  // Arrays are lazy: these lines only describe the computation and check shapes.
  Generator rng(42);
  auto x = rng.normal<double>(Shape{4000, 3000}, Chunks{1000, 1000}, 10.0, 1.0);
  auto y = (x + 1.0)(slice(none, none, 2), slice(none, none, 2));
  fmt::print("x = {}\ny = {}\n", x, y);

  // item() computes a one-element result; only the elements the slice keeps are generated.
  const double total = y.sum().item();
  const double expected = 11.0 * static_cast<double>(y.size());
  fmt::print("sum(y) = {:.6e} (expected about {:.6e})\n", total, expected);

  // Reductions along axes give arrays; compute() brings them to the host.
  NDArray<double> column_means = x.mean(Axes{0}).compute();
  fmt::print("first column means: {:.4f} {:.4f} {:.4f}\n", column_means(0), column_means(1),
             column_means(2));

  // Host data enters through from_host (a copy), and mixes freely with generated arrays.
  std::vector<double> host(12);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<double>(i);
  auto h = from_host(std::span<const double>(host), Shape{3, 4}, Chunks{2, 3});
  auto z = where(h > 5.0, sqrt(h), -h);
  NDArray<double> zv = z.compute();
  fmt::print("z =\n{}\n", zv);
  bool z_ok = true;
  for (std::size_t i = 0; i < host.size(); ++i)
    z_ok = z_ok && zv.data()[i] == (host[i] > 5.0 ? std::sqrt(host[i]) : -host[i]);

  // Integer arrays: sums accumulate in int64, integer division gives double.
  auto dice = rng.integers<std::int64_t>(Shape{100000}, Chunks{30000}, 1, 7);
  const double mean_roll = dice.mean().item();
  fmt::print("mean of 100000 dice rolls: {:.4f}\n", mean_roll);

  // Several results in one pass: the work they share is done once.
  ComputeOptions options;
  options.num_threads = 2;
  auto [lo, hi] = compute(options, x.min(), x.max());
  fmt::print("min(x) = {:.4f}, max(x) = {:.4f}\n", lo.item(), hi.item());

  // The results above are random but their statistics are not; fail loudly if they are off.
  const double sigma = std::sqrt(static_cast<double>(y.size()));
  const bool ok = std::abs(total - expected) < 6.0 * sigma &&
                  std::abs(column_means(0) - 10.0) < 0.1 && std::abs(mean_roll - 3.5) < 0.05 &&
                  z_ok && lo.item() < hi.item();
  if (!ok) {
    std::fprintf(stderr, "quickstart: a result is outside its expected range\n");
    return 1;
  }
  return 0;
} catch (const chunked::Error& e) {
  std::fprintf(stderr, "quickstart: %s\n", e.what());
  return 1;
}
