// SPDX-License-Identifier: Apache-2.0
// Reading and writing the chunks of Zarr directory stores.
#include "io/zarr_store.hpp"

#include "io/atomic_file.hpp"
#include "io/byte_order.hpp"
#include "io/file_io.hpp"
#include "io/layout.hpp"
#include "io/scratch.hpp"

#include <filesystem>
#include <memory>

namespace chunked::io {

namespace {
CodecSpec with_typesize(CodecSpec spec, DType dtype) {
  spec.typesize = dtype_size(dtype);
  return spec;
}
} // namespace

ZarrSource::ZarrSource(std::string path, ZarrMeta meta)
    : path_(std::move(path)), meta_(std::move(meta)),
      codec_(make_codec(with_typesize(meta_.codec, meta_.type.dtype), "'" + path_ + "'")) {}

std::string ZarrSource::describe() const {
  return "Zarr v" + std::to_string(meta_.version) + " store '" + path_ + "'";
}

void ZarrSource::read(const std::vector<index_t>& block, const std::vector<index_t>& /*lo*/,
                      const std::vector<index_t>& extent, void* out) const {
  const std::size_t es = dtype_size(meta_.type.dtype);
  const auto n = static_cast<std::size_t>(element_count(extent));
  if (n == 0)
    return;
  const std::string file = (std::filesystem::path(path_) / chunk_key(meta_, block)).string();
  const FileHandle f = open_if_exists(file);
  if (f.fd() < 0) {
    fill_elements(out, n, meta_.fill.data(), es);
    return;
  }
  const auto chunk_elems = static_cast<std::size_t>(element_count(meta_.chunks));
  const std::size_t chunk_bytes = chunk_elems * es;
  const auto stored_bytes = static_cast<std::size_t>(f.size());
  const bool whole = extent == meta_.chunks && !meta_.fortran_order;
  if (whole && meta_.codec.name == "none" && stored_bytes == chunk_bytes) {
    f.read_at(out, chunk_bytes, 0); // straight into the block: no copy
  } else {
    // Not zeroed: every byte is read or decoded into before it is used.
    const Scratch stored(stored_bytes);
    f.read_at(stored.data(), stored_bytes, 0);
    std::unique_ptr<char[]> tmp;
    if (!whole)
      tmp = std::make_unique_for_overwrite<char[]>(chunk_bytes);
    codec_->decode({stored.data(), stored_bytes}, whole ? out : tmp.get(), chunk_bytes, file);
    if (!whole) {
      if (meta_.fortran_order) {
        auto c_order = std::make_unique_for_overwrite<char[]>(chunk_bytes);
        fortran_to_c(tmp.get(), c_order.get(), meta_.chunks, es);
        tmp.swap(c_order);
      }
      copy_corner(tmp.get(), meta_.chunks, out, extent, extent, es);
    }
  }
  to_native(out, n, es, meta_.type.big_endian);
}

ZarrSink::ZarrSink(const StoreDir& store, ZarrMeta meta)
    : store_(store), meta_(std::move(meta)),
      codec_(make_codec(with_typesize(meta_.codec, meta_.type.dtype), "'" + store.dir() + "'")) {}

void ZarrSink::write(const std::vector<index_t>& block, const std::vector<index_t>& /*lo*/,
                     const std::vector<index_t>& extent, const void* data) {
  const std::size_t es = dtype_size(meta_.type.dtype);
  if (element_count(extent) == 0)
    return;
  const auto chunk_elems = static_cast<std::size_t>(element_count(meta_.chunks));
  // A whole chunk on a little-endian host is stored from the block itself, without a copy.
  std::string raw;
  std::string_view bytes(static_cast<const char*>(data), chunk_elems * es);
  if (extent != meta_.chunks || !host_little_endian) {
    raw.resize(chunk_elems * es);
    fill_elements(raw.data(), chunk_elems, meta_.fill.data(), es);
    copy_corner(data, extent, raw.data(), meta_.chunks, extent, es);
    if (!host_little_endian) // stores are written little-endian
      swap_bytes(raw.data(), chunk_elems, es);
    bytes = raw;
  }
  const std::string file = store_.file_for(chunk_key(meta_, block));
  if (meta_.codec.name == "none") {
    write_file_atomically(file, bytes);
  } else {
    const Scratch stored(codec_->max_encoded(bytes.size()));
    write_file_atomically(file, {stored.data(), codec_->encode_into(bytes, stored.data())});
  }
}

void write_zarr_meta(const StoreDir& store, const ZarrMeta& meta) {
  if (meta.version == 3) {
    write_file_atomically(store.file_for("zarr.json"), format_zarr_json(meta));
    return;
  }
  write_file_atomically(store.file_for(".zarray"), format_zarray(meta));
  write_file_atomically(store.file_for(".zattrs"), format_zattrs(meta));
}

} // namespace chunked::io
