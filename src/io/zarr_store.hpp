// SPDX-License-Identifier: Apache-2.0
// Zarr directory stores (v2 and v3) as block sources (from_zarr: one block is one stored chunk)
// and sinks (to_zarr: each block written as one chunk file, atomically).
#pragma once

#include "io/codec.hpp"
#include "io/store_dir.hpp"
#include "io/zarr_meta.hpp"

#include <chunked/graph/block_io.hpp>

#include <memory>
#include <string>

namespace chunked::io {

/// The chunks of a Zarr array, read and decompressed one per block; a missing chunk reads as
/// the fill value.
class ZarrSource final : public graph::BlockSource {
public:
  /// chunked::Error naming the store when its codec is not built.
  ZarrSource(std::string path, ZarrMeta meta);

  const ZarrMeta& meta() const { return meta_; }
  std::string describe() const override;
  void read(const std::vector<index_t>& block, const std::vector<index_t>& lo,
            const std::vector<index_t>& extent, void* out) const override;

private:
  std::string path_;
  ZarrMeta meta_;
  std::unique_ptr<const Codec> codec_;
};

/// Writes each block as the chunk of the same index: edge chunks padded to the full chunk shape
/// with the fill value, as Zarr stores them; each chunk file appears whole or not at all.
class ZarrSink final : public graph::BlockSink {
public:
  ZarrSink(const StoreDir& store, ZarrMeta meta);
  void write(const std::vector<index_t>& block, const std::vector<index_t>& lo,
             const std::vector<index_t>& extent, const void* data) override;

private:
  const StoreDir& store_;
  ZarrMeta meta_;
  std::unique_ptr<const Codec> codec_;
};

/// Writes the metadata files of `meta` into the store (v2: .zarray and .zattrs; v3: zarr.json).
void write_zarr_meta(const StoreDir& store, const ZarrMeta& meta);

} // namespace chunked::io
