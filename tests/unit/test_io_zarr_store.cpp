// SPDX-License-Identifier: Apache-2.0
// Zarr stores at the format layer: chunks written and read back (padded edges, missing chunks,
// Fortran order, big-endian), corrupt chunks, and stores published whole.
#include "io/byte_order.hpp"
#include "io/file_io.hpp"
#include "io/zarr_store.hpp"
#include "support/errors.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace {

using namespace chunked;
using chunked::test::expect_error;
using chunked::test::listing;
using chunked::test::TempDir;
using chunked::test::write_bytes;

io::ZarrMeta meta_of(int version, const char* codec) {
  io::ZarrMeta m;
  m.version = version;
  m.shape = {5, 7};
  m.chunks = {2, 3};
  m.type.dtype = DType::int32;
  m.codec.name = codec;
  m.fill = io::fill_bytes(-9, DType::int32);
  m.key_prefix_c = version == 3;
  m.separator = version == 3 ? '/' : '.';
  return m;
}

std::int32_t value(index_t r, index_t c) { return static_cast<std::int32_t>(r * 10 + c); }

/// Writes every block but those in `skip` (block numbers in C order) through a ZarrSink.
void write_store(const io::StoreDir& store, const io::ZarrMeta& m, std::vector<int> skip = {}) {
  io::write_zarr_meta(store, m);
  io::ZarrSink sink(store, m);
  int number = 0;
  for (index_t r0 = 0; r0 < 5; r0 += 2)
    for (index_t c0 = 0; c0 < 7; c0 += 3, ++number) {
      if (std::find(skip.begin(), skip.end(), number) != skip.end())
        continue;
      const index_t er = std::min<index_t>(2, 5 - r0), ec = std::min<index_t>(3, 7 - c0);
      std::vector<std::int32_t> block;
      for (index_t r = 0; r < er; ++r)
        for (index_t c = 0; c < ec; ++c)
          block.push_back(value(r0 + r, c0 + c));
      sink.write({r0 / 2, c0 / 3}, {r0, c0}, {er, ec}, block.data());
    }
}

/// Reads every block and checks it; blocks in `missing` must hold the fill value.
void check_store(const std::string& path, std::vector<int> missing = {}) {
  const io::ZarrSource src(path, io::read_zarr_meta(path));
  int number = 0;
  for (index_t r0 = 0; r0 < 5; r0 += 2)
    for (index_t c0 = 0; c0 < 7; c0 += 3, ++number) {
      const index_t er = std::min<index_t>(2, 5 - r0), ec = std::min<index_t>(3, 7 - c0);
      std::vector<std::int32_t> out(static_cast<std::size_t>(er * ec));
      src.read({r0 / 2, c0 / 3}, {r0, c0}, {er, ec}, out.data());
      const bool fill = std::find(missing.begin(), missing.end(), number) != missing.end();
      for (index_t r = 0; r < er; ++r)
        for (index_t c = 0; c < ec; ++c)
          ASSERT_EQ(out[static_cast<std::size_t>(r * ec + c)], fill ? -9 : value(r0 + r, c0 + c))
              << path << " block " << number;
    }
}

TEST(IoZarrStore, EachVersionAndCodecRoundTripsWithMissingChunksAsFill) {
  TempDir dir;
  for (const int version : {2, 3})
    for (const char* codec : {"none", "zstd", "gzip", "blosc"}) {
      if (!io::codec_built(codec))
        continue;
      const std::string path = dir / ("s" + std::to_string(version) + codec + ".zarr");
      io::StoreDir store(path, false);
      write_store(store, meta_of(version, codec), {4});
      store.commit();
      check_store(path, {4});
    }
  EXPECT_TRUE(std::filesystem::exists(dir / "s3none.zarr/c/2/1"));
  EXPECT_TRUE(std::filesystem::exists(dir / "s2none.zarr/2.1"));
  // Edge chunks are stored whole: 2 x 3 int32 even for the 1 x 1 corner.
  EXPECT_EQ(std::filesystem::file_size(dir / "s2none.zarr/2.2"), 24u);
}

TEST(IoZarrStore, ReadsFortranOrderAndBigEndianChunks) {
  TempDir dir;
  const std::string path = dir / "f.zarr";
  io::ZarrMeta m = meta_of(2, "none");
  write_bytes(path + "/.zarray",
              R"({"chunks": [2, 3], "compressor": null, "dtype": ">i4", "fill_value": -9,
                  "filters": null, "order": "F", "shape": [5, 7], "zarr_format": 2})");
  for (index_t br = 0; br < 3; ++br)
    for (index_t bc = 0; bc < 3; ++bc) {
      std::vector<std::int32_t> chunk; // Fortran order, padded, big-endian
      for (index_t c = 0; c < 3; ++c)
        for (index_t r = 0; r < 2; ++r)
          chunk.push_back(value(br * 2 + r, bc * 3 + c));
      io::swap_bytes(chunk.data(), chunk.size(), 4);
      write_bytes(path + "/" + std::to_string(br) + "." + std::to_string(bc),
                  {reinterpret_cast<const char*>(chunk.data()), chunk.size() * 4});
    }
  check_store(path);
}

TEST(IoZarrStore, CorruptAndTruncatedChunksNameTheirFile) {
  TempDir dir;
  for (const char* codec : {"none", "zstd"}) {
    if (!io::codec_built(codec))
      continue;
    const std::string path = dir / (std::string(codec) + ".zarr");
    io::StoreDir store(path, false);
    write_store(store, meta_of(2, codec));
    store.commit();
    const std::string chunk = path + "/1.1";
    const std::string bytes = *io::read_whole_file(chunk);
    write_bytes(chunk, bytes.substr(0, bytes.size() - 3));
    const io::ZarrSource src(path, io::read_zarr_meta(path));
    std::vector<std::int32_t> out(6);
    expect_error<Error>(
        [&] {
          src.read({1, 1}, {2, 3}, {2, 3}, out.data());
        },
        {"1.1", "corrupt or truncated"});
  }
}

TEST(IoZarrStore, MissingStoresAndGroupsAreNamed) {
  TempDir dir;
  expect_error<Error>([&] { io::read_zarr_meta(dir / "nope.zarr"); },
                      {"nope.zarr", "does not exist"});
  write_bytes(dir / "g.zarr/.zgroup", R"({"zarr_format": 2})");
  expect_error<Error>([&] { io::read_zarr_meta(dir / "g.zarr"); }, {"g.zarr", "group"});
  std::filesystem::create_directories(dir / "empty.zarr");
  expect_error<Error>([&] { io::read_zarr_meta(dir / "empty.zarr"); },
                      {"empty.zarr", "neither zarr.json nor .zarray"});
}

TEST(IoZarrStore, StoreIsPublishedWholeAndReplacesOnlyWithOverwrite) {
  TempDir dir;
  const std::string path = dir / "a.zarr";
  {
    io::StoreDir store(path, false);
    write_store(store, meta_of(2, "none"));
    store.commit();
  }
  const std::string before = listing(dir.path());
  expect_error<ValueError>([&] { io::StoreDir(path, false); }, {"a.zarr", "already exists"});
  {
    io::StoreDir store(path, true);
    write_store(store, meta_of(3, "none"), {0, 1, 2});
    // Abandoned before commit(), as when a computation fails: the old store is untouched.
  }
  EXPECT_EQ(listing(dir.path()), before);
  check_store(path);
  {
    io::StoreDir store(path, true);
    write_store(store, meta_of(3, "none"), {0});
    store.commit();
  }
  EXPECT_EQ(io::read_zarr_meta(path).version, 3);
  EXPECT_FALSE(std::filesystem::exists(dir / "a.zarr/.zarray"));
  check_store(path, {0});
  EXPECT_EQ(listing(dir.path()).find(".partial"), std::string::npos);
  EXPECT_EQ(listing(dir.path()).find(".old"), std::string::npos);
}

} // namespace
