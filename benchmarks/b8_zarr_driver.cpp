// SPDX-License-Identifier: Apache-2.0
// chunked-b8-benchmark: BENCHMARKS.md B8, a float64 array written as a Zarr v2 store and read back,
// with zstd level 3 and uncompressed, on all cores.
//
//   chunked-b8-benchmark [--gib 16] [--chunk-mib 64] [--cols 8192] [--dir DIR]
//                        [--compressor zstd|none|both] [--backend cpu|cuda|auto] [--threads N]
//                        [--repeat 3] [--json FILE]
//
// x is a random normal array (rows x cols, chunks of whole rows of about --chunk-mib MiB),
// generated as it is written, as the peer (benchmarks/peers/b8_dask_zarr.py) does:
//   write   to_zarr(DIR/x.zarr, x, {version 2, compressor, level 3, overwrite})
//   read    from_zarr<double>(DIR/x.zarr).sum(): every chunk read and decompressed
// The sum read back must equal x.sum() bit for bit (same chunks, same order of additions). The
// limit printed beside the rates is the sequential write rate of DIR measured in the same run (a
// file of 2 GiB written with pwrite and flushed with fdatasync); for zstd the compressor's own
// speed on these cores bounds the write as well, which the uncompressed run separates from the
// disk.
#include "driver_util.hpp"

#include <chunked/chunked.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace chunked;

namespace {

struct Config : bench::SizeOptions {
  index_t cols = 8192;
  std::string dir = "/tmp/chunked-b8";
  std::string compressor = "both";

  Config() : SizeOptions(3, 64) {
    gib = 16;
    backend = "cpu";
  }
};

constexpr const char* usage_text =
    "usage: chunked-b8-benchmark [--gib G] [--chunk-mib M] [--cols C] [--dir DIR]\n"
    "                            [--compressor zstd|none|both] [--backend cpu|cuda|auto]\n"
    "                            [--threads N] [--repeat R] [--json FILE]\n"
    "  --gib        size of the array in GiB (default 16)\n"
    "  --chunk-mib  chunk size in MiB, whole rows (default 64)\n"
    "  --cols       columns (default 8192)\n"
    "  --dir        where the stores are written (default /tmp/chunked-b8; removed at the end)\n"
    "  --compressor zstd (level 3), none, or both (default)\n"
    "  (--backend defaults to cpu here: B8 measures the host cores)\n" CHUNKED_BENCH_USAGE_COMMON(
        "timed write and read pairs per compressor (default 3)");

bool parse_args(int argc, char** argv, Config& c) {
  return bench::parse_command_line(
      argc, argv, "chunked-b8-benchmark", usage_text, 1, c,
      [&](std::string_view arg, std::string_view value) {
        if (bench::parse_size_option(arg, value, c))
          return true;
        if (arg == "--cols")
          c.cols = bench::parse_int(arg, value, 1);
        else if (arg == "--dir")
          c.dir = value;
        else if (arg == "--compressor" && (value == "zstd" || value == "none" || value == "both"))
          c.compressor = value;
        else
          return false;
        return true;
      });
}

/// Bytes per second of a sequential write of `bytes` into a new file in `dir`, flushed to the
/// device (fdatasync), written in 64 MiB pieces.
double disk_write_rate(const std::string& dir, std::size_t bytes) {
  const std::string path = dir + "/disk-rate.tmp";
  const std::size_t piece = std::size_t{64} << 20;
  std::vector<unsigned char> data(piece);
  for (std::size_t i = 0; i < piece; ++i)
    data[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  const double seconds = bench::seconds_of([&] {
    for (std::size_t at = 0; at < bytes; at += piece)
      if (::pwrite(fd, data.data(), piece, static_cast<off_t>(at)) != static_cast<ssize_t>(piece))
        throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    ::fdatasync(fd);
  });
  ::close(fd);
  std::filesystem::remove(path);
  return static_cast<double>(bytes) / seconds;
}

std::uintmax_t directory_bytes(const std::string& dir) {
  std::uintmax_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      n += e.file_size();
  return n;
}

struct Run {
  std::string compressor;
  std::vector<double> write_s, read_s;
  std::uintmax_t stored_bytes = 0;
};

template <class B> int run(const Config& c) {
  const bench::Machine machine(c.backend);
  machine.print_header("chunked-b8-benchmark");
  const index_t rows = c.rows(c.cols, 1, "one row");
  const index_t chunk_rows = std::max<index_t>(1, (c.chunk_mib << 20) / (8 * c.cols));
  const double bytes = 8.0 * static_cast<double>(rows) * static_cast<double>(c.cols);
  ComputeOptions opts = bench::compute_options(c);
  std::filesystem::create_directories(c.dir);
  const std::string path = c.dir + "/x.zarr";

  Generator rng(8);
  const auto x = rng.normal<double, B>(Shape{rows, c.cols}, Chunks{chunk_rows, c.cols});
  const double expected = x.sum().item(opts);
  fmt::print("config:   {} x {} float64 ({:.2f} GiB), chunks {} x {} ({:.1f} MiB), {} runs\n", rows,
             c.cols, bytes / double(1 << 30), chunk_rows, c.cols,
             8.0 * double(chunk_rows * c.cols) / double(1 << 20), c.repeat);

  std::vector<Run> runs;
  for (const std::string comp : {"zstd", "none"}) {
    if (c.compressor != "both" && c.compressor != comp)
      continue;
    Run r{comp, {}, {}, 0};
    for (int i = 0; i < c.repeat; ++i) {
      ZarrOptions zo;
      zo.version = 2;
      zo.compressor = comp;
      zo.level = 3;
      zo.overwrite = true;
      r.write_s.push_back(bench::seconds_of([&] { to_zarr(path, x, zo, opts); }));
      double got = 0;
      r.read_s.push_back(
          bench::seconds_of([&] { got = from_zarr<double, B>(path).sum().item(opts); }));
      if (std::memcmp(&got, &expected, sizeof got) != 0)
        throw std::runtime_error(fmt::format("{}: the sum read back, {:.17g}, is not the sum "
                                             "written, {:.17g}",
                                             comp, got, expected));
    }
    r.stored_bytes = directory_bytes(path);
    const double w = bench::median(r.write_s), rd = bench::median(r.read_s);
    fmt::print("{:<5} write {:8.3f} s ({:6.2f} GB/s)  read+sum {:8.3f} s ({:6.2f} GB/s)  "
               "stored {:.2f} GiB (ratio {:.3f})\n",
               comp, w, bytes / w * 1e-9, rd, bytes / rd * 1e-9,
               double(r.stored_bytes) / double(1 << 30), double(r.stored_bytes) / bytes);
    runs.push_back(std::move(r));
  }
  std::filesystem::remove_all(path);
  const double disk = disk_write_rate(c.dir, std::size_t{2} << 30);
  fmt::print("limit:    sequential write of {} {:.2f} GB/s (2 GiB, fdatasync)\n", c.dir,
             disk * 1e-9);
  for (const Run& r : runs)
    fmt::print("ratio:    {} write {:.3f} of the disk rate\n", r.compressor,
               bytes / bench::median(r.write_s) / disk);

  if (!c.json.empty()) {
    std::string runs_json;
    for (const Run& r : runs)
      runs_json += fmt::format(
          R"({}    {{"compressor": "{}", "write_s": {}, "read_s": {}, "median_write_s": {:.6g}, )"
          R"("median_read_s": {:.6g}, "stored_bytes": {}}})",
          runs_json.empty() ? "" : ",\n", r.compressor, bench::json_list(r.write_s),
          bench::json_list(r.read_s), bench::median(r.write_s), bench::median(r.read_s),
          r.stored_bytes);
    bench::write_file(c.json,
                      machine.json_header("b8_zarr") +
                          fmt::format(R"(  "config": {{"rows": {}, "cols": {}, )"
                                      R"("chunk_rows": {}, "threads": {}}},
  "bytes": {:.0f},
  "disk_write_rate": {:.6g},
  "runs": [
{}
  ]
}}
)",
                                      rows, c.cols, chunk_rows, c.threads, bytes, disk, runs_json));
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) try {
  Config c;
  if (!parse_args(argc, argv, c))
    return 2;
  return bench::with_backend(c.backend, [&]<class B>() { return run<B>(c); });
} catch (const std::exception& e) {
  std::fprintf(stderr, "chunked-b8-benchmark: %s\n", e.what());
  return 1;
}
