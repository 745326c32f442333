// SPDX-License-Identifier: Apache-2.0
// The row copy of copy_rows.hpp. The generated store kernel of a copy program walks every
// element's N-d index; here a row's offsets are found once and its elements move in coalesced
// runs, several loads in flight per thread before their stores.
#include "backend/cuda/copy_rows.hpp"

#include "backend/cuda/launch_geometry.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace chunked::cuda {

namespace {

constexpr int row_threads = 256;
constexpr int row_batch = 4; ///< elements per thread and work item, loaded before any is stored
constexpr index_t item_elements = static_cast<index_t>(row_threads) * row_batch;

/// Where rows live: the row index over the outer axes (all but the last), turned into element
/// offsets of the source and the destination.
struct RowMaps {
  long long extent[max_ndim];
  long long in_coef[max_ndim];
  long long out_coef[max_ndim];
  long long in_base, out_base;
  int outer_axes;     ///< axes before the innermost
  long long row;      ///< elements per row (the innermost extent)
  long long rows;     ///< rows in the box
  long long segments; ///< work items per row
};

/// Work item w copies segment w % segments of row w / segments.
template <class T>
__global__ void __launch_bounds__(row_threads) copy_rows_kernel(const T* in, T* out, RowMaps m) {
  for (long long w = blockIdx.x; w < m.rows * m.segments; w += gridDim.x) {
    long long r = w / m.segments;
    const long long first = (w % m.segments) * item_elements;
    long long src = m.in_base, dst = m.out_base;
    for (int k = m.outer_axes - 1; k >= 0; --k) {
      const long long i = r % m.extent[k];
      r /= m.extent[k];
      src += i * m.in_coef[k];
      dst += i * m.out_coef[k];
    }
    T v[row_batch];
#pragma unroll
    for (int u = 0; u < row_batch; ++u) {
      const long long j = first + u * row_threads + threadIdx.x;
      if (j < m.row)
        v[u] = in[src + j];
    }
#pragma unroll
    for (int u = 0; u < row_batch; ++u) {
      const long long j = first + u * row_threads + threadIdx.x;
      if (j < m.row)
        out[dst + j] = v[u];
    }
  }
}

template <class T> void launch(const RowMaps& m, const void* in, void* out, const Stream& stream) {
  const index_t items = m.rows * m.segments;
  const auto blocks = static_cast<unsigned>(std::clamp<index_t>(items, 1, max_grid));
  copy_rows_kernel<T><<<blocks, row_threads, 0, stream.get()>>>(static_cast<const T*>(in),
                                                                static_cast<T*>(out), m);
}

} // namespace

bool copies_rows(const plan::BlockProgram& p) {
  if (p.ndim < 1 || !p.instrs.empty() || p.leaves.size() != 1 ||
      p.sink.kind != plan::Sink::Kind::store)
    return false;
  const plan::Leaf& leaf = p.leaves[0];
  const std::size_t esize = dtype_size(leaf.dtype);
  const int last = p.ndim - 1;
  return leaf.kind == plan::LeafKind::stored && leaf.dtype == p.result_dtype() &&
         (esize == 1 || esize == 2 || esize == 4 || esize == 8) && leaf.map.coef[last] == 1 &&
         p.sink.map.coef[last] == 1 && p.extent[last] >= copy_rows_min_row;
}

namespace {

/// Whether each axis of `p`'s box steps by the elements of the axes inside it, in the source and
/// the destination: the box is one run on both sides.
bool is_one_run(const plan::BlockProgram& p) {
  index_t run = 1;
  for (int k = p.ndim - 1; k >= 0; --k) {
    if (p.extent[k] > 1 && (p.leaves[0].map.coef[k] != run || p.sink.map.coef[k] != run))
      return false;
    run *= p.extent[k];
  }
  return true;
}

} // namespace

bool copies_one_run(const plan::BlockProgram& p) { return copies_rows(p) && is_one_run(p); }

void copy_one_run(const plan::BlockProgram& p, const void* in, void* out, std::size_t esize,
                  const Stream& stream) {
  const auto bytes = static_cast<std::size_t>(p.size()) * esize;
  const auto e = static_cast<index_t>(esize);
  check(cudaMemcpyAsync(static_cast<char*>(out) + p.sink.map.base * e,
                        static_cast<const char*>(in) + p.leaves[0].map.base * e, bytes,
                        cudaMemcpyDeviceToDevice, stream.get()),
        "device copy", stream.device(), "(" + std::to_string(bytes) + " bytes)");
}

void copy_rows(const plan::BlockProgram& p, const void* in, void* out, std::size_t esize,
               const Stream& stream) {
  if (is_one_run(p)) { // the driver's copy: the device's copy rate, not a fraction of it
    copy_one_run(p, in, out, esize, stream);
    return;
  }
  RowMaps m{};
  const int last = p.ndim - 1;
  m.outer_axes = last;
  for (int k = 0; k < last; ++k) {
    m.extent[k] = p.extent[k];
    m.in_coef[k] = p.leaves[0].map.coef[k];
    m.out_coef[k] = p.sink.map.coef[k];
  }
  m.in_base = p.leaves[0].map.base;
  m.out_base = p.sink.map.base;
  m.row = p.extent[last];
  m.rows = p.size() / m.row;
  m.segments = (m.row + item_elements - 1) / item_elements;
  if (m.rows == 0)
    return;
  switch (esize) {
  case 1:
    launch<std::uint8_t>(m, in, out, stream);
    break;
  case 2:
    launch<std::uint16_t>(m, in, out, stream);
    break;
  case 4:
    launch<std::uint32_t>(m, in, out, stream);
    break;
  default:
    launch<std::uint64_t>(m, in, out, stream);
    break;
  }
  check(cudaGetLastError(), "row copy launch", stream.device(),
        "(" + std::to_string(p.size()) + " elements)");
}

} // namespace chunked::cuda
