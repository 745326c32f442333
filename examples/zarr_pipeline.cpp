// SPDX-License-Identifier: Apache-2.0
// A larger-than-memory pipeline through Zarr stores: generate a random array, write it as a Zarr
// v2 store, reopen it lazily, standardize it column by column and write the result as a second
// store, which NumPy, Zarr-Python and Dask open unchanged (README shows Dask doing so).
//
// Usage: chunked_example_zarr_pipeline [--rows N] [--cols N] [--chunk N] [--dir DIR]
// defaults: --rows 20000 --cols 500 --chunk 2500 --dir ./zarr_pipeline (written, left in place)
// Runs on a GPU when there is one (Auto), else on the CPU cores.
#include "example_options.hpp"

#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

using namespace chunked;

constexpr const char* usage =
    "usage: chunked_example_zarr_pipeline [--rows N] [--cols N] [--chunk N] [--dir DIR]\n"
    "defaults: --rows 20000 --cols 500 --chunk 2500 --dir ./zarr_pipeline\n";

int main(int argc, char** argv) try {
  index_t rows = 20000, cols = 500, chunk = 2500;
  std::string dir = "zarr_pipeline";
  const int status = example::parse_options(argc, argv, usage, [&](auto name, auto value) {
    return name == "--rows"    ? example::parse_positive(value, rows)
           : name == "--cols"  ? example::parse_positive(value, cols)
           : name == "--chunk" ? example::parse_positive(value, chunk)
           : name == "--dir"   ? (dir = value, !dir.empty())
                               : false;
  });
  if (status >= 0)
    return status;
  std::filesystem::create_directories(dir);
  const std::string raw = dir + "/raw.zarr", standardized = dir + "/standardized.zarr";

  // 1. Generate: columns of different means and spreads, so that standardizing has work to do.
  Generator rng(2026);
  auto noise = rng.normal<double, Auto>(Shape{rows, cols}, Chunks{chunk, cols});
  auto column = arange<double, Auto>(0.0, double(cols), 1.0, cols);
  auto x = noise * (1.0 + column * 0.01) + column;

  // 2. Write it: each chunk compressed with zstd and written by one task, atomically.
  ZarrOptions zo;
  zo.compressor = "zstd";
  zo.level = 3;
  zo.overwrite = true;
  const auto t0 = std::chrono::steady_clock::now();
  to_zarr(raw, x, zo);
  const auto t1 = std::chrono::steady_clock::now();

  // 3. Reopen lazily (the store's chunks become the blocks) and standardize each column: two
  //    passes over the store, one for the moments and one for the result, streamed to disk.
  auto y = from_zarr<double, Auto>(raw);
  auto z = (y - y.mean(Axes{0})) / y.std(Axes{0});
  to_zarr(standardized, z, zo);
  const auto t2 = std::chrono::steady_clock::now();

  // 4. Check what was written by reading it back: every column now has mean 0 and deviation 1
  //    (both moments from one read of the store).
  auto back = from_zarr<double, Auto>(standardized);
  auto [means, stds] = compute(ComputeOptions{}, back.mean(Axes{0}), back.std(Axes{0}));
  const auto t3 = std::chrono::steady_clock::now();
  double worst = 0;
  for (index_t j = 0; j < cols; ++j)
    worst = std::max({worst, std::abs(means(j)), std::abs(stds(j) - 1.0)});
  fmt::print("wrote {} and {} ({} x {} float64, chunks of {} rows)\n", raw, standardized, rows,
             cols, chunk);
  const auto seconds = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  fmt::print("generate and write {:.2f} s, standardize {:.2f} s, check {:.2f} s\n", seconds(t0, t1),
             seconds(t1, t2), seconds(t2, t3));
  fmt::print("largest |mean| or |std - 1| of a standardized column: {:.3e}\n", worst);
  if (!(worst < 1e-9)) {
    std::fprintf(stderr, "zarr_pipeline: the standardized store is not standardized\n");
    return 1;
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "zarr_pipeline: %s\n", e.what());
  return 1;
}
