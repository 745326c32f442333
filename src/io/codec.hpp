// SPDX-License-Identifier: Apache-2.0
// Chunk compressors: one interface, one file per codec, each optional at configure time.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace chunked::io {

/// A compressor and its settings, as the metadata names them.
struct CodecSpec {
  /// "none", "zstd", "gzip" or "blosc".
  std::string name = "none";
  /// zstd and gzip level; blosc's clevel.
  int level = 3;
  /// Blosc's inner compressor ("lz4", "zstd", ...) and shuffle (0 none, 1 byte, 2 bit).
  std::string blosc_cname = "lz4";
  int blosc_shuffle = 1;
  int blosc_blocksize = 0;
  /// Element size in bytes (blosc shuffles by it).
  std::size_t typesize = 1;
};

/// Compresses and decompresses whole chunks. Thread-safe: one codec serves every task.
class Codec {
public:
  virtual ~Codec() = default;
  /// The most bytes encode_into() stores for `raw_bytes` bytes.
  virtual std::size_t max_encoded(std::size_t raw_bytes) const = 0;
  /// Writes the stored bytes of `raw` to `out`, which has room for max_encoded(raw.size()) bytes;
  /// returns how many it wrote. Into memory the caller keeps (io::Scratch), so that no chunk
  /// pays for zeroing or faulting in fresh memory.
  virtual std::size_t encode_into(std::string_view raw, char* out) const = 0;
  /// The stored bytes of `raw`, as a string.
  std::string encode(std::string_view raw) const;
  /// Decompresses `stored` into exactly `size` bytes at `out`; chunked::Error naming `where` (the
  /// chunk's file) when the data is corrupt, truncated or of another size.
  virtual void decode(std::string_view stored, void* out, std::size_t size,
                      std::string_view where) const = 0;
};

/// The names make_codec knows, for messages: "none, zstd, gzip, blosc".
std::string known_codecs();
/// True when `name` is one of them.
bool is_known_codec(std::string_view name);
/// True when this build has the library that `name` needs ("none" always).
bool codec_built(std::string_view name);

/// The codec of `spec`. ValueError naming `store` for an unknown name or bad settings;
/// chunked::Error naming the codec, `store`, and that its library was not found at configure time
/// when this build lacks it.
std::unique_ptr<const Codec> make_codec(const CodecSpec& spec, std::string_view store);

// Each codec's constructor, in its own file (codec_<name>.cpp), defined only when built.
std::unique_ptr<const Codec> make_none_codec();
std::unique_ptr<const Codec> make_zstd_codec(const CodecSpec& spec);
std::unique_ptr<const Codec> make_gzip_codec(const CodecSpec& spec);
std::unique_ptr<const Codec> make_blosc_codec(const CodecSpec& spec, std::string_view store);

/// chunked::Error "<where>: corrupt or truncated <codec> data: <detail>".
[[noreturn]] void corrupt_chunk(std::string_view where, std::string_view codec,
                                const std::string& detail);

} // namespace chunked::io
