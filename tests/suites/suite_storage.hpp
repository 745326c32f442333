// SPDX-License-Identifier: Apache-2.0
// Storage suite: npy files and Zarr stores (v2 and v3, each compressor) written from arrays and
// read back lazily under many chunkings, slices of stores, missing chunks as the fill value,
// failures in the middle of a write that leave what was on disk as it was, and bad input.
#pragma once

#include "support/backend.hpp"
#include "support/errors.hpp"
#include "support/reference.hpp"
#include "support/temp_dir.hpp"

#include <chunked/config.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace chunked::test {
namespace {

using Storage = BackendTest;
namespace fs = std::filesystem;

const std::vector<Extents>& storage_shapes() {
  static const std::vector<Extents> shapes{{7, 5}, {9}, {0, 3}, {4, 3, 2}};
  return shapes;
}

/// The compressors this build has.
std::vector<std::string> built_compressors() {
  std::vector<std::string> out{"none"};
  if (CHUNKED_HAVE_ZSTD)
    out.emplace_back("zstd");
  if (CHUNKED_HAVE_ZLIB)
    out.emplace_back("gzip");
  if (CHUNKED_HAVE_BLOSC)
    out.emplace_back("blosc");
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

template <class T> void npy_round_trips() {
  TempDir dir;
  std::mt19937_64 rng(7);
  for (const Extents& shape : storage_shapes()) {
    const auto ref = random_dense<T>(shape, rng);
    for (const auto& chunks : chunkings_for(shape)) {
      SCOPED_TRACE(extents_string(shape) + " " + label(chunks));
      const std::string path = dir / "a.npy";
      save_npy(path, make_array<Backend>(ref, chunks));
      for (const auto& read_chunks : {chunks, chunkings_for(shape).back()}) {
        const auto back = load_npy<T, Backend>(path, read_chunks);
        EXPECT_EQ(back.chunks(), ChunkGrid(Shape(shape), read_chunks.resolve(Shape(shape), 8)));
        EXPECT_TRUE(matches(back.compute(), ref));
      }
    }
  }
  EXPECT_EQ(listing(dir.path()), "a.npy ") << "no temporary file is left";
}

TEST_F(Storage, NpyRoundTripsEveryDtypeUnderManyChunkings) {
  npy_round_trips<double>();
  npy_round_trips<float>();
  npy_round_trips<std::int64_t>();
  npy_round_trips<std::int32_t>();
  npy_round_trips<bool>();
}

TEST_F(Storage, NpyOfAComputedArrayAndAZeroDimensionalOne) {
  TempDir dir;
  const auto x = arange<double, Backend>(0.0, 35.0, 1.0, 4).reshape({7, 5});
  save_npy(dir / "y.npy", x * 2.0 + 1.0);
  const auto y = load_npy<double, Backend>(dir / "y.npy", Chunks{3, 2});
  EXPECT_EQ(y(6, 4).compute().data()[0], 69.0);
  EXPECT_EQ(y.sum().item(), 35.0 * 34.0 + 35.0);
  save_npy(dir / "s.npy", x.sum());
  EXPECT_EQ((load_npy<double, Backend>(dir / "s.npy", Chunks{}).item()), 595.0);
}

TEST_F(Storage, ZarrRoundTripsEachVersionAndCompressorUnderManyChunkings) {
  TempDir dir;
  std::mt19937_64 rng(11);
  for (const Extents& shape : storage_shapes()) {
    const auto ref = random_dense<double>(shape, rng);
    for (const auto& chunks : chunkings_for(shape))
      for (const int version : {2, 3})
        for (const auto& compressor : built_compressors()) {
          SCOPED_TRACE(extents_string(shape) + " " + label(chunks) + " v" +
                       std::to_string(version) + " " + compressor);
          const std::string path = dir / "a.zarr";
          const auto x = make_array<Backend>(ref, chunks);
          to_zarr(path, x, {.version = version, .compressor = compressor, .overwrite = true});
          const auto back = from_zarr<double, Backend>(path);
          EXPECT_EQ(back.chunks(), x.chunks());
          EXPECT_TRUE(matches(back.compute(), ref));
        }
  }
  EXPECT_EQ(listing(dir.path()).find(".partial"), std::string::npos);
}

TEST_F(Storage, ZarrOfOtherDtypesAndRaggedGridsRechunked) {
  TempDir dir;
  std::mt19937_64 rng(3);
  const auto ints = random_dense<std::int32_t>({10, 4}, rng);
  to_zarr(dir / "i.zarr", make_array<Backend>(ints, Chunks{3, 3}), {.compressor = "none"});
  EXPECT_TRUE(matches(from_zarr<std::int32_t, Backend>(dir / "i.zarr").compute(), ints));
  const auto bools = random_dense<bool>({13}, rng);
  to_zarr(dir / "b.zarr", make_array<Backend>(bools, Chunks{4}), {.version = 3});
  EXPECT_TRUE(matches(from_zarr<bool, Backend>(dir / "b.zarr").compute(), bools));
  // A slice has a ragged grid (2, 3, 3, 1): the store gets the largest chunk, 3.
  const auto x = make_array<Backend>(ints, Chunks{3, 4})(slice(1, 10), slice(none, none));
  to_zarr(dir / "s.zarr", x);
  const auto back = from_zarr<std::int32_t, Backend>(dir / "s.zarr");
  EXPECT_EQ(back.chunks().lengths(0), (std::vector<index_t>{3, 3, 3}));
  EXPECT_TRUE(matches(back.compute(), index(ints, {slice(1, 10), slice(none, none)})));
  EXPECT_TRUE(matches(from_zarr<std::int32_t, Backend>(dir / "s.zarr", Chunks{4, 1}).compute(),
                      index(ints, {slice(1, 10), slice(none, none)})));
}

TEST_F(Storage, SlicesOfAStoreReadTheChunksTheyTouch) {
  TempDir dir;
  std::mt19937_64 rng(5);
  const auto ref = random_dense<double>({11, 9}, rng);
  to_zarr(dir / "a.zarr", make_array<Backend>(ref, Chunks{4, 3}));
  const auto z = from_zarr<double, Backend>(dir / "a.zarr");
  EXPECT_TRUE(matches(z(slice(1, 6, 2), slice(none, none)).compute(),
                      index(ref, {slice(1, 6, 2), slice(none, none)})));
  EXPECT_TRUE(matches(z(slice(none, none, -3), slice(2, 3)).compute(),
                      index(ref, {slice(none, none, -3), slice(2, 3)})));
  EXPECT_TRUE(matches(z(4, slice(8, 0, -2)).compute(), index(ref, {4, slice(8, 0, -2)})));
  EXPECT_TRUE(matches(z(slice(5, 5), 0).compute(), index(ref, {slice(5, 5), 0})));
  // Chunks outside the slice may be anything, even missing or corrupt: they are never read.
  fs::remove(dir / "a.zarr/0.0");
  std::ofstream(dir / "a.zarr/2.2") << "garbage";
  EXPECT_TRUE(
      matches(z(slice(4, 8), slice(3, 6)).compute(), index(ref, {slice(4, 8), slice(3, 6)})));
}

TEST_F(Storage, MissingChunksReadAsTheFillValue) {
  TempDir dir;
  for (const int version : {2, 3}) {
    const std::string path = dir / ("f" + std::to_string(version) + ".zarr");
    to_zarr(path, full<double, Backend>(Shape{5, 4}, Chunks{2, 4}, 1.0),
            {.version = version, .fill_value = NAN});
    fs::remove(fs::path(path) / (version == 2 ? "1.0" : "c/1/0"));
    const auto got = from_zarr<double, Backend>(path).compute();
    for (index_t i = 0; i < 20; ++i)
      EXPECT_EQ(std::isnan(got.data()[i]), i >= 8 && i < 16) << "element " << i;
  }
  const std::string ints = dir / "i.zarr";
  to_zarr(ints, full<std::int64_t, Backend>(Shape{3}, Chunks{1}, 4), {.fill_value = -7});
  fs::remove(ints + "/1");
  EXPECT_TRUE(matches(from_zarr<std::int64_t, Backend>(ints).compute(),
                      Dense<std::int64_t>({3}, std::vector<std::int64_t>{4, -7, 4})));
}

TEST_F(Storage, AttributesSeparatorsAndDimensionNamesAreWritten) {
  TempDir dir;
  const auto x = ones<float, Backend>(Shape{3, 2}, Chunks{2, 2});
  to_zarr(dir / "a.zarr", x,
          {.dimension_separator = "/", .attributes = R"({"units": "K", "scale": [1, 2.5]})"});
  EXPECT_TRUE(fs::exists(dir / "a.zarr/1/0"));
  EXPECT_NE(read_text(dir / "a.zarr/.zattrs").find("\"units\": \"K\""), std::string::npos);
  to_zarr(dir / "b.zarr", x,
          {.version = 3, .dimension_separator = ".", .dimension_names = {"y", "x"}});
  EXPECT_TRUE(fs::exists(dir / "b.zarr/c.1.0"));
  EXPECT_NE(read_text(dir / "b.zarr/zarr.json").find("\"dimension_names\""), std::string::npos);
  EXPECT_EQ((from_zarr<float, Backend>(dir / "b.zarr").sum().item()), 6.0f);
}

// zarr.json as Zarr-Python 3 and TensorStore write it, with chunks written by hand: big-endian
// bytes, the "v2" and "default" key encodings, a missing chunk, a zero-dimensional array.
TEST_F(Storage, ReadsHandWrittenV3Stores) {
  TempDir dir;
  auto meta = [](const std::string& shape, const std::string& chunks, const std::string& type,
                 const std::string& keys, const std::string& endian, const std::string& fill) {
    return R"({"zarr_format": 3, "node_type": "array", "shape": )" + shape + R"(, "data_type": ")" +
           type + R"(", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": )" +
           chunks + R"(}}, "chunk_key_encoding": )" + keys + R"(, "fill_value": )" + fill +
           R"(, "codecs": [{"name": "bytes", "configuration": {"endian": ")" + endian +
           R"("}}], "attributes": {}, "dimension_names": null, "storage_transformers": []})";
  };
  auto bytes_of = [](std::vector<std::int32_t> v, bool big) {
    std::string out;
    for (const std::int32_t x : v)
      for (int b = 0; b < 4; ++b)
        out += static_cast<char>((static_cast<std::uint32_t>(x) >> (8 * (big ? 3 - b : b))) & 0xFF);
    return out;
  };
  // Shape (3, 4) in chunks (2, 3): chunk (1, 1) holds one element of the array and is padded.
  const std::string a = dir / "a.zarr";
  write_bytes(a + "/zarr.json",
              meta("[3, 4]", "[2, 3]", "int32", R"({"name": "default"})", "big", "-1"));
  write_bytes(a + "/c/0/0", bytes_of({0, 1, 2, 4, 5, 6}, true));
  write_bytes(a + "/c/0/1", bytes_of({3, 0, 0, 7, 0, 0}, true));
  write_bytes(a + "/c/1/1", bytes_of({11, 99, 99, 99, 99, 99}, true));
  EXPECT_TRUE(matches(from_zarr<std::int32_t, Backend>(a).compute(),
                      Dense<std::int32_t>({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1, 11})));
  const std::string b = dir / "b.zarr";
  write_bytes(b + "/zarr.json",
              meta("[2, 2]", "[1, 2]", "int32",
                   R"({"name": "v2", "configuration": {"separator": "."}})", "little", "7"));
  write_bytes(b + "/1.0", bytes_of({8, 9}, false));
  EXPECT_TRUE(matches(from_zarr<std::int32_t, Backend>(b).compute(),
                      Dense<std::int32_t>({2, 2}, {7, 7, 8, 9})));
  const std::string c = dir / "c.zarr";
  write_bytes(c + "/zarr.json", meta("[]", "[]", "int32", R"({"name": "default"})", "little", "0"));
  write_bytes(c + "/c", bytes_of({42}, false));
  EXPECT_EQ((from_zarr<std::int32_t, Backend>(c).item()), 42);
}

/// A store whose chunk 1.0 is corrupt: arrays computed from it fail in the middle of a write.
std::string corrupt_store(const TempDir& dir) {
  const std::string path = dir / "bad.zarr";
  to_zarr(path, ones<double, Backend>(Shape{8, 4}, Chunks{2, 4}));
  std::ofstream(path + "/1.0", std::ios::binary | std::ios::trunc) << "not zstd";
  return path;
}

TEST_F(Storage, AFailedWriteLeavesWhatWasOnDiskUntouched) {
  TempDir dir;
  const auto bad = from_zarr<double, Backend>(corrupt_store(dir)) * 2.0;
  const std::string npy = dir / "old.npy";
  save_npy(npy, full<double, Backend>(Shape{3}, Chunks{3}, 5.0));
  const std::string old_npy = read_text(npy);
  const std::string store = dir / "old.zarr";
  to_zarr(store, full<double, Backend>(Shape{8, 4}, Chunks{2, 4}, 5.0));
  const std::string before = listing(dir.path());
  expect_error<Error>([&] { save_npy(npy, bad); }, {"bad.zarr", "1.0", "corrupt"});
  expect_error<Error>([&] { save_npy(dir / "new.npy", bad); }, {"1.0"});
  expect_error<Error>([&] { to_zarr(store, bad, {.overwrite = true}); }, {"1.0"});
  expect_error<Error>([&] { to_zarr(dir / "new.zarr", bad); }, {"1.0"});
  EXPECT_EQ(listing(dir.path()), before) << "no partial file, chunk or store is visible";
  EXPECT_EQ(read_text(npy), old_npy);
  EXPECT_EQ((from_zarr<double, Backend>(store).sum().item()), 160.0);
  // The runtime stays usable.
  EXPECT_EQ((load_npy<double, Backend>(npy, Chunks{2}).sum().item()), 15.0);
}

TEST_F(Storage, BadInputNamesThePathAndWhatIsWrong) {
  TempDir dir;
  const auto x = ones<double, Backend>(Shape{4}, Chunks{2});
  save_npy(dir / "a.npy", x);
  to_zarr(dir / "a.zarr", x);
  expect_error<ValueError>([&] { load_npy<float, Backend>(dir / "a.npy", Chunks{2}); },
                           {"a.npy", "float64", "float32"});
  expect_error<ValueError>([&] { from_zarr<std::int32_t, Backend>(dir / "a.zarr"); },
                           {"a.zarr", "float64", "int32"});
  expect_error<Error>([&] { load_npy<double, Backend>(dir / "none.npy", Chunks{2}); },
                      {"none.npy"});
  expect_error<Error>([&] { from_zarr<double, Backend>(dir / "none.zarr"); }, {"none.zarr"});
  expect_error<ValueError>([&] { to_zarr(dir / "a.zarr", x); }, {"a.zarr", "exists"});
  expect_error<ValueError>([&] { to_zarr(dir / "b.zarr", x, {.version = 4}); },
                           {"b.zarr", "version 4"});
  expect_error<ValueError>([&] { to_zarr(dir / "b.zarr", x, {.compressor = "lzma"}); },
                           {"b.zarr", "lzma"});
  expect_error<ValueError>([&] { to_zarr(dir / "b.zarr", x, {.compressor = "gzip", .level = 12}); },
                           {"level 12"});
  expect_error<ValueError>([&] { to_zarr(dir / "b.zarr", x, {.dimension_separator = "-"}); },
                           {"\"-\""});
  expect_error<ValueError>([&] { to_zarr(dir / "b.zarr", x, {.attributes = "[1]"}); },
                           {"attributes", "object"});
  expect_error<ValueError>(
      [&] {
        to_zarr(dir / "b.zarr", x, {.dimension_names = {"a", "b"}});
      },
      {"2 dimension names", "1 axes"});
  expect_error<Error>([&] { save_npy(dir / "no/such/dir/a.npy", x); }, {"no/such/dir"});
  std::ofstream(dir / "a.zarr/.zarray", std::ios::trunc) << "{\"zarr_format\": 2,";
  expect_error<Error>([&] { from_zarr<double, Backend>(dir / "a.zarr"); },
                      {"a.zarr/.zarray", "invalid JSON"});
  EXPECT_FALSE(fs::exists(dir / "b.zarr"));
}

} // namespace
} // namespace chunked::test
