// SPDX-License-Identifier: Apache-2.0
// The engine behind compute(), persist(), write_blocks() and from_host(): resolve the backend once,
// plan with its task split, execute.
#include "api/exact_sums.hpp"
#include "core/checked.hpp"
#include "core/memory_budget.hpp"
#include "plan/plan.hpp"
#include "runtime/backend.hpp"
#include "runtime/compute_options_checks.hpp"
#include "runtime/diagnostics.hpp"
#include "runtime/distributed/computation.hpp"
#include "runtime/distributed/remote_block.hpp"
#include "runtime/log_message.hpp"
#include "runtime/parallel_for.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/spill.hpp"
#include <chunked/array.hpp>
#include <chunked/detail/engine.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace chunked {

bool cuda_available() { return runtime::cuda_backend().usable_devices() > 0; }

void wait_for_kernels() { runtime::cuda_backend().wait_for_kernels(); }

namespace detail {

namespace {

/// The backend one computation runs on, resolved once, with the devices it counted then.
struct Resolved {
  const runtime::Backend& backend;
  int devices;
};

/// Says where an Auto computation runs and why: at info level the first time in a process, at
/// debug level every time.
void log_auto_choice(const std::string& where) {
  static std::atomic<bool> said{false};
  if (!runtime::logging(LogLevel::debug) && (said.load() || !runtime::logging(LogLevel::info)))
    return;
  const LogLevel level = said.exchange(true) ? LogLevel::debug : LogLevel::info;
  runtime::log(level, "Auto runs on the " + where);
}

/// The backend that `requested` names (Auto: CUDA when a device is visible, else the CPU);
/// BackendError when it is unusable.

Resolved resolve(BackendKind requested) {
  const runtime::Backend& cpu = runtime::cpu_backend();
  const runtime::Backend& cuda = runtime::cuda_backend();
  switch (requested) {
  case BackendKind::cpu:
    break;
  case BackendKind::automatic:
    if (const int devices = cuda.usable_devices(); devices > 0) {
      log_auto_choice(std::string(cuda.name()) + " backend, " + std::to_string(devices) +
                      " device(s)");
      return {cuda, devices};
    }
    log_auto_choice(
        std::string(cpu.name()) + " backend: " +
        (cuda.built() ? "no CUDA device is visible" : "this build of chunked has no CUDA support"));
    break;
  case BackendKind::cuda: {
    if (!cuda.built())
      throw BackendError("Cuda backend: this build of chunked has no CUDA support (configure with "
                         "CHUNKED_ENABLE_CUDA=ON); use chunked::Auto for CPU fallback");
    const int devices = cuda.usable_devices();
    if (devices == 0)
      throw BackendError(
          "Cuda backend: no CUDA device is visible; use chunked::Auto for CPU fallback");
    return {cuda, devices};
  }
  }
  return {cpu, cpu.usable_devices()};
}

/// The checks of every computation before it plans (check_compute): its options, then its
/// backend, resolved, then what depends on where it runs (a stream is refused on the CPU).
Resolved checked(BackendKind requested, const ComputeOptions& options) {
  validate(options);
  const Resolved on = resolve(requested);
  if (&on.backend == &runtime::cpu_backend())
    runtime::validate_for_cpu(options, requested == BackendKind::cpu
                                           ? "the Cpu backend"
                                           : "the Auto backend, which found no usable CUDA device");
  return on;
}

/// Runs a plan on its resolved backend, in the computation's diagnostics; allocation failures of
/// the run's own bookkeeping come out as OutOfMemory like those of its buffers.
std::vector<std::shared_ptr<Buffer>> execute(plan::Plan& plan, const Resolved& on,
                                             const ComputeOptions& options,
                                             runtime::Diagnostics& diagnostics,
                                             runtime::ClusterComputation& cluster) {
  // A copy of the options only over a cluster: tiny computations should not pay for one.
  std::optional<ComputeOptions> for_rank;
  if (cluster.active())
    for_rank = cluster.backend_options(options, on.backend, on.devices);
  const ComputeOptions& local = for_rank ? *for_rank : options;
  return diagnostics.run(plan, [&] {
    return cluster.run(plan, on.backend, [&] {
      return reporting_out_of_memory(
          "running " + std::to_string(plan.tasks.size()) + " tasks on the " + on.backend.name() +
              " backend",
          "free memory, or use smaller chunks so that fewer bytes are in flight at once",
          [&] { return on.backend.execute(plan, local, on.devices); });
    });
  });
}

/// The plan of `requests` on `on`, agreed with the other ranks of a cluster; with
/// options.exact_sums, of the requests' graphs rewritten for it (api/exact_sums.hpp).
plan::Plan make_plan(std::vector<plan::Request> requests, const Resolved& on,
                     const ComputeOptions& options, runtime::Diagnostics& diagnostics,
                     runtime::ClusterComputation& cluster) {
  return diagnostics.plan([&] {
    return cluster.agree(
        [&] {
          plan::TaskSplit split = on.backend.task_split();
          if (options.exact_sums) {
            apply_exact_sums(requests);
            // A backend that cuts blocks into tasks, outside a cluster (whose ranks agree on
            // one plan): exact sums may follow the thread count (plan::TaskSplit::workers).
            if (split.min_tasks > 1 && !cluster.active())
              split.workers = options.scheduler == Scheduler::single_threaded
                                  ? 1
                                  : runtime::default_num_threads(options);
          }
          return plan::make_plan(requests, split);
        },
        on.backend);
  });
}

/// Makes persisted blocks spillable when a limit applies: on the CPU every block (host memory
/// bounded by host_memory_limit), on a GPU the blocks beyond device_memory_limit (in block order),
/// moved to page-locked host memory first.
void spillable_blocks(std::vector<std::shared_ptr<Buffer>>& blocks, const runtime::Backend& backend,
                      const ComputeOptions& options, std::size_t& on_device) {
  const bool device = &backend != &runtime::cpu_backend();
  // Half the device's limit for persisted blocks: the computations reading them need the rest.
  const std::size_t device_limit = device ? options.device_memory_limit / 2 : 0;
  if (options.host_memory_limit == 0 && device_limit == 0)
    return;
  const std::string directory = runtime::spill_directory(options.spill_directory);
  runtime::SpillManager::instance().set_limit(options.host_memory_limit);
  const runtime::HostAllocator allocate = [&backend](std::size_t bytes) {
    return backend.host_buffer(bytes, {});
  };
  for (auto& block : blocks) {
    if (dynamic_cast<const runtime::RemoteBlock*>(block.get()))
      continue; // another rank's
    if (block->space().kind == MemorySpace::Kind::device) {
      if (on_device + block->bytes() <= device_limit) {
        on_device += block->bytes();
        continue;
      }
      const auto host = backend.to_host(*block);
      block = backend.host_buffer(block->bytes(),
                                  [&](void* p) { std::memcpy(p, host->data(), host->bytes()); });
    }
    block = std::make_shared<runtime::SpillableBuffer>(std::move(block), directory, allocate);
  }
}

/// Ranges of blocks along axis 0 that persist() computes one after the other, so that a result
/// larger than the memory its blocks may stay in is never held there at once: one range, but
/// where the result exceeds a quarter of the limit that applies (device_memory_limit on a GPU,
/// host_memory_limit on the CPU), ranges of about that many bytes, each made spillable (and moved
/// off the device) before the next is computed. Work the ranges share (a reduction that every
/// block reads) is computed again for each.
std::vector<std::pair<std::size_t, std::size_t>>
persist_groups(const graph::Node& node, const Resolved& on, const ComputeOptions& options) {
  const std::size_t rows = node.grid.ndim() == 0 ? 1 : node.grid.lengths(0).size();
  const std::size_t total = static_cast<std::size_t>(node.shape.size()) * dtype_size(node.dtype);
  const bool cpu = &on.backend == &runtime::cpu_backend();
  const std::size_t group = (cpu ? options.host_memory_limit : options.device_memory_limit) / 4;
  if (group == 0 || total <= group || rows <= 1)
    return {{0, rows}};
  const std::size_t per_row = std::max<std::size_t>(total / rows, 1);
  const std::size_t step = std::max<std::size_t>(group / per_row, 1);
  std::vector<std::pair<std::size_t, std::size_t>> groups;
  for (std::size_t lo = 0; lo < rows; lo += step)
    groups.emplace_back(lo, std::min(rows, lo + step));
  return groups;
}

/// The blocks of rows [lo, hi) of blocks (along axis 0) of `node`, computed on `on`, in the
/// order of the node's blocks.
std::vector<std::shared_ptr<Buffer>> persist_rows(const graph::NodePtr& node, std::size_t lo,
                                                  std::size_t hi, const Resolved& on,
                                                  const ComputeOptions& options,
                                                  runtime::Diagnostics& diagnostics,
                                                  std::vector<int>& owners) {
  graph::NodePtr part = node;
  const std::size_t rows = node->grid.ndim() == 0 ? 1 : node->grid.lengths(0).size();
  if (lo != 0 || hi != rows) {
    const auto& offsets = node->grid.offsets(0);
    part = index_view(node, {IndexArg(Slice(offsets[lo], offsets[hi]))});
    // Rows of blocks are C-order runs of the node's blocks as long as the cut keeps its blocks.
    if (part->grid.numblocks() * static_cast<index_t>(rows) !=
        node->grid.numblocks() * static_cast<index_t>(hi - lo))
      throw Error("persist(): rows " + std::to_string(lo) + " to " + std::to_string(hi) +
                  " of the blocks of " + node->grid.to_string() + " were cut into " +
                  part->grid.to_string() + "; expected the same blocks");
  }
  plan::Request r;
  r.node = part;
  r.kind = plan::Request::Kind::blocks;
  runtime::ClusterComputation cluster(options);
  plan::Plan p = make_plan({r}, on, options, diagnostics, cluster);
  auto outputs = execute(p, on, options, diagnostics, cluster);
  std::vector<std::shared_ptr<Buffer>> blocks;
  for (plan::TaskId id : p.result_blocks[0])
    blocks.push_back(std::move(outputs[id]));
  if (cluster.active()) {
    // Over a cluster each rank keeps the blocks it computed.
    const auto owned =
        runtime::keep_owned_blocks(p, cluster.owners(), cluster.rank(), p.result_blocks[0], blocks);
    owners.insert(owners.end(), owned.begin(), owned.end());
  }
  return blocks;
}

/// A persisted stencil's values: the interior of its one buffer, which it keeps alive.
class FramedArray final : public Buffer {
public:
  FramedArray(std::shared_ptr<Buffer> whole, std::size_t offset)
      : Buffer(static_cast<char*>(whole->data()) + offset, whole->bytes() - offset, whole->space()),
        whole_(std::move(whole)) {}

private:
  std::shared_ptr<Buffer> whole_;
};

/// Where a persisted stencil's values lie in its one buffer: a frame of `depth` around the array,
/// rows padded so that every row of values starts on a 128-byte boundary (whole cache lines and
/// memory sectors for the stencil's stores, given an aligned buffer).
struct FramedLayout {
  std::vector<index_t> strides; ///< per axis, in elements
  std::size_t offset = 0;       ///< bytes from the buffer's start to the array's first element
  std::size_t bytes = 0;        ///< of the whole buffer

  FramedLayout(const std::vector<index_t>& extent, const std::vector<index_t>& depth,
               std::size_t esize) {
    const char* what = "a stencil's buffer";
    const auto align = static_cast<index_t>(std::max<std::size_t>(1, 128 / esize));
    const std::size_t nd = extent.size();
    strides.assign(nd, 1);
    index_t size = 1, first = 0;
    for (std::size_t k = nd; k-- > 0;) {
      index_t padded = checked_add(extent[k], checked_mul(2, depth[k], what), what);
      if (k + 1 == nd)
        padded = checked_mul((padded + align - 1) / align, align, what);
      strides[k] = size;
      size = checked_mul(size, padded, what);
      first = checked_add(first, checked_mul(depth[k], strides[k], what), what);
    }
    // Elements before the frame, so that the first value of every row is aligned.
    const index_t lead = nd == 0 ? 0 : (align - depth[nd - 1] % align) % align;
    offset = static_cast<std::size_t>(lead + first) * esize;
    bytes = static_cast<std::size_t>(
        checked_mul(checked_add(lead, size, what), static_cast<index_t>(esize), what));
  }
};

/// persist() of a map_overlap whose function takes strided views, computed on one device: its
/// blocks written in place into one buffer of the whole array with a frame of the stencil's depth,
/// then the frame filled for its boundary (graph::StoredData::frame), so that the next step of
/// the same stencil reads its halos in place. nullptr where the blocks stay apart: other arrays,
/// several devices or ranks, memory limits (whose spilling moves blocks one by one).
graph::NodePtr persist_framed(const graph::NodePtr& node, const Resolved& on,
                              const ComputeOptions& options, runtime::Diagnostics& diagnostics) {
  if (node->kind != graph::NodeKind::user || node->shape.size() == 0 ||
      options.host_memory_limit != 0 || options.device_memory_limit != 0)
    return nullptr;
  const auto& p = node->as<graph::UserParams>();
  if (!p.fn->strided || p.depth.empty())
    return nullptr;
  runtime::ClusterComputation cluster(options);
  if (cluster.active())
    return nullptr;
  const FramedLayout layout(node->shape.extents(), p.depth, dtype_size(node->dtype));
  std::shared_ptr<Buffer> whole = on.backend.framed_buffer(layout.bytes, options, on.devices);
  if (!whole)
    return nullptr;
  void* interior = static_cast<char*>(whole->data()) + layout.offset;
  const std::vector<index_t>& strides = layout.strides;
  plan::Request r;
  r.node = node;
  r.kind = plan::Request::Kind::destination;
  r.destination = plan::Destination{interior, node->dtype, node->shape, whole->space(), strides};
  plan::Plan plan = make_plan({r}, on, options, diagnostics, cluster);
  execute(plan, on, options, diagnostics, cluster);
  on.backend.fill_frame(runtime::make_frame(interior, whole->space(), node->dtype,
                                            node->shape.extents(), p.depth, strides, p.boundary));
  auto data = std::make_shared<graph::StoredData>();
  data->dtype = node->dtype;
  data->grid = node->grid;
  data->borrowed = std::make_shared<FramedArray>(std::move(whole), layout.offset);
  data->strides = strides;
  data->frame = p.depth;
  data->frame_boundary = p.boundary;
  return graph::make_stored(std::move(data));
}

} // namespace

void compute_into(const std::vector<HostTarget>& targets, BackendKind backend,
                  const ComputeOptions& options) {
  const Resolved on = checked(backend, options);
  runtime::Diagnostics diagnostics(options, on.backend);
  // Empty arrays have nothing to compute, but they run an empty plan on the backend all the same,
  // so that its options and devices are checked as for any other array.
  std::vector<plan::Request> requests;
  for (const auto& t : targets) {
    if (t.node->shape.size() == 0)
      continue;
    plan::Request r;
    r.node = t.node;
    r.kind = plan::Request::Kind::destination;
    r.destination = plan::Destination{t.data, t.node->dtype, t.node->shape, t.space, {}};
    requests.push_back(std::move(r));
  }
  runtime::ClusterComputation cluster(options);
  plan::Plan p = make_plan(std::move(requests), on, options, diagnostics, cluster);
  execute(p, on, options, diagnostics, cluster);
  diagnostics.finish();
}

graph::NodePtr persist(const graph::NodePtr& node, BackendKind backend,
                       const ComputeOptions& options) {
  const Resolved on = checked(backend, options);
  runtime::Diagnostics diagnostics(options, on.backend);
  if (graph::NodePtr framed = persist_framed(node, on, options, diagnostics)) {
    diagnostics.finish();
    return framed;
  }
  auto data = std::make_shared<graph::StoredData>();
  data->dtype = node->dtype;
  data->grid = node->grid;
  std::size_t on_device = 0;
  for (const auto& [lo, hi] : persist_groups(*node, on, options)) {
    auto blocks = persist_rows(node, lo, hi, on, options, diagnostics, data->owners);
    spillable_blocks(blocks, on.backend, options, on_device);
    data->blocks.insert(data->blocks.end(), blocks.begin(), blocks.end());
  }
  diagnostics.finish();
  return graph::make_stored(std::move(data));
}

void write_blocks(const graph::NodePtr& node, graph::BlockSink& sink, BackendKind backend,
                  const ComputeOptions& options) {
  const Resolved on = checked(backend, options);
  runtime::Diagnostics diagnostics(options, on.backend);
  // An empty array runs an empty plan, as compute_into does: its options are checked all the same.
  std::vector<plan::Request> requests;
  if (node->shape.size() > 0) {
    plan::Request r;
    r.node = node;
    r.kind = plan::Request::Kind::write;
    r.sink = &sink;
    requests.push_back(std::move(r));
  }
  runtime::ClusterComputation cluster(options);
  plan::Plan p = make_plan(std::move(requests), on, options, diagnostics, cluster);
  execute(p, on, options, diagnostics, cluster);
  diagnostics.finish();
}

void check_compute(BackendKind backend, const ComputeOptions& options) {
  checked(backend, options);
}

graph::NodePtr store_host_data(const void* data, DType dtype, const Shape& shape,
                               const std::vector<index_t>& chunks, BackendKind backend) {
  // The memory of the backend that will read the blocks; from_host on Cuda without a device
  // still succeeds (in host memory), and the computation reading it says why it cannot run.
  const runtime::Backend& reader =
      resolve(backend == BackendKind::cpu ? BackendKind::cpu : BackendKind::automatic).backend;
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
    stored->blocks[b] = reader.host_buffer(bytes, fill);
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
