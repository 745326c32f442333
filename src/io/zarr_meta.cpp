// SPDX-License-Identifier: Apache-2.0
// Finding a store's metadata, and its chunk keys.
#include "io/zarr_meta.hpp"

#include "io/file_io.hpp"

#include <chunked/core/error.hpp>

#include <filesystem>

namespace chunked::io {

void bad_metadata(const std::string& where, const std::string& what) {
  throw Error(where + ": invalid Zarr metadata: " + what);
}

const Json& metadata_member(const Json& obj, const char* key, const std::string& where) {
  const Json* v = obj.find(key);
  if (v == nullptr)
    bad_metadata(where, std::string("the key \"") + key + "\" is missing");
  return *v;
}

std::vector<index_t> metadata_extents(const Json& j, const char* what, index_t min,
                                      const std::string& where) {
  std::vector<index_t> out;
  for (const Json& e : j.as_array(what)) {
    const index_t v = e.as_int(what);
    if (v < min)
      bad_metadata(where, std::string(what) + " holds " + std::to_string(v) + " (at least " +
                              std::to_string(min) + " expected)");
    out.push_back(v);
  }
  return out;
}

Json parse_metadata_json(std::string_view text, const std::string& where) {
  try {
    return Json::parse(text);
  } catch (const ValueError& e) {
    bad_metadata(where, e.what());
  }
}

ZarrMeta read_zarr_meta(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string v3 = (fs::path(path) / "zarr.json").string();
  if (auto text = read_whole_file(v3))
    return parse_zarr_v3(*text, v3);
  const std::string v2 = (fs::path(path) / ".zarray").string();
  if (auto text = read_whole_file(v2)) {
    const auto attrs = read_whole_file((fs::path(path) / ".zattrs").string());
    return parse_zarr_v2(*text, attrs ? std::string_view(*attrs) : std::string_view(), v2);
  }
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error("'" + path + "' does not exist");
  if (fs::exists(fs::path(path) / ".zgroup", ec))
    throw Error("'" + path + "' is a Zarr group, not an array: open one of its arrays");
  throw Error("'" + path + "' is not a Zarr array: it has neither zarr.json nor .zarray");
}

std::string chunk_key(const ZarrMeta& meta, const std::vector<index_t>& index) {
  std::string key = meta.key_prefix_c ? "c" : "";
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (i > 0 || meta.key_prefix_c)
      key += meta.separator;
    key += std::to_string(index[i]);
  }
  return key.empty() ? "0" : key;
}

} // namespace chunked::io
