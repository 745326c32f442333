// SPDX-License-Identifier: Apache-2.0
// The "zstd" codec (libzstd): one zstd frame per chunk, with its content size, as numcodecs' Zstd.
#include <chunked/config.hpp>

#if CHUNKED_HAVE_ZSTD
#include "io/codec.hpp"

#include <chunked/core/error.hpp>

#include <zstd.h>

namespace chunked::io {

namespace {
class ZstdCodec final : public Codec {
public:
  explicit ZstdCodec(int level) : level_(level) {}
  std::size_t max_encoded(std::size_t raw_bytes) const override {
    return ZSTD_compressBound(raw_bytes);
  }
  std::size_t encode_into(std::string_view raw, char* out) const override {
    const std::size_t n =
        ZSTD_compress(out, ZSTD_compressBound(raw.size()), raw.data(), raw.size(), level_);
    if (ZSTD_isError(n) != 0)
      throw Error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
    return n;
  }
  void decode(std::string_view stored, void* out, std::size_t size,
              std::string_view where) const override {
    // Frames without a content size (streamed ones) decode too: the chunk's size is known.
    const std::size_t n = ZSTD_decompress(out, size, stored.data(), stored.size());
    if (ZSTD_isError(n) != 0)
      corrupt_chunk(where, "zstd", ZSTD_getErrorName(n));
    if (n != size)
      corrupt_chunk(where, "zstd",
                    "decompressed to " + std::to_string(n) + " bytes, " + std::to_string(size) +
                        " expected");
  }

private:
  int level_;
};
} // namespace

std::unique_ptr<const Codec> make_zstd_codec(const CodecSpec& spec) {
  return std::make_unique<ZstdCodec>(spec.level);
}

} // namespace chunked::io
#endif
