// SPDX-License-Identifier: Apache-2.0
// The chunk codecs: round trips of each, corrupt and truncated input, and the factory's errors.
#include "io/codec.hpp"
#include "support/errors.hpp"

#include <chunked/config.hpp>
#include <chunked/core/error.hpp>
#include <chunked/storage.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

using namespace chunked;
using chunked::test::expect_error;

std::string sample_bytes() {
  std::vector<double> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<double>(i % 37) * 0.5;
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double)};
}

std::vector<io::CodecSpec> every_built_codec() {
  std::vector<io::CodecSpec> specs;
  for (const char* name : {"none", "zstd", "gzip", "blosc"}) {
    if (!io::codec_built(name))
      continue;
    io::CodecSpec s;
    s.name = name;
    s.typesize = 8;
    specs.push_back(s);
    if (std::string(name) == "blosc")
      for (const int shuffle : {0, 2}) {
        s.blosc_cname = "zstd";
        s.blosc_shuffle = shuffle;
        specs.push_back(s);
      }
  }
  return specs;
}

TEST(IoCodecs, EachCodecRoundTripsAndCompresses) {
  const std::string raw = sample_bytes();
  for (const io::CodecSpec& spec : every_built_codec()) {
    SCOPED_TRACE(spec.name + " " + spec.blosc_cname);
    const auto codec = io::make_codec(spec, "store");
    const std::string stored = codec->encode(raw);
    if (spec.name != "none") {
      EXPECT_LT(stored.size(), raw.size() / 2);
    }
    std::string back(raw.size(), '\0');
    codec->decode(stored, back.data(), back.size(), "chunk/0");
    EXPECT_EQ(back, raw);
    // An empty chunk (a zero-length edge) round-trips too.
    const std::string empty_stored = codec->encode("");
    codec->decode(empty_stored, back.data(), 0, "chunk/0");
  }
}

TEST(IoCodecs, CorruptOrTruncatedDataNamesTheChunk) {
  const std::string raw = sample_bytes();
  for (const io::CodecSpec& spec : every_built_codec()) {
    SCOPED_TRACE(spec.name);
    const auto codec = io::make_codec(spec, "store");
    const std::string stored = codec->encode(raw);
    std::string back(raw.size(), '\0');
    expect_error<Error>(
        [&] {
          codec->decode(stored.substr(0, stored.size() / 2), back.data(), back.size(), "s/0.1");
        },
        {"s/0.1", "corrupt or truncated"});
    expect_error<Error>([&] { codec->decode(stored, back.data(), back.size() - 8, "s/0.1"); },
                        {"s/0.1"});
    if (spec.name == "none")
      continue;
    std::string garbage = stored;
    for (std::size_t i = 0; i < garbage.size(); i += 3)
      garbage[i] = static_cast<char>(garbage[i] ^ 0x5A);
    try {
      codec->decode(garbage, back.data(), back.size(), "s/0.1");
      // Some scrambled streams still decode (blosc without its own checksum): then not to raw.
      EXPECT_NE(back, raw);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("s/0.1"), std::string::npos) << e.what();
    }
  }
}

TEST(IoCodecs, GzipWritesGzipFramingAndReadsZlibToo) {
  if (!io::codec_built("gzip"))
    GTEST_SKIP() << "built without zlib";
  io::CodecSpec spec;
  spec.name = "gzip";
  const auto codec = io::make_codec(spec, "store");
  const std::string stored = codec->encode("hello hello hello");
  ASSERT_GE(stored.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(stored[0]), 0x1f); // the gzip magic
  EXPECT_EQ(static_cast<unsigned char>(stored[1]), 0x8b);
  // zlib.compress(b"abc") in Python: numcodecs' Zlib codec writes this framing.
  const std::string zlib_abc("\x78\x9c\x4b\x4c\x4a\x06\x00\x02\x4d\x01\x27", 11);
  std::string out(3, '\0');
  codec->decode(zlib_abc, out.data(), 3, "c");
  EXPECT_EQ(out, "abc");
}

TEST(IoCodecs, FactoryRejectsUnknownNamesAndSettings) {
  io::CodecSpec spec;
  spec.name = "lzma";
  expect_error<ValueError>([&] { io::make_codec(spec, "'x.zarr'"); },
                           {"x.zarr", "lzma", "none, zstd, gzip, blosc"});
  if (io::codec_built("blosc")) {
    spec.name = "blosc";
    spec.blosc_cname = "snappy2";
    expect_error<ValueError>([&] { io::make_codec(spec, "'x.zarr'"); }, {"snappy2"});
    spec.blosc_cname = "lz4";
    spec.blosc_shuffle = 3;
    expect_error<ValueError>([&] { io::make_codec(spec, "'x.zarr'"); }, {"shuffle 3"});
  }
  EXPECT_TRUE(io::codec_built("none"));
  EXPECT_EQ(io::codec_built("zstd"), CHUNKED_HAVE_ZSTD != 0);
}

} // namespace

TEST(IoCodecs, PublicAvailabilityFollowsTheConfiguredLibraries) {
  EXPECT_TRUE(zarr_compressor_available("none"));
  EXPECT_EQ(zarr_compressor_available("zstd"), CHUNKED_HAVE_ZSTD != 0);
  EXPECT_EQ(zarr_compressor_available("gzip"), CHUNKED_HAVE_ZLIB != 0);
  EXPECT_EQ(zarr_compressor_available("zlib"), CHUNKED_HAVE_ZLIB != 0);
  EXPECT_EQ(zarr_compressor_available("blosc"), CHUNKED_HAVE_BLOSC != 0);
  for (const char* other : {"", "lz4", "ZSTD", "bytes", "gzip "})
    EXPECT_FALSE(zarr_compressor_available(other)) << other;
}
