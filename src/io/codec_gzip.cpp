// SPDX-License-Identifier: Apache-2.0
// The "gzip" codec (zlib): gzip framing, as numcodecs' GZip writes it; reads zlib framing too.
#include <chunked/config.hpp>

#if CHUNKED_HAVE_ZLIB
#include "io/codec.hpp"

#include <chunked/core/error.hpp>

#include <algorithm>
#include <climits>
#include <zlib.h>

namespace chunked::io {

namespace {
// windowBits: 15 is the largest window; +16 writes a gzip header, +32 reads gzip or zlib.
constexpr int gzip_window = 15 + 16;
constexpr int any_window = 15 + 32;

class GzipCodec final : public Codec {
public:
  explicit GzipCodec(int level) : level_(level) {}
  std::size_t max_encoded(std::size_t raw_bytes) const override {
    // zlib's bound for its own 6-byte framing, with room for gzip's 18 bytes.
    return compressBound(static_cast<uLong>(std::min<std::size_t>(raw_bytes, UINT_MAX))) + 18;
  }
  std::size_t encode_into(std::string_view raw, char* out) const override {
    if (raw.size() > UINT_MAX)
      throw Error("gzip: a chunk of " + std::to_string(raw.size()) +
                  " bytes exceeds zlib's 4 GiB limit");
    z_stream z{};
    if (deflateInit2(&z, level_, Z_DEFLATED, gzip_window, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw Error("gzip: deflateInit2 failed");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
    z.avail_in = static_cast<uInt>(raw.size());
    z.next_out = reinterpret_cast<Bytef*>(out);
    z.avail_out = static_cast<uInt>(std::min<std::size_t>(max_encoded(raw.size()), UINT_MAX));
    const int rc = deflate(&z, Z_FINISH);
    const auto n = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
      throw Error("gzip compression failed");
    return n;
  }
  void decode(std::string_view stored, void* out, std::size_t size,
              std::string_view where) const override {
    if (stored.size() > UINT_MAX || size > UINT_MAX)
      corrupt_chunk(where, "gzip", "chunk larger than zlib's 4 GiB limit");
    z_stream z{};
    if (inflateInit2(&z, any_window) != Z_OK)
      throw Error(std::string(where) + ": gzip: inflateInit2 failed");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stored.data()));
    z.avail_in = static_cast<uInt>(stored.size());
    z.next_out = static_cast<Bytef*>(out);
    z.avail_out = static_cast<uInt>(size);
    const int rc = inflate(&z, Z_FINISH);
    const auto n = z.total_out;
    const std::string msg = z.msg != nullptr ? z.msg : "";
    inflateEnd(&z);
    if (rc != Z_STREAM_END)
      corrupt_chunk(where, "gzip",
                    rc == Z_BUF_ERROR && n == size
                        ? "more than " + std::to_string(size) + " bytes (the chunk's size) inside"
                    : rc == Z_BUF_ERROR ? "the stream ends early"
                                        : "zlib error " + std::to_string(rc) + " " + msg);
    if (n != size)
      corrupt_chunk(where, "gzip",
                    "decompressed to " + std::to_string(n) + " bytes, " + std::to_string(size) +
                        " expected");
  }

private:
  int level_;
};
} // namespace

std::unique_ptr<const Codec> make_gzip_codec(const CodecSpec& spec) {
  return std::make_unique<GzipCodec>(spec.level);
}

} // namespace chunked::io
#endif
