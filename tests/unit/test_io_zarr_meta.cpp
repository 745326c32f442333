// SPDX-License-Identifier: Apache-2.0
// Zarr metadata: .zarray and zarr.json as Zarr-Python and the v3 spec write them, chunk keys,
// fill values, and the errors of bad metadata.
#include "io/zarr_meta.hpp"
#include "support/errors.hpp"

#include <chunked/core/error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace {

using namespace chunked;
using chunked::test::expect_error;

// As Zarr-Python 2.13 writes it for zarr.open(..., shape=(10, 7), chunks=(4, 3), dtype='>i4',
// compressor=Blosc(cname='zstd', clevel=5, shuffle=2), fill_value=-1).
constexpr const char* zarray_text = R"({
    "chunks": [4, 3],
    "compressor": {"blocksize": 0, "clevel": 5, "cname": "zstd", "id": "blosc", "shuffle": 2},
    "dimension_separator": "/",
    "dtype": ">i4",
    "fill_value": -1,
    "filters": null,
    "order": "C",
    "shape": [10, 7],
    "zarr_format": 2
})";

constexpr const char* zarr_json_text = R"({
  "zarr_format": 3, "node_type": "array", "shape": [6, 5], "data_type": "float32",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": "NaN",
  "codecs": [{"name": "bytes", "configuration": {"endian": "big"}},
             {"name": "gzip", "configuration": {"level": 6}}],
  "attributes": {"units": "m"}, "dimension_names": ["y", null]
})";

template <class T> T fill_as(const io::ZarrMeta& m) {
  T v;
  std::memcpy(&v, m.fill.data(), sizeof v);
  return v;
}

TEST(IoZarrMeta, ReadsZarrPythonsV2Metadata) {
  const io::ZarrMeta m = io::parse_zarr_v2(zarray_text, R"({"a": [1, 2]})", ".zarray");
  EXPECT_EQ(m.version, 2);
  EXPECT_EQ(m.shape, (std::vector<index_t>{10, 7}));
  EXPECT_EQ(m.chunks, (std::vector<index_t>{4, 3}));
  EXPECT_EQ(m.type.dtype, DType::int32);
  EXPECT_TRUE(m.type.big_endian);
  EXPECT_EQ(m.codec.name, "blosc");
  EXPECT_EQ(m.codec.blosc_cname, "zstd");
  EXPECT_EQ(m.codec.level, 5);
  EXPECT_EQ(fill_as<std::int32_t>(m), -1);
  EXPECT_EQ(m.separator, '/');
  EXPECT_EQ(m.attributes.dump(), R"({"a": [1, 2]})");
  EXPECT_EQ(io::chunk_key(m, {2, 1}), "2/1");
}

TEST(IoZarrMeta, ReadsV3Metadata) {
  const io::ZarrMeta m = io::parse_zarr_v3(zarr_json_text, "zarr.json");
  EXPECT_EQ(m.version, 3);
  EXPECT_EQ(m.type.dtype, DType::float32);
  EXPECT_TRUE(m.type.big_endian);
  EXPECT_EQ(m.codec.name, "gzip");
  EXPECT_EQ(m.codec.level, 6);
  EXPECT_TRUE(std::isnan(fill_as<float>(m)));
  EXPECT_EQ(io::chunk_key(m, {1, 0}), "c/1/0");
  EXPECT_EQ(io::chunk_key(m, {}), "c");
  EXPECT_EQ(m.attributes.dump(), R"({"units": "m"})");
  EXPECT_EQ(m.dimension_names, (std::vector<std::string>{"y", ""}));
}

TEST(IoZarrMeta, WrittenMetadataReadsBack) {
  for (const int version : {2, 3})
    for (const char* codec : {"none", "zstd", "gzip", "blosc"}) {
      io::ZarrMeta m;
      m.version = version;
      m.shape = {9, 0, 4};
      m.chunks = {4, 1, 4};
      m.type.dtype = DType::float64;
      m.codec.name = codec;
      m.codec.level = 7;
      m.codec.blosc_shuffle = 2;
      m.codec.typesize = 8;
      m.fill = io::fill_bytes(-INFINITY, DType::float64);
      m.key_prefix_c = version == 3;
      m.separator = version == 3 ? '/' : '.';
      m.attributes = io::Json::parse(R"({"z": 1.5, "a": "b"})");
      const io::ZarrMeta back =
          version == 2 ? io::parse_zarr_v2(io::format_zarray(m), io::format_zattrs(m), "x")
                       : io::parse_zarr_v3(io::format_zarr_json(m), "x");
      SCOPED_TRACE(std::to_string(version) + codec);
      EXPECT_EQ(back.shape, m.shape);
      EXPECT_EQ(back.chunks, m.chunks);
      EXPECT_EQ(back.type.dtype, DType::float64);
      EXPECT_FALSE(back.type.big_endian);
      EXPECT_EQ(back.codec.name, codec);
      if (std::string(codec) != "none") {
        EXPECT_EQ(back.codec.level, 7);
      }
      EXPECT_EQ(fill_as<double>(back), -INFINITY);
      EXPECT_EQ(back.attributes.dump(), m.attributes.dump());
      EXPECT_EQ(io::chunk_key(back, {1, 0, 0}), version == 3 ? "c/1/0/0" : "1.0.0");
    }
  io::ZarrMeta m;
  m.type.dtype = DType::bool_;
  EXPECT_NE(io::format_zarray(m).find("\"dtype\": \"|b1\""), std::string::npos);
  EXPECT_NE(io::format_zarray(m).find("\"compressor\": null"), std::string::npos);
  EXPECT_EQ(io::chunk_key(m, {}), "0");
}

TEST(IoZarrMeta, FillValuesOfEachKind) {
  using io::Json;
  io::ZarrMeta m;
  m.fill = io::parse_fill_value(Json("NaN"), DType::float64, "x");
  EXPECT_TRUE(std::isnan(fill_as<double>(m)));
  m.fill = io::parse_fill_value(Json("0x7fc00000"), DType::float32, "x");
  EXPECT_TRUE(std::isnan(fill_as<float>(m)));
  m.fill = io::parse_fill_value(Json(true), DType::bool_, "x");
  EXPECT_TRUE(fill_as<bool>(m));
  m.fill = io::parse_fill_value(Json(std::int64_t{-5}), DType::int64, "x");
  EXPECT_EQ(fill_as<std::int64_t>(m), -5);
  m.fill = io::parse_fill_value(Json(3), DType::float32, "x");
  EXPECT_EQ(fill_as<float>(m), 3.0f);
  EXPECT_EQ(io::fill_value_json(io::fill_bytes(INFINITY, DType::float32), DType::float32).dump(),
            "\"Infinity\"");
  expect_error<Error>([] { io::parse_fill_value(Json("x"), DType::float64, "here"); },
                      {"here", "\"x\""});
  expect_error<Error>([] { io::parse_fill_value(Json(1.5), DType::int32, "here"); }, {"integer"});
  expect_error<Error>([] { io::parse_fill_value(Json(std::int64_t{1} << 40), DType::int32, "h"); },
                      {"does not fit int32"});
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  return s.replace(s.find(from), from.size(), to);
}

TEST(IoZarrMeta, BadMetadataNamesTheFileAndWhatIsWrong) {
  const std::string z = zarray_text;
  expect_error<Error>([] { io::parse_zarr_v2("{not json", "", "s/.zarray"); },
                      {"s/.zarray", "invalid JSON", "offset 1"});
  expect_error<Error>([] { io::parse_zarr_v2("[1]", "", "s/.zarray"); }, {"not an object"});
  expect_error<Error>([&] { io::parse_zarr_v2(replaced(z, "\"blosc\"", "\"lzma\""), "", "s"); },
                      {"s:", "unknown compressor id \"lzma\""});
  expect_error<ValueError>([&] { io::parse_zarr_v2(replaced(z, ">i4", "<c16"), "", "s"); },
                           {"s:", "'<c16'"});
  expect_error<Error>([&] { io::parse_zarr_v2(replaced(z, "[4, 3]", "[4]"), "", "s"); },
                      {"chunks has 1 extents, shape 2"});
  expect_error<Error>([&] { io::parse_zarr_v2(replaced(z, "[4, 3]", "[4, 0]"), "", "s"); },
                      {"chunks holds 0"});
  expect_error<Error>([&] { io::parse_zarr_v2(replaced(z, "[10, 7]", "[10, -7]"), "", "s"); },
                      {"shape holds -7"});
  expect_error<Error>(
      [&] {
        io::parse_zarr_v2(replaced(z, "\"filters\": null", "\"filters\": [{\"id\": \"delta\"}]"),
                          "", "s");
      },
      {"filters", "delta"});
  expect_error<Error>(
      [&] { io::parse_zarr_v2(replaced(z, "\"order\": \"C\"", "\"order\": \"K\""), "", "s"); },
      {"order \"K\""});
  expect_error<Error>([&] { io::parse_zarr_v2(replaced(z, "\"shape\": [10, 7],", ""), "", "s"); },
                      {"\"shape\" is missing"});
  expect_error<Error>([&] { io::parse_zarr_v2(replaced(z, "[10, 7]", "\"10\""), "", "s"); },
                      {"shape must be an array"});
  expect_error<Error>([&] { io::parse_zarr_v2(z, "[]", "s"); }, {".zattrs"});
  const std::string j = zarr_json_text;
  expect_error<Error>(
      [&] { io::parse_zarr_v3(replaced(j, "\"gzip\"", "\"sharding_indexed\""), "zarr.json"); },
      {"zarr.json", "sharding"});
  expect_error<Error>(
      [&] { io::parse_zarr_v3(replaced(j, "\"gzip\"", "\"crc32c\""), "zarr.json"); },
      {"zarr.json", "\"crc32c\""});
  expect_error<ValueError>(
      [&] { io::parse_zarr_v3(replaced(j, "\"float32\"", "\"complex64\""), "zarr.json"); },
      {"zarr.json", "complex64"});
  expect_error<Error>(
      [&] {
        io::parse_zarr_v3(replaced(j, "\"node_type\": \"array\"", "\"node_type\": \"group\""), "z");
      },
      {"\"group\""});
  expect_error<Error>([&] { io::parse_zarr_v3(replaced(j, "[4, 4]", "[4]"), "z"); },
                      {"chunk_shape has 1 extents, shape 2"});
}

} // namespace
