// SPDX-License-Identifier: Apache-2.0
// Zarr v3 metadata: zarr.json of an array, with the codecs [bytes, compressor].
#include "io/zarr_meta.hpp"

#include <chunked/core/error.hpp>

namespace chunked::io {

namespace {

constexpr const char* blosc_shuffles[] = {"noshuffle", "shuffle", "bitshuffle"};

/// The configuration object of a codec or encoding, or an empty one.
const Json& configuration(const Json& c) {
  static const Json empty(Json::Object{});
  const Json* conf = c.find("configuration");
  return conf != nullptr ? *conf : empty;
}

void v3_compressor(const std::string& name, const Json& conf, CodecSpec& spec,
                   const std::string& where) {
  spec.name = name;
  if (name == "zstd" || name == "gzip") {
    if (const Json* level = conf.find("level"))
      spec.level = static_cast<int>(level->as_int("zstd/gzip level"));
    return;
  }
  if (const Json* v = conf.find("cname"))
    spec.blosc_cname = v->as_string("blosc cname");
  if (const Json* v = conf.find("clevel"))
    spec.level = static_cast<int>(v->as_int("blosc clevel"));
  if (const Json* v = conf.find("shuffle")) {
    const std::string& s = v->as_string("blosc shuffle");
    spec.blosc_shuffle = -1;
    for (int i = 0; i < 3; ++i)
      if (s == blosc_shuffles[i])
        spec.blosc_shuffle = i;
    if (spec.blosc_shuffle < 0)
      bad_metadata(where, "blosc shuffle \"" + s + "\" is not noshuffle, shuffle or bitshuffle");
  }
}

/// The codecs list: an array-to-bytes "bytes" codec, then at most one compressor.
void v3_codecs(const Json& list, ZarrMeta& m, const std::string& where) {
  bool have_bytes = false;
  for (const Json& c : list.as_array("codecs")) {
    const std::string& name = metadata_member(c, "name", where).as_string("codec name");
    const Json& conf = configuration(c);
    if (name == "bytes" || name == "endian") { // "endian" is the draft spec's name of "bytes"
      if (have_bytes || m.codec.name != "none")
        bad_metadata(where, "the codec \"" + name + "\" must come first, once");
      have_bytes = true;
      if (const Json* e = conf.find("endian")) {
        const std::string& endian = e->as_string("bytes endian");
        if (endian != "little" && endian != "big")
          bad_metadata(where, "bytes endian \"" + endian + "\" is neither little nor big");
        m.type.big_endian = endian == "big";
      }
    } else if (name == "zstd" || name == "gzip" || name == "blosc") {
      if (!have_bytes || m.codec.name != "none")
        bad_metadata(where, "the compressor \"" + name +
                                "\" must follow the bytes codec, and be the only one");
      v3_compressor(name, conf, m.codec, where);
    } else if (name == "sharding_indexed") {
      bad_metadata(where, "the codec \"sharding_indexed\" (sharding) is not supported");
    } else {
      bad_metadata(where,
                   "the codec \"" + name +
                       "\" is not supported (chunked reads bytes, then zstd, gzip or blosc)");
    }
  }
  if (!have_bytes)
    bad_metadata(where, "the codecs lack the \"bytes\" codec");
}

void v3_key_encoding(const Json& enc, ZarrMeta& m, const std::string& where) {
  const std::string& name = metadata_member(enc, "name", where).as_string("chunk_key_encoding");
  if (name != "default" && name != "v2")
    bad_metadata(where, "chunk_key_encoding \"" + name + "\" is neither default nor v2");
  m.key_prefix_c = name == "default";
  m.separator = name == "default" ? '/' : '.';
  if (const Json* sep = configuration(enc).find("separator")) {
    const std::string& s = sep->as_string("chunk_key_encoding separator");
    if (s != "." && s != "/")
      bad_metadata(where, "chunk key separator \"" + s + "\" is neither \".\" nor \"/\"");
    m.separator = s[0];
  }
}

void v3_body(const Json& j, ZarrMeta& m, const std::string& where) {
  if (metadata_member(j, "zarr_format", where).as_int("zarr_format") != 3)
    bad_metadata(where, "zarr_format is not 3");
  const std::string& node = metadata_member(j, "node_type", where).as_string("node_type");
  if (node != "array")
    bad_metadata(where, "node_type is \"" + node + "\", not \"array\" (open one of its arrays)");
  m.shape = metadata_extents(metadata_member(j, "shape", where), "shape", 0, where);
  const Json& grid = metadata_member(j, "chunk_grid", where);
  const std::string& grid_name = metadata_member(grid, "name", where).as_string("chunk_grid");
  if (grid_name != "regular")
    bad_metadata(where, "chunk_grid \"" + grid_name + "\" is not supported (only regular)");
  m.chunks = metadata_extents(metadata_member(configuration(grid), "chunk_shape", where),
                              "chunk_shape", 1, where);
  if (m.chunks.size() != m.shape.size())
    bad_metadata(where, "chunk_shape has " + std::to_string(m.chunks.size()) + " extents, shape " +
                            std::to_string(m.shape.size()));
  v3_key_encoding(metadata_member(j, "chunk_key_encoding", where), m, where);
  v3_codecs(metadata_member(j, "codecs", where), m, where);
  if (const Json* st = j.find("storage_transformers");
      st != nullptr && st->is_array() && !st->as_array("storage_transformers").empty())
    bad_metadata(where, "storage_transformers are not supported");
  if (const Json* attrs = j.find("attributes"))
    m.attributes = *attrs;
  if (const Json* names = j.find("dimension_names"); names != nullptr && !names->is_null())
    for (const Json& n : names->as_array("dimension_names"))
      m.dimension_names.push_back(n.is_null() ? std::string() : n.as_string("dimension name"));
}

} // namespace

ZarrMeta parse_zarr_v3(std::string_view zarr_json, const std::string& where) {
  const Json j = parse_metadata_json(zarr_json, where);
  if (!j.is_object())
    bad_metadata(where, "the document is " + j.type_name() + ", not an object");
  ZarrMeta m;
  m.version = 3;
  try {
    v3_body(j, m, where);
    const Json& dtype = metadata_member(j, "data_type", where);
    if (!dtype.is_string())
      bad_metadata(where, "data_type " + dtype.dump() + " is not supported");
    m.type.dtype = parse_v3_type(dtype.as_string("data_type"), where);
    m.fill = parse_fill_value(metadata_member(j, "fill_value", where), m.type.dtype, where);
  } catch (const ValueError& e) {
    if (std::string_view(e.what()).starts_with(where))
      throw;                       // a dtype chunked lacks: raised as it is
    bad_metadata(where, e.what()); // a member of the wrong JSON type
  }
  if (!m.attributes.is_object())
    bad_metadata(where, "attributes is not an object");
  return m;
}

std::string format_zarr_json(const ZarrMeta& m) {
  Json::Array shape, chunks;
  for (const index_t e : m.shape)
    shape.emplace_back(static_cast<std::int64_t>(e));
  for (const index_t e : m.chunks)
    chunks.emplace_back(static_cast<std::int64_t>(e));
  Json::Array codecs;
  Json bytes(Json::Object{{"name", "bytes"}});
  if (dtype_size(m.type.dtype) > 1)
    bytes.set("configuration", Json(Json::Object{{"endian", "little"}}));
  codecs.push_back(bytes);
  if (m.codec.name == "zstd") {
    codecs.emplace_back(Json::Object{
        {"name", "zstd"},
        {"configuration", Json(Json::Object{{"level", m.codec.level}, {"checksum", false}})}});
  } else if (m.codec.name == "gzip") {
    codecs.emplace_back(Json::Object{
        {"name", "gzip"}, {"configuration", Json(Json::Object{{"level", m.codec.level}})}});
  } else if (m.codec.name == "blosc") {
    codecs.emplace_back(
        Json::Object{{"name", "blosc"},
                     {"configuration",
                      Json(Json::Object{{"cname", m.codec.blosc_cname},
                                        {"clevel", m.codec.level},
                                        {"shuffle", blosc_shuffles[m.codec.blosc_shuffle]},
                                        {"typesize", static_cast<std::int64_t>(m.codec.typesize)},
                                        {"blocksize", m.codec.blosc_blocksize}})}});
  }
  Json j(Json::Object{
      {"zarr_format", 3},
      {"node_type", "array"},
      {"shape", Json(std::move(shape))},
      {"data_type", v3_type(m.type.dtype)},
      {"chunk_grid",
       Json(Json::Object{{"name", "regular"},
                         {"configuration", Json(Json::Object{{"chunk_shape", Json(chunks)}})}})},
      {"chunk_key_encoding",
       Json(Json::Object{
           {"name", m.key_prefix_c ? "default" : "v2"},
           {"configuration", Json(Json::Object{{"separator", std::string(1, m.separator)}})}})},
      {"fill_value", fill_value_json(m.fill, m.type.dtype)},
      {"codecs", Json(std::move(codecs))},
      {"attributes", m.attributes}});
  if (!m.dimension_names.empty()) {
    Json::Array names;
    for (const auto& n : m.dimension_names)
      names.emplace_back(n);
    j.set("dimension_names", Json(std::move(names)));
  }
  return j.dump(2) + "\n";
}

} // namespace chunked::io
