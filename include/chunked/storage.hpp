// SPDX-License-Identifier: Apache-2.0
// Arrays stored in files: NumPy .npy files and Zarr (v2 and v3) directory stores, read lazily
// block by block and written block by block in parallel.
#pragma once

#include <chunked/array.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace chunked {

/// How to_zarr writes a store. Defaults: Zarr v2, zstd level 3, fill value 0.
struct ZarrOptions {
  /// Zarr format version, 2 or 3 (else a ValueError at the call).
  int version = 2;
  /// "none", "zstd", "gzip" or "blosc" (else a ValueError at the call). Written with numcodecs'
  /// ids in v2 (`null` for "none") and as the v3 codecs [bytes, compressor].
  std::string compressor = "zstd";
  /// Compression level: zstd's (up to 22), gzip's (0 to 9), blosc's clevel (0 to 9).
  int level = 3;
  /// The store's fill_value, converted to the element type: the value of chunks never written
  /// (and of the padding of edge chunks).
  double fill_value = 0;
  /// "." or "/" between chunk indices in chunk keys; "" for the version's default ("." for v2,
  /// "/" for v3's c/i/j keys).
  std::string dimension_separator{};
  /// Blosc's inner compressor ("lz4", "zstd", ...) and shuffle (0 none, 1 byte, 2 bit).
  std::string blosc_cname = "lz4";
  int blosc_shuffle = 1;
  /// Replace a store already at the path (else it is a ValueError). The old store stays whole
  /// until the new one is complete.
  bool overwrite = false;
  /// User attributes, a JSON object's text: written to .zattrs (v2) or "attributes" (v3).
  std::string attributes = "{}";
  /// v3 dimension_names, one per axis, or none.
  std::vector<std::string> dimension_names{};
};

/// Whether this build reads and writes Zarr chunks with the compressor `name` ("none", "zstd",
/// "gzip", "zlib" or "blosc"; false for any other name). Each library is optional when chunked
/// is configured; a store that needs a missing one is a chunked::Error naming it.
bool zarr_compressor_available(std::string_view name);

namespace detail {
/// The lazy leaf of an npy file: its header read now (chunked::Error naming the path when it is
/// missing, not npy, or truncated; ValueError when its dtype is not `dtype`).
graph::NodePtr open_npy(const std::filesystem::path& path, DType dtype, const Chunks& chunks);
/// Computes `node` into a new npy file at `path`.
void save_npy(const std::filesystem::path& path, const graph::NodePtr& node, BackendKind backend,
              const ComputeOptions& options);
/// The lazy leaf of a Zarr array store, with the store's chunks.
graph::NodePtr open_zarr(const std::filesystem::path& path, DType dtype);
/// Computes `node` into a new Zarr store at `path`.
void save_zarr(const std::filesystem::path& path, const graph::NodePtr& node,
               const ZarrOptions& zarr, BackendKind backend, const ComputeOptions& options);
} // namespace detail

/// An array over a NumPy .npy file, read lazily: a computation reads each block it needs from the
/// file, and only that block's region (one positioned read per run of consecutive elements).
/// Reads format versions 1.0, 2.0 and 3.0, C and Fortran order, either byte order.
///
/// The header is read now: a missing, unreadable, non-npy or truncated file is a chunked::Error
/// naming the path; a dtype other than T's a ValueError naming both dtypes. The file must stay
/// unchanged while arrays reading it may be computed.
/// @code
/// auto a = chunked::load_npy<double>("x.npy", chunked::Chunks{1000, 1000});
/// @endcode
template <class T, class B = Cpu>
ChunkedArray<T, B> load_npy(const std::filesystem::path& path, const Chunks& chunks) {
  return ChunkedArray<T, B>(detail::open_npy(path, dtype_v<T>, chunks));
}

/// Computes `array` into the npy file `path` (version 1.0, or 2.0 when the header needs it; C
/// order, little-endian), writing each block at its offsets as it is computed, in parallel:
/// memory holds blocks in flight, never the whole array. The file is written beside `path` and
/// renamed over it when complete: on failure (an error in the computation, a full disk) the
/// partial file is removed and a file already at `path` is left as it was. Errors of the
/// computation surface as from compute(); an unwritable path is a chunked::Error naming it.
///
/// Over `ComputeOptions::cluster` every rank calls it with the same path, on a file system all
/// ranks share: rank 0 creates the temporary file, each rank writes the blocks it computes, and
/// rank 0 renames the file into place once every rank has written; a failure on any rank makes
/// every rank raise and leaves `path` as it was.
template <class T, class B>
void save_npy(const std::filesystem::path& path, const ChunkedArray<T, B>& array,
              const ComputeOptions& opts = {}) {
  detail::save_npy(path, array.node(), backend_traits<B>::kind, opts);
}

/// An array over a Zarr v2 or v3 directory store, read lazily with the store's chunks: each
/// block is one stored chunk, read and decompressed by the task that needs it (a slice reads
/// only the chunks it touches); a chunk that is not stored reads as the store's fill_value.
/// Compressors none, zstd, gzip (and zlib), blosc; dtypes as Zarr writes them (either byte
/// order in v2); order "C" or "F" (v2); separators "." and "/".
///
/// The metadata is read now: a missing path, metadata that is not JSON or names an unknown codec,
/// filter or dtype, sharding (v3), or a codec this build lacks is a chunked::Error naming the
/// path; a dtype other than T's a ValueError naming both. A truncated or corrupt chunk is a
/// chunked::Error naming the chunk's file, raised by the computation that reads it.
template <class T, class B = Cpu> ChunkedArray<T, B> from_zarr(const std::filesystem::path& path) {
  return ChunkedArray<T, B>(detail::open_zarr(path, dtype_v<T>));
}
/// The same, rechunked to `chunks` (each block then reads the stored chunks it overlaps).
template <class T, class B = Cpu>
ChunkedArray<T, B> from_zarr(const std::filesystem::path& path, const Chunks& chunks) {
  return from_zarr<T, B>(path).rechunk(chunks);
}

/// Computes `array` into a new Zarr store at `path`, each block one chunk (an array whose chunks
/// are not regular is rechunked to its largest chunk per axis first). Metadata first, then each
/// chunk by one task, in parallel, each chunk file written aside and renamed into place; the
/// store is built beside `path` and moved there when complete, so that a failed write leaves
/// nothing, or the old store with `overwrite`, at `path`. Edge chunks are stored whole, padded
/// with the fill value, as Zarr stores them.
///
/// Over `ComputeOptions::cluster` every rank calls it with the same path, on a file system all
/// ranks share: rank 0 creates the store's directory and writes the metadata, each rank writes
/// the chunks of the blocks it computes, and rank 0 moves the store into place once every rank
/// has written; a failure on any rank makes every rank raise and leaves `path` as it was.
///
/// ValueError at the call for an unknown version or compressor, a bad level, separator, blosc
/// setting, attributes that are not a JSON object, dimension names not one per axis, or an
/// existing path without `overwrite`; chunked::Error naming the codec when this build lacks its
/// library, or naming the path when it cannot be written.
/// @code
/// chunked::to_zarr("out.zarr", y, {.version = 2, .compressor = "zstd", .level = 3});
/// @endcode
template <class T, class B>
void to_zarr(const std::filesystem::path& path, const ChunkedArray<T, B>& array,
             const ZarrOptions& zarr = {}, const ComputeOptions& opts = {}) {
  detail::save_zarr(path, array.node(), zarr, backend_traits<B>::kind, opts);
}

} // namespace chunked
