// SPDX-License-Identifier: Apache-2.0
// The codec factory: names, settings checks, and the codecs this build lacks.
#include "io/codec.hpp"

#include <chunked/config.hpp>
#include <chunked/core/error.hpp>

namespace chunked::io {

namespace {
constexpr std::string_view codec_names[] = {"none", "zstd", "gzip", "blosc"};

/// The library each codec needs, for the message when it is missing.
std::string_view library_of(std::string_view name) {
  if (name == "zstd")
    return "libzstd";
  if (name == "gzip")
    return "zlib";
  return "c-blosc";
}
} // namespace

std::string Codec::encode(std::string_view raw) const {
  std::string out(max_encoded(raw.size()), '\0');
  out.resize(encode_into(raw, out.data()));
  return out;
}

std::string known_codecs() { return "none, zstd, gzip, blosc"; }

bool is_known_codec(std::string_view name) {
  for (const auto n : codec_names)
    if (n == name)
      return true;
  return false;
}

bool codec_built(std::string_view name) {
  if (name == "zstd")
    return CHUNKED_HAVE_ZSTD != 0;
  if (name == "gzip")
    return CHUNKED_HAVE_ZLIB != 0;
  if (name == "blosc")
    return CHUNKED_HAVE_BLOSC != 0;
  return name == "none";
}

void corrupt_chunk(std::string_view where, std::string_view codec, const std::string& detail) {
  throw Error(std::string(where) + ": corrupt or truncated " + std::string(codec) +
              " data: " + detail);
}

std::unique_ptr<const Codec> make_codec(const CodecSpec& spec, std::string_view store) {
  if (!is_known_codec(spec.name))
    throw ValueError(std::string(store) + ": unknown compressor \"" + spec.name +
                     "\" (chunked knows " + known_codecs() + ")");
  if (!codec_built(spec.name))
    throw Error(std::string(store) + " needs the " + spec.name + " codec, but this build of " +
                "chunked has none: " + std::string(library_of(spec.name)) +
                " was not found at configure time");
  if (spec.name == "none")
    return make_none_codec();
#if CHUNKED_HAVE_ZSTD
  if (spec.name == "zstd")
    return make_zstd_codec(spec);
#endif
#if CHUNKED_HAVE_ZLIB
  if (spec.name == "gzip")
    return make_gzip_codec(spec);
#endif
#if CHUNKED_HAVE_BLOSC
  if (spec.name == "blosc")
    return make_blosc_codec(spec, store);
#endif
  throw Error(std::string(store) + ": codec " + spec.name + " is not built");
}

} // namespace chunked::io
