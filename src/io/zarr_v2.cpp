// SPDX-License-Identifier: Apache-2.0
// Zarr v2 metadata: .zarray and .zattrs.
#include "io/zarr_meta.hpp"

#include <chunked/core/error.hpp>

namespace chunked::io {

namespace {

CodecSpec v2_compressor(const Json& c, const std::string& where) {
  CodecSpec spec;
  if (c.is_null())
    return spec;
  const std::string id = metadata_member(c, "id", where).as_string("compressor.id");
  if (id == "zstd" || id == "gzip" || id == "zlib") {
    spec.name = id == "zstd" ? "zstd" : "gzip"; // the gzip decoder reads zlib framing too
    if (const Json* level = c.find("level"))
      spec.level = static_cast<int>(level->as_int("compressor.level"));
  } else if (id == "blosc") {
    spec.name = "blosc";
    if (const Json* v = c.find("cname"))
      spec.blosc_cname = v->as_string("compressor.cname");
    if (const Json* v = c.find("clevel"))
      spec.level = static_cast<int>(v->as_int("compressor.clevel"));
    // The shuffle used is recorded in each blosc buffer; numcodecs' -1 (automatic) reads as 1.
    if (const Json* v = c.find("shuffle"))
      spec.blosc_shuffle = std::max(0, static_cast<int>(v->as_int("compressor.shuffle")));
  } else {
    bad_metadata(where, "unknown compressor id \"" + id + "\" (chunked reads zstd, gzip, zlib, " +
                            "blosc and null)");
  }
  return spec;
}

} // namespace

ZarrMeta parse_zarr_v2(std::string_view zarray, std::string_view zattrs, const std::string& where) {
  const Json j = parse_metadata_json(zarray, where);
  if (!j.is_object())
    bad_metadata(where, "the document is " + j.type_name() + ", not an object");
  ZarrMeta m;
  try {
    if (metadata_member(j, "zarr_format", where).as_int("zarr_format") != 2)
      bad_metadata(where, "zarr_format is not 2");
    m.shape = metadata_extents(metadata_member(j, "shape", where), "shape", 0, where);
    m.chunks = metadata_extents(metadata_member(j, "chunks", where), "chunks", 1, where);
    if (m.chunks.size() != m.shape.size())
      bad_metadata(where, "chunks has " + std::to_string(m.chunks.size()) + " extents, shape " +
                              std::to_string(m.shape.size()));
    const Json& dtype = metadata_member(j, "dtype", where);
    if (!dtype.is_string())
      bad_metadata(where, "dtype must be a string (structured dtypes are not supported)");
    m.type =
        parse_numpy_type(dtype.as_string("dtype"), where); // ValueError for a dtype chunked lacks
    m.codec = v2_compressor(metadata_member(j, "compressor", where), where);
    const Json& filters = metadata_member(j, "filters", where);
    if (!filters.is_null() && !(filters.is_array() && filters.as_array("filters").empty()))
      bad_metadata(where, "filters " + filters.dump() + " are not supported (only null)");
    const Json& fill = metadata_member(j, "fill_value", where);
    m.fill_null = fill.is_null();
    if (!m.fill_null)
      m.fill = parse_fill_value(fill, m.type.dtype, where);
    const std::string& order = metadata_member(j, "order", where).as_string("order");
    if (order != "C" && order != "F")
      bad_metadata(where, "order \"" + order + "\" is neither \"C\" nor \"F\"");
    m.fortran_order = order == "F";
    if (const Json* sep = j.find("dimension_separator")) {
      const std::string& s = sep->as_string("dimension_separator");
      if (s != "." && s != "/")
        bad_metadata(where, "dimension_separator \"" + s + "\" is neither \".\" nor \"/\"");
      m.separator = s[0];
    }
  } catch (const ValueError& e) {
    if (std::string_view(e.what()).starts_with(where))
      throw;                       // a dtype chunked lacks: raised as it is
    bad_metadata(where, e.what()); // a member of the wrong JSON type
  }
  if (!zattrs.empty()) {
    m.attributes = parse_metadata_json(zattrs, where + " (.zattrs)");
    if (!m.attributes.is_object())
      bad_metadata(where, ".zattrs is not an object");
  }
  return m;
}

namespace {
Json index_list(const std::vector<index_t>& v) {
  Json::Array a;
  for (const index_t e : v)
    a.emplace_back(static_cast<std::int64_t>(e));
  return Json(std::move(a));
}
} // namespace

std::string format_zarray(const ZarrMeta& m) {
  Json compressor;
  if (m.codec.name == "zstd" || m.codec.name == "gzip") {
    compressor = Json(Json::Object{{"id", m.codec.name}, {"level", m.codec.level}});
  } else if (m.codec.name == "blosc") {
    compressor = Json(Json::Object{{"blocksize", m.codec.blosc_blocksize},
                                   {"clevel", m.codec.level},
                                   {"cname", m.codec.blosc_cname},
                                   {"id", "blosc"},
                                   {"shuffle", m.codec.blosc_shuffle}});
  }
  const Json j(
      Json::Object{{"chunks", index_list(m.chunks)},
                   {"compressor", compressor},
                   {"dimension_separator", std::string(1, m.separator)},
                   {"dtype", numpy_type(m.type.dtype)},
                   {"fill_value", m.fill_null ? Json() : fill_value_json(m.fill, m.type.dtype)},
                   {"filters", Json()},
                   {"order", "C"},
                   {"shape", index_list(m.shape)},
                   {"zarr_format", 2}});
  return j.dump(4) + "\n";
}

std::string format_zattrs(const ZarrMeta& m) { return m.attributes.dump(4) + "\n"; }

} // namespace chunked::io
