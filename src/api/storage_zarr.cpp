// SPDX-License-Identifier: Apache-2.0
// from_zarr and to_zarr: Zarr stores as lazy leaves and as the destination of a computation.
#include "api/shared_write.hpp"
#include "api/zarr_options.hpp"
#include "io/codec.hpp"
#include "io/zarr_store.hpp"

#include <chunked/detail/engine.hpp>
#include <chunked/storage.hpp>

#include <algorithm>
#include <optional>

namespace chunked::detail {

namespace {

/// The chunk shape of a store of `node`'s grid: its chunks when regular (equal blocks, a shorter
/// last one), else each axis's largest block, to which the node is rechunked.
std::vector<index_t> store_chunks(const ChunkGrid& grid, bool& regular) {
  std::vector<index_t> chunks;
  regular = true;
  for (index_t a = 0; a < grid.ndim(); ++a) {
    const auto& l = grid.lengths(a);
    const index_t first = l.empty() ? 1 : std::max<index_t>(l.front(), 1);
    const index_t largest =
        l.empty() ? 1 : std::max<index_t>(*std::max_element(l.begin(), l.end()), 1);
    for (std::size_t b = 0; b + 1 < l.size(); ++b)
      regular = regular && l[b] == first;
    regular = regular && largest == first;
    chunks.push_back(largest);
  }
  return chunks;
}

} // namespace

graph::NodePtr open_zarr(const std::filesystem::path& path, DType dtype) {
  io::ZarrMeta meta = io::read_zarr_meta(path.string());
  io::check_dtype(meta.type.dtype, dtype, "Zarr store '" + path.string() + "'");
  const Shape shape(meta.shape);
  ChunkGrid grid(shape, meta.chunks);
  auto source = std::make_shared<io::ZarrSource>(path.string(), std::move(meta));
  return graph::make_source(dtype, std::move(grid), std::move(source));
}

void save_zarr(const std::filesystem::path& path, const graph::NodePtr& node,
               const ZarrOptions& zarr, BackendKind backend, const ComputeOptions& options) {
  bool regular = true;
  const std::vector<index_t> chunks = store_chunks(node->grid, regular);
  const io::ZarrMeta meta = zarr_meta_for(zarr, node->dtype, node->shape, chunks, path.string());
  const graph::NodePtr source = regular ? node : rechunk(node, Chunks(chunks));
  std::optional<io::StoreDir> store;
  WriteSteps steps;
  steps.create = [&] {
    store.emplace(path.string(), zarr.overwrite);
    io::write_zarr_meta(*store, meta);
    return store->dir();
  };
  steps.join = [&](const std::string& temp, const std::string& what) {
    store.emplace(path.string(), temp, what);
  };
  steps.write = [&] {
    io::ZarrSink sink(*store, meta);
    write_blocks(source, sink, backend, options);
  };
  steps.commit = [&] { store->commit(); };
  steps.discard = [&] { store.reset(); };
  write_through(steps, options);
}

} // namespace chunked::detail

namespace chunked {

bool zarr_compressor_available(std::string_view name) {
  // Zarr's "zlib" is gzip's deflate stream without the gzip framing: the same library.
  const std::string_view codec = name == "zlib" ? std::string_view("gzip") : name;
  return io::is_known_codec(codec) && io::codec_built(codec);
}

} // namespace chunked
