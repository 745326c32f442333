// SPDX-License-Identifier: Apache-2.0
// User code per block (DESIGN section 8.3): map_blocks and map_overlap.
#pragma once

#include <chunked/array.hpp>
#include <chunked/core/block_info.hpp>
#include <chunked/core/chunk_grid.hpp>
#include <chunked/core/view.hpp>

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

/// @file
/// map_blocks and map_overlap call a user function once per output block of every computation
/// that needs the result (never when the array is made), as
///
///     fn(const BlockInfo& info, BlockView<U> out, BlockView<const A>... in)
///
/// with one view per input array in argument order. Every view is dense, C order; `out` is the
/// output block (info.shape), which fn fills.
///
/// fn may instead take strided views (an addition to DESIGN 8.3):
///
///     fn(const BlockInfo& info, View<U> out, View<const A>... in)
///
/// where element (i_0, ...) of a view is `data[sum_k i_k * strides[k]]`. The runtime then hands
/// blocks where they lie instead of copying them into dense buffers: a stencil persisted by
/// map_overlap with such a function keeps its blocks in one buffer of the whole array with a
/// frame of `depth` around it, filled as `boundary` says, so the next map_overlap of the same
/// depth and boundary reads each block with its halo in place, and writes its own blocks in place
/// (one read and one write of the array per step, as a hand-written stencil does). Each row of
/// values starts on a 128-byte boundary (rows are padded). Over several devices or a cluster's
/// ranks, and under host or device memory limits (which spill blocks one by one), the blocks stay
/// apart as for any persist. Views may be dense all the same (blocks of other arrays, gathered
/// halos, another boundary or a deeper halo than the frame holds); fn must honour the strides.
///
/// - Cpu: fn runs on a worker thread (several blocks may run at once on different threads).
/// - Cuda: the pointers are device pointers; fn enqueues its work (its own nvcc-compiled kernel,
///   cudaMemcpyAsync, a library call) on `info.stream` (a cudaStream_t) and must not synchronise.
///   A CUDA error that fn leaves (cudaGetLastError, or a failed stream) is a BackendError.
/// - Auto: fn tells the CPU (info.device == -1) from a GPU (info.device >= 0).
/// - An exception derived from std::exception that fn throws surfaces from compute() as a
///   chunked::Error whose message holds the original's and names the block; the runtime stays
///   usable. Other exceptions surface as themselves.
///
/// @code
/// // Each block's values minus the block's mean.
/// auto centred = chunked::map_blocks<double>(
///     [](const chunked::BlockInfo&, chunked::BlockView<double> out,
///        chunked::BlockView<const double> in) {
///       double s = 0;
///       for (chunked::index_t i = 0; i < in.size(); ++i) s += in.data[i];
///       for (chunked::index_t i = 0; i < in.size(); ++i) out.data[i] = in.data[i] - s / in.size();
///     }, x);
/// // A 5-point Laplacian with periodic boundaries: `in` is the block with one element of halo.
/// auto lap = chunked::map_overlap<double>(laplacian, u, {1, 1}, chunked::Boundary::periodic);
/// // Steps of a stencil on strided views: each step reads and writes u once, in place.
/// auto step = [](const chunked::BlockInfo& info, chunked::View<double> out,
///                chunked::View<const double> in) {
///   const chunked::index_t r = in.strides[0], c = in.strides[1];
///   for (chunked::index_t i = 0; i < info.shape[0]; ++i)
///     for (chunked::index_t j = 0; j < info.shape[1]; ++j) {
///       const double* m = in.data + (i + 1) * r + (j + 1) * c;
///       out.data[i * out.strides[0] + j * out.strides[1]] =
///           *m + 0.2 * (m[-r] + m[r] + m[-c] + m[c] - 4 * *m);
///     }
/// };
/// for (int s = 0; s < 100; ++s)
///   u = chunked::map_overlap<double>(step, u, 1, chunked::Boundary::periodic).persist();
/// @endcode

namespace chunked {

namespace detail {

/// The node of map_blocks: inputs broadcast together, read over the first one's (broadcast)
/// grid; the output over `grid` (nullptr: that same grid). ShapeError when `grid` has another
/// rank or number of blocks per axis, or when the inputs do not broadcast.
graph::NodePtr map_blocks_node(std::shared_ptr<const BlockFunction> fn, DType result,
                               const ChunkGrid* grid, std::vector<graph::NodePtr> inputs);
/// The node of map_overlap. `depth` has one entry per axis, or is `uniform` for all of them.
/// ShapeError for a depth list of the wrong length, ValueError for a negative depth or one
/// larger than its axis.
graph::NodePtr map_overlap_node(std::shared_ptr<const BlockFunction> fn, DType result,
                                graph::NodePtr input, std::vector<index_t> depth, bool uniform,
                                index_t uniform_depth, Boundary boundary);

template <class U, class... A, class F, std::size_t... I>
void call_block(const F& f, const BlockInfo& info, const RawView& out,
                const std::vector<RawView>& in, std::index_sequence<I...>) {
  f(info, BlockView<U>{static_cast<U*>(out.data), out.shape},
    BlockView<const A>{static_cast<const A*>(in[I].data), in[I].shape}...);
}

/// A RawView as a View<T>: its strides, or C-order ones when it is dense.
template <class T> View<T> strided_view(const RawView& v) {
  return View<T>{static_cast<T*>(v.data), v.shape,
                 v.strides.empty() ? v.shape.strides() : v.strides};
}

template <class U, class... A, class F, std::size_t... I>
void call_strided(const F& f, const BlockInfo& info, const RawView& out,
                  const std::vector<RawView>& in, std::index_sequence<I...>) {
  f(info, strided_view<U>(out), strided_view<const A>(in[I])...);
}

/// True when fn takes dense BlockViews, false when it takes strided Views.
template <class U, class F, class... A> constexpr bool takes_block_views() {
  constexpr bool dense =
      std::is_invocable_v<const F&, const BlockInfo&, BlockView<U>, BlockView<const A>...>;
  static_assert(
      dense || std::is_invocable_v<const F&, const BlockInfo&, View<U>, View<const A>...>,
      "map_blocks/map_overlap: fn must be callable as fn(const BlockInfo&, BlockView<U> out, "
      "BlockView<const A> in...) or fn(const BlockInfo&, View<U> out, View<const A> in...), one "
      "view per input array");
  return dense;
}

/// `fn` with its types erased, for the graph.
template <class U, class... A, class F>
std::shared_ptr<const BlockFunction> erase_block_function(const char* name, F fn) {
  BlockFunction erased;
  erased.name = name;
  if constexpr (takes_block_views<U, F, A...>()) {
    erased.call = [f = std::move(fn)](const BlockInfo& info, const RawView& out,
                                      const std::vector<RawView>& in) {
      call_block<U, A...>(f, info, out, in, std::index_sequence_for<A...>{});
    };
  } else {
    erased.strided = true;
    erased.call = [f = std::move(fn)](const BlockInfo& info, const RawView& out,
                                      const std::vector<RawView>& in) {
      call_strided<U, A...>(f, info, out, in, std::index_sequence_for<A...>{});
    };
  }
  return std::make_shared<const BlockFunction>(std::move(erased));
}

} // namespace detail

/// The array whose block b is fn's output for block b of every input: the inputs are broadcast
/// together (NumPy's rules) and read over x's chunks (after broadcasting), which are the result's.
template <class U, class F, class T, class B, class... Ts>
ChunkedArray<U, B> map_blocks(F fn, const ChunkedArray<T, B>& x,
                              const ChunkedArray<Ts, B>&... more) {
  return ChunkedArray<U, B>(detail::map_blocks_node(
      detail::erase_block_function<U, T, Ts...>("map_blocks", std::move(fn)), dtype_v<U>, nullptr,
      {x.node(), more.node()...}));
}

/// As above, with output blocks of another shape: the result's grid is `grid`, which must have
/// as many blocks per axis as x (else ShapeError); output block b is fn of input block b.
template <class U, class F, class T, class B, class... Ts>
ChunkedArray<U, B> map_blocks(F fn, const ChunkGrid& grid, const ChunkedArray<T, B>& x,
                              const ChunkedArray<Ts, B>&... more) {
  return ChunkedArray<U, B>(detail::map_blocks_node(
      detail::erase_block_function<U, T, Ts...>("map_blocks", std::move(fn)), dtype_v<U>, &grid,
      {x.node(), more.node()...}));
}

/// A stencil: fn's `in` is x's block b with `depth[k]` extra elements on each side of axis k
/// from the neighbouring blocks (as many as the depth spans), padded at the array's edges as
/// `boundary` says; `out` is the block without halo, over x's chunks. Depths: one per axis
/// (ShapeError otherwise), each from 0 to the axis' length (ValueError otherwise).
template <class U, class F, class T, class B>
ChunkedArray<U, B> map_overlap(F fn, const ChunkedArray<T, B>& x, const std::vector<index_t>& depth,
                               Boundary boundary = Boundary::none) {
  return ChunkedArray<U, B>(
      detail::map_overlap_node(detail::erase_block_function<U, T>("map_overlap", std::move(fn)),
                               dtype_v<U>, x.node(), depth, false, 0, boundary));
}

/// As above with the same depth on every axis.
template <class U, class F, class T, class B>
ChunkedArray<U, B> map_overlap(F fn, const ChunkedArray<T, B>& x, index_t depth,
                               Boundary boundary = Boundary::none) {
  return ChunkedArray<U, B>(
      detail::map_overlap_node(detail::erase_block_function<U, T>("map_overlap", std::move(fn)),
                               dtype_v<U>, x.node(), {}, true, depth, boundary));
}

} // namespace chunked
