// SPDX-License-Identifier: Apache-2.0
// What a Zarr array's metadata says, in one form for both format versions: read from .zarray and
// .zattrs (v2) or zarr.json (v3), and written back as each version spells it.
#pragma once

#include "io/codec.hpp"
#include "io/dtype_codes.hpp"
#include "io/json.hpp"

#include <chunked/core/types.hpp>

#include <array>
#include <string>
#include <vector>

namespace chunked::io {

struct ZarrMeta {
  int version = 2;
  std::vector<index_t> shape;
  /// The stored chunk shape (edge chunks are stored whole, padded).
  std::vector<index_t> chunks;
  StoredType type;
  /// Chunks stored in Fortran order (v2 "order": "F").
  bool fortran_order = false;
  CodecSpec codec;
  /// One element of fill value in native byte order (of `type.dtype`'s size); zero for null.
  std::array<unsigned char, 8> fill{};
  /// v2's null fill value (missing chunks read as zeros).
  bool fill_null = false;
  /// Chunk key encoding: separator, and whether keys start with "c" (v3's default encoding).
  char separator = '.';
  bool key_prefix_c = false;
  /// The user attributes (an object).
  Json attributes = Json(Json::Object{});
  /// v3 dimension_names (empty: none written).
  std::vector<std::string> dimension_names;
};

/// The metadata of the store at `path`: zarr.json when present, else .zarray (and .zattrs).
/// chunked::Error naming the file when neither exists or what it holds is not valid metadata;
/// ValueError for a dtype chunked does not have.
ZarrMeta read_zarr_meta(const std::string& path);

/// Parses v2 metadata (.zarray text, and .zattrs text or empty); `where` names the file.
ZarrMeta parse_zarr_v2(std::string_view zarray, std::string_view zattrs, const std::string& where);
/// Parses v3 metadata (zarr.json text).
ZarrMeta parse_zarr_v3(std::string_view zarr_json, const std::string& where);

/// The .zarray text of v2 metadata, as Zarr-Python writes it (sorted keys, 4-space indent).
std::string format_zarray(const ZarrMeta& meta);
/// The .zattrs text.
std::string format_zattrs(const ZarrMeta& meta);
/// The zarr.json text of v3 metadata.
std::string format_zarr_json(const ZarrMeta& meta);

/// The fill value of `json` for `dtype` (numbers, booleans, "NaN", "Infinity", "-Infinity",
/// v3's "0x..." bit patterns), in native bytes; chunked::Error naming `where` otherwise.
std::array<unsigned char, 8> parse_fill_value(const Json& json, DType dtype,
                                              const std::string& where);
/// The JSON of a fill value (non-finite floats as the strings Zarr writes).
Json fill_value_json(const std::array<unsigned char, 8>& fill, DType dtype);
/// The native bytes of `value` converted to `dtype`.
std::array<unsigned char, 8> fill_bytes(double value, DType dtype);

/// The key of chunk `index` (its position in the chunk grid): "0.1", "0/1", "c/0/1", "c.0.1";
/// "0" or "c" for a zero-dimensional array.
std::string chunk_key(const ZarrMeta& meta, const std::vector<index_t>& index);

/// The JSON of a metadata file; chunked::Error naming `where` when it is not JSON.
Json parse_metadata_json(std::string_view text, const std::string& where);
/// The member `key` of a metadata object; chunked::Error naming it when it is missing.
const Json& metadata_member(const Json& obj, const char* key, const std::string& where);
/// An array of extents, each at least `min`.
std::vector<index_t> metadata_extents(const Json& j, const char* what, index_t min,
                                      const std::string& where);

/// chunked::Error "<where>: invalid Zarr metadata: <what>".
[[noreturn]] void bad_metadata(const std::string& where, const std::string& what);

} // namespace chunked::io
