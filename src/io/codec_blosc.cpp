// SPDX-License-Identifier: Apache-2.0
// The "blosc" codec (c-blosc 1.x, through its context functions, which are thread-safe).
#include <chunked/config.hpp>

#if CHUNKED_HAVE_BLOSC
#include "io/codec.hpp"

#include <chunked/core/error.hpp>

#include <blosc.h>

namespace chunked::io {

namespace {
class BloscCodec final : public Codec {
public:
  explicit BloscCodec(CodecSpec spec) : spec_(std::move(spec)) {}
  std::size_t max_encoded(std::size_t raw_bytes) const override {
    return raw_bytes + BLOSC_MAX_OVERHEAD;
  }
  std::size_t encode_into(std::string_view raw, char* out) const override {
    if (raw.size() > static_cast<std::size_t>(BLOSC_MAX_BUFFERSIZE))
      throw Error("blosc: a chunk of " + std::to_string(raw.size()) +
                  " bytes exceeds blosc's 2 GiB limit");
    const int n =
        blosc_compress_ctx(spec_.level, spec_.blosc_shuffle, spec_.typesize, raw.size(), raw.data(),
                           out, max_encoded(raw.size()), spec_.blosc_cname.c_str(),
                           static_cast<std::size_t>(spec_.blosc_blocksize), 1);
    if (n <= 0)
      throw Error("blosc compression failed (code " + std::to_string(n) + ")");
    return static_cast<std::size_t>(n);
  }
  void decode(std::string_view stored, void* out, std::size_t size,
              std::string_view where) const override {
    std::size_t nbytes = 0;
    if (stored.size() < BLOSC_MIN_HEADER_LENGTH ||
        blosc_cbuffer_validate(stored.data(), stored.size(), &nbytes) != 0)
      corrupt_chunk(where, "blosc",
                    "not a valid blosc buffer of " + std::to_string(stored.size()) + " bytes");
    if (nbytes != size)
      corrupt_chunk(where, "blosc",
                    "holds " + std::to_string(nbytes) + " bytes, " + std::to_string(size) +
                        " expected");
    const int n = blosc_decompress_ctx(stored.data(), out, size, 1);
    if (n < 0 || static_cast<std::size_t>(n) != size)
      corrupt_chunk(where, "blosc", "decompression failed (code " + std::to_string(n) + ")");
  }

private:
  CodecSpec spec_;
};
} // namespace

std::unique_ptr<const Codec> make_blosc_codec(const CodecSpec& spec, std::string_view store) {
  if (blosc_compname_to_compcode(spec.blosc_cname.c_str()) < 0)
    throw ValueError(std::string(store) + ": blosc compressor \"" + spec.blosc_cname +
                     "\" is not in this c-blosc (lz4, lz4hc, blosclz, zstd, zlib are its names)");
  if (spec.blosc_shuffle < 0 || spec.blosc_shuffle > 2)
    throw ValueError(std::string(store) + ": blosc shuffle " + std::to_string(spec.blosc_shuffle) +
                     " is not 0 (none), 1 (byte) or 2 (bit)");
  return std::make_unique<BloscCodec>(spec);
}

} // namespace chunked::io
#endif
