// SPDX-License-Identifier: Apache-2.0
// load_npy and save_npy: npy files as lazy leaves and as the destination of a computation.
#include "api/single_writer.hpp"
#include "io/npy_file.hpp"

#include <chunked/detail/engine.hpp>
#include <chunked/storage.hpp>

namespace chunked::detail {

graph::NodePtr open_npy(const std::filesystem::path& path, DType dtype, const Chunks& chunks) {
  auto source = std::make_shared<io::NpySource>(path.string());
  const io::NpyHeader& h = source->header();
  io::check_dtype(h.type.dtype, dtype, "npy file '" + path.string() + "'");
  ChunkGrid grid(h.shape, chunks.resolve(h.shape, dtype_size(dtype)));
  return graph::make_source(dtype, std::move(grid), std::move(source));
}

void save_npy(const std::filesystem::path& path, const graph::NodePtr& node, BackendKind backend,
              const ComputeOptions& options) {
  check_single_writer(options, "save_npy", path);
  io::NpySink sink(path.string(), node->dtype, node->shape);
  write_blocks(node, sink, backend, options);
  sink.commit();
}

} // namespace chunked::detail
