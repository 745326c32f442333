// SPDX-License-Identifier: Apache-2.0
// Checking ZarrOptions at the to_zarr call.
#include "api/zarr_options.hpp"

#include <chunked/core/error.hpp>

namespace chunked::detail {

namespace {

void check_level(const ZarrOptions& z, const std::string& path) {
  int lo = 0, hi = 9;
  if (z.compressor == "zstd") {
    lo = -131072; // ZSTD_minCLevel()
    hi = 22;
  } else if (z.compressor == "gzip") {
    lo = -1; // zlib's default level
  }
  if (z.compressor != "none" && (z.level < lo || z.level > hi))
    throw ValueError("to_zarr '" + path + "': level " + std::to_string(z.level) + " is out of " +
                     z.compressor + "'s range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "]");
}

io::Json parse_attributes(const std::string& text, const std::string& path) {
  io::Json attrs;
  try {
    attrs = io::Json::parse(text.empty() ? "{}" : text);
  } catch (const ValueError& e) {
    throw ValueError("to_zarr '" + path + "': ZarrOptions::attributes is not JSON: " + e.what());
  }
  if (!attrs.is_object())
    throw ValueError("to_zarr '" + path + "': ZarrOptions::attributes must be a JSON object, not " +
                     attrs.type_name());
  return attrs;
}

} // namespace

io::ZarrMeta zarr_meta_for(const ZarrOptions& zarr, DType dtype, const Shape& shape,
                           const std::vector<index_t>& chunks, const std::string& path) {
  if (zarr.version != 2 && zarr.version != 3)
    throw ValueError("to_zarr '" + path + "': Zarr version " + std::to_string(zarr.version) +
                     " is not 2 or 3");
  if (!io::is_known_codec(zarr.compressor))
    throw ValueError("to_zarr '" + path + "': unknown compressor \"" + zarr.compressor +
                     "\" (expected one of " + io::known_codecs() + ")");
  check_level(zarr, path);
  const std::string& sep = zarr.dimension_separator;
  if (!sep.empty() && sep != "." && sep != "/")
    throw ValueError("to_zarr '" + path + "': dimension_separator \"" + sep +
                     "\" is not \".\" or \"/\"");
  if (!zarr.dimension_names.empty() &&
      static_cast<index_t>(zarr.dimension_names.size()) != shape.ndim())
    throw ValueError("to_zarr '" + path + "': " + std::to_string(zarr.dimension_names.size()) +
                     " dimension names given for an array of " + std::to_string(shape.ndim()) +
                     " axes");
  io::ZarrMeta m;
  m.version = zarr.version;
  m.shape = shape.extents();
  m.chunks = chunks;
  m.type.dtype = dtype;
  m.codec.name = zarr.compressor;
  m.codec.level = zarr.level;
  m.codec.blosc_cname = zarr.blosc_cname;
  m.codec.blosc_shuffle = zarr.blosc_shuffle;
  m.codec.typesize = dtype_size(dtype);
  m.fill = io::fill_bytes(zarr.fill_value, dtype);
  m.key_prefix_c = zarr.version == 3;
  m.separator = !sep.empty() ? sep[0] : zarr.version == 3 ? '/' : '.';
  m.attributes = parse_attributes(zarr.attributes, path);
  m.dimension_names = zarr.dimension_names;
  // Unknown blosc settings and codecs this build lacks raise here, before anything is written.
  io::make_codec(m.codec, "to_zarr '" + path + "'");
  return m;
}

} // namespace chunked::detail
