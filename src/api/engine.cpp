// SPDX-License-Identifier: Apache-2.0
// The engine behind compute(), persist() and from_host(): plan, pick a backend, execute.
#include <chunked/backend/cpu/executor.hpp>
#include <chunked/backend/cuda/runtime_api.hpp>
#include <chunked/core/memory_budget.hpp>
#include <chunked/detail/engine.hpp>
#include <chunked/plan/plan.hpp>
#include <chunked/runtime/parallel_for.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

namespace chunked {

bool cuda_available() { return cuda::usable_device_count() > 0; }

namespace detail {

namespace {

/// Blocks that persist() left on a GPU are copied to the host before a CPU run reads them; the
/// copies live as long as the returned vector.
std::vector<std::shared_ptr<Buffer>> host_copies_of_device_inputs(plan::Plan& plan) {
  std::unordered_map<const Buffer*, std::shared_ptr<Buffer>> copies;
  auto fix = [&](plan::InputRef& ref) {
    if (ref.kind != plan::InputRef::Kind::stored ||
        ref.stored->space().kind != MemorySpace::Kind::device)
      return;
    auto& copy = copies[ref.stored];
    if (!copy)
      copy = cuda::download(*ref.stored);
    ref.stored = copy.get();
  };
  for (auto& in : plan.inputs)
    fix(in.ref);
  for (auto& pieces : plan.gathers)
    for (auto& piece : pieces)
      fix(piece.source);
  std::vector<std::shared_ptr<Buffer>> keep;
  keep.reserve(copies.size());
  for (auto& [ptr, copy] : copies)
    keep.push_back(std::move(copy));
  return keep;
}

/// Runs a plan on a resolved backend; allocation failures of the run's own bookkeeping come out as
/// OutOfMemory like those of its buffers.
std::vector<std::shared_ptr<Buffer>> execute(plan::Plan& plan, BackendKind kind,
                                             const ComputeOptions& options) {
  const bool cuda = kind == BackendKind::cuda;
  return reporting_out_of_memory(
      "running " + std::to_string(plan.tasks.size()) + " tasks on the " + (cuda ? "Cuda" : "Cpu") +
          " backend",
      "free memory, or use smaller chunks so that fewer bytes are in flight at once", [&] {
        if (cuda)
          return cuda::execute(plan, options);
        const auto host_copies = host_copies_of_device_inputs(plan);
        return cpu::execute(plan, options);
      });
}

/// How the plan cuts work into tasks on a backend.
plan::TaskSplit task_split_for(BackendKind kind) {
  return kind == BackendKind::cpu ? cpu::task_split : plan::TaskSplit{};
}

} // namespace

BackendKind resolve_backend(BackendKind requested) {
  switch (requested) {
  case BackendKind::cpu:
    return BackendKind::cpu;
  case BackendKind::automatic:
    return cuda_available() ? BackendKind::cuda : BackendKind::cpu;
  case BackendKind::cuda:
    if (!cuda::built())
      throw BackendError("Cuda backend: this build of chunked has no CUDA support (configure with "
                         "CHUNKED_ENABLE_CUDA=ON); use chunked::Auto for CPU fallback");
    if (!cuda_available())
      throw BackendError(
          "Cuda backend: no CUDA device is visible; use chunked::Auto for CPU fallback");
    return BackendKind::cuda;
  }
  return BackendKind::cpu;
}

void compute_into(const std::vector<HostTarget>& targets, BackendKind backend,
                  const ComputeOptions& options) {
  validate(options);
  const BackendKind kind = resolve_backend(backend);
  // Empty arrays have nothing to compute, but they run an empty plan on the backend all the same,
  // so that its options and devices are checked as for any other array.
  std::vector<plan::Request> requests;
  for (const auto& t : targets) {
    if (t.node->shape.size() == 0)
      continue;
    plan::Request r;
    r.node = t.node;
    r.kind = plan::Request::Kind::destination;
    r.destination = plan::Destination{t.data, t.node->dtype, t.node->shape, MemorySpace{}};
    requests.push_back(std::move(r));
  }
  plan::Plan p = plan::make_plan(requests, task_split_for(kind));
  execute(p, kind, options);
}

graph::NodePtr persist(const graph::NodePtr& node, BackendKind backend,
                       const ComputeOptions& options) {
  validate(options);
  const BackendKind kind = resolve_backend(backend);
  plan::Request r;
  r.node = node;
  r.kind = plan::Request::Kind::blocks;
  plan::Plan p = plan::make_plan({r}, task_split_for(kind));
  auto outputs = execute(p, kind, options);
  auto data = std::make_shared<graph::StoredData>();
  data->dtype = node->dtype;
  data->grid = node->grid;
  for (plan::TaskId id : p.result_blocks[0])
    data->blocks.push_back(std::move(outputs[id]));
  return graph::make_stored(std::move(data));
}

graph::NodePtr store_host_data(const void* data, DType dtype, const Shape& shape,
                               const std::vector<index_t>& chunks, BackendKind backend) {
  const bool pinned = backend != BackendKind::cpu && cuda_available();
  auto stored = std::make_shared<graph::StoredData>();
  stored->dtype = dtype;
  stored->grid = ChunkGrid(shape, chunks);
  const auto& grid = stored->grid;
  const std::size_t esize = dtype_size(dtype);
  const auto strides = shape.strides();
  const index_t nd = shape.ndim();
  const auto* src = static_cast<const unsigned char*>(data);
  auto copy_block = [&](std::size_t b) {
    const auto bi = grid.block_index(static_cast<index_t>(b));
    const auto off = grid.block_offset(bi);
    const auto ext = grid.block_shape(bi).extents();
    index_t n = 1;
    for (index_t e : ext)
      n *= e;
    const auto bytes = static_cast<std::size_t>(n) * esize;
    const auto fill = [&](void* block) {
      if (n == 0)
        return;
      auto* dst = static_cast<unsigned char*>(block);
      // Copy row by row (innermost axis contiguous in both layouts).
      const index_t row = nd == 0 ? 1 : ext[nd - 1];
      std::vector<index_t> pos(static_cast<std::size_t>(nd), 0);
      for (index_t r = 0; r < n / row; ++r) {
        index_t src_off = 0;
        for (index_t k = 0; k < nd; ++k)
          src_off += (off[k] + pos[k]) * strides[k];
        std::memcpy(dst + static_cast<std::size_t>(r * row) * esize,
                    src + static_cast<std::size_t>(src_off) * esize,
                    static_cast<std::size_t>(row) * esize);
        for (index_t k = nd - 2; k >= 0; --k) {
          if (++pos[k] < ext[k])
            break;
          pos[k] = 0;
        }
      }
    };
    // The CUDA backend's blocks are written before they are page-locked (the faster order).
    std::shared_ptr<Buffer> buf;
    if (pinned) {
      buf = cuda::make_transfer_buffer(bytes, fill);
    } else {
      buf = make_host_buffer(bytes);
      fill(buf->data());
    }
    stored->blocks[b] = std::move(buf);
  };
  // Blocks are allocated (and page-locked) and copied on several threads once there is enough to
  // copy: one thread moves a few GB/s into fresh pages, well under what the memory allows.
  const auto blocks = static_cast<std::size_t>(grid.numblocks());
  const std::size_t total = static_cast<std::size_t>(shape.size()) * esize;
  stored->blocks.resize(blocks);
  const std::size_t threads =
      std::min(runtime::hardware_threads(), total / (std::size_t{32} << 20) + 1);
  runtime::parallel_for(blocks, threads, copy_block);
  return graph::make_stored(std::move(stored));
}

} // namespace detail
} // namespace chunked
