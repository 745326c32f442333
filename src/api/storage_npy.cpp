// SPDX-License-Identifier: Apache-2.0
// load_npy and save_npy: npy files as lazy leaves and as the destination of a computation.
#include "api/shared_write.hpp"
#include "io/npy_file.hpp"

#include <chunked/detail/engine.hpp>
#include <chunked/storage.hpp>

#include <optional>

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
  std::optional<io::NpySink> sink;
  WriteSteps steps;
  steps.create = [&] {
    sink.emplace(path.string(), node->dtype, node->shape);
    return sink->temp();
  };
  steps.join = [&](const std::string& temp, const std::string& what) {
    sink.emplace(path.string(), temp, node->dtype, node->shape, what);
  };
  steps.write = [&] { write_blocks(node, *sink, backend, options); };
  steps.commit = [&] { sink->commit(); };
  steps.discard = [&] { sink.reset(); };
  write_through(steps, options);
}

} // namespace chunked::detail
