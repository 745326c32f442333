// SPDX-License-Identifier: Apache-2.0
// The compiled entry points behind the templated API: planning and running on a backend.
#pragma once

#include <chunked/core/backend_tags.hpp>
#include <chunked/graph/block_io.hpp>
#include <chunked/graph/node.hpp>
#include <chunked/runtime/compute_options.hpp>

#include <string>
#include <vector>

namespace chunked::detail {

/// One array to compute into caller memory (dense, C order, of the node's dtype and shape).
struct HostTarget {
  graph::NodePtr node;
  void* data;
  /// Where `data` is: host memory, or a device's (ChunkedArray::to_device).
  MemorySpace space{};
};

/// Plans all targets together (shared intermediates computed once) and runs them on `backend`.
/// Empty targets are left out; with none left, an empty plan still runs, so that options and
/// backend are checked exactly as for arrays with elements.
void compute_into(const std::vector<HostTarget>& targets, BackendKind backend,
                  const ComputeOptions& options);

/// Computes node's blocks and keeps them in memory as a stored node with the same grid.
graph::NodePtr persist(const graph::NodePtr& node, BackendKind backend,
                       const ComputeOptions& options);

/// Computes node's blocks (one plan: each block of its grid made by one task, shared
/// intermediates computed once) and hands each to `sink.write` once, in host memory, as soon as
/// it is computed, then frees it: a few blocks per worker are alive at a time, never the whole
/// array. An empty array writes nothing. An exception from the sink or from a lazy leaf's source
/// stops the computation and comes out here (a chunked::Error unchanged; another std::exception
/// as a chunked::Error holding its message and naming the block); ValueError and BackendError as
/// compute_into for the options and the backend.
void write_blocks(const graph::NodePtr& node, graph::BlockSink& sink, BackendKind backend,
                  const ComputeOptions& options);

/// Copies dense C-order host data into blocks of `chunks` (a stored node), in memory that
/// `backend` reads fastest: pinned host memory when it runs on CUDA.
graph::NodePtr store_host_data(const void* data, DType dtype, const Shape& shape,
                               const std::vector<index_t>& chunks, BackendKind backend);

// ---- Views (interop): results in caller device memory
/// ChunkedArray::to_device: computes `node` on CUDA straight into device memory at `out` of
/// `device` (dense, C order; `align` is the element type's alignment). BackendError in a build
/// without CUDA or for a device that does not exist; ValueError for a Cpu array and for a null,
/// misaligned or non-device pointer (or one into another device's memory).
void compute_to_device(const graph::NodePtr& node, void* out, std::size_t align, int device,
                       BackendKind backend, const ComputeOptions& options);

// ---- Diagnostics ----

/// ChunkedArray::explain(): the plan that compute() would run for `node` on `backend` (Auto: the
/// backend it would pick here), in words. Runs nothing; a Cuda array is explained in a build or
/// on a machine without a GPU too.
std::string explain(const graph::NodePtr& node, BackendKind backend);
/// ChunkedArray::to_dot(): the same plan as a Graphviz digraph, one node per stage.
std::string to_dot(const graph::NodePtr& node, BackendKind backend);

// ---- Asynchronous compute (runtime/job.hpp) ----

/// What compute_into and persist check before planning: `options` (ValueError) and that
/// `backend` can run here (BackendError). The async entry points call it, so that these errors
/// come from the call rather than from Job::get().
void check_compute(BackendKind backend, const ComputeOptions& options);

} // namespace chunked::detail
