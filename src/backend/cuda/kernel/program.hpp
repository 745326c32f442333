// SPDX-License-Identifier: Apache-2.0
// The kernel skeletons that generated block programs plug into: store, reduce over all axes
// (two passes, fixed order), and reduce along some axes.
#pragma once

// For NVRTC (the generated source includes it) and nvcc. A generated program is a struct P with
//   using result_type = ...;  static constexpr int nd = ...;  static constexpr unsigned reduced =
//   ...; static constexpr int batch = ...;  // positions a thread evaluates before using them
//   static constexpr bool loads_first = ...;  // a batch's loads before any of its arithmetic
//   static constexpr int leaves = ...;      // leaf l is read at offset off[l] = its map at i
//   struct Leaves { ... };                                    // the leaves that vary by position
//   static Leaves load(const ProgramArgs&, const i64* off);  // them at those offsets (reads)
//   static T apply(const ProgramArgs&, const Leaves&);       // the program on them (no reads)
//   static T eval(const ProgramArgs&, const i64* i);         // apply(load(leaf_offsets(i)))
//   static i64 index(const ProgramArgs&, const i64* i);     // argmin/argmax index at i
// Nothing here depends on thread timing: every reduction folds in an order fixed by the launch
// shape, which the host derives from the box size alone.
#include "backend/cuda/kernel/exact_fold.hpp"
#include "backend/cuda/kernel/partials.hpp"

#if defined(CHUNKED_KERNEL_RANDOM)
#include <curand_philox4x32_x.h>

#include "chunked/random/distributions.hpp"
#endif

namespace chunked::cuda::kernel {

/// Threads per CUDA block of every program kernel (the block reductions assume it).
constexpr int block_threads = block_threads_host;

template <int ND> CHUNKED_KD i64 at(const Map& m, const i64* i) {
  i64 r = m.base;
#pragma unroll
  for (int k = 0; k < ND; ++k)
    r += m.coef[k] * i[k];
  return r;
}

/// An axis mask fixed at compile time (a generated program's) and one known at run time (the
/// interpreter's, interpreter.cuh): unflatten and advance take either, so that a generated
/// kernel's loops over axes fold to the axes in its mask, its indices staying in registers.
template <unsigned M> struct FixedMask {
  static constexpr CHUNKED_KD unsigned bits() { return M; }
};
struct RunTimeMask {
  unsigned m;
  CHUNKED_KD unsigned bits() const { return m; }
};

/// Multi-index of flat position t over the axes of `mask` (C order among them); other axes are
/// left as they are.
template <int ND, class Mask>
CHUNKED_KD void unflatten(Mask mask, i64 t, const i64* extent, i64* i) {
#pragma unroll
  for (int k = ND - 1; k >= 0; --k) {
    if ((mask.bits() >> k) & 1u) {
      if (k == 0 || (mask.bits() & ((1u << k) - 1u)) == 0) {
        i[k] = t; // the outermost axis of the mask takes the rest: no division
      } else {
        const i64 e = extent[k];
        const i64 q = t / e;
        i[k] = t - q * e;
        t = q;
      }
    }
  }
}

/// Adds the multi-index `step` (digits over the axes of `mask`, each below its extent) to `i`
/// with carries: a grid-stride loop walks its positions with additions instead of one 64-bit
/// division per axis and element. The outermost axis of the mask takes the final carry unbounded,
/// as unflatten gives it the quotient.
template <int ND, class Mask>
CHUNKED_KD void advance(Mask mask, const i64* step, const i64* extent, i64* i) {
  i64 carry = 0;
#pragma unroll
  for (int k = ND - 1; k >= 0; --k) {
    if ((mask.bits() >> k) & 1u) {
      i[k] += step[k] + carry;
      if (k == 0 || (mask.bits() & ((1u << k) - 1u)) == 0)
        return;
      carry = i[k] >= extent[k] ? 1 : 0;
      i[k] -= carry * extent[k];
    }
  }
}

template <int ND> constexpr unsigned all_axes() { return ND >= 32 ? ~0u : ((1u << ND) - 1u); }

/// Whether P reads its reduced axes at run time (P::masks_at_run_time, the interpreter's) rather
/// than having them compiled in (P::reduced, a generated program's).
template <class P, class = void> struct run_time_masks { static constexpr bool value = false; };
template <class P> struct run_time_masks<P, decltype((void)P::masks_at_run_time)> {
  static constexpr bool value = P::masks_at_run_time;
};

/// The axes of P's box that a reduction keeps, and those it reduces, as masks for unflatten and
/// advance.
template <class P> CHUNKED_KD auto kept_axes(const ProgramArgs& a) {
  if constexpr (run_time_masks<P>::value)
    return RunTimeMask{all_axes<P::nd>() & ~P::reduced_mask(a)};
  else
    return FixedMask<all_axes<P::nd>() & ~P::reduced>{};
}
template <class P> CHUNKED_KD auto reduced_axes(const ProgramArgs& a) {
  if constexpr (run_time_masks<P>::value)
    return RunTimeMask{all_axes<P::nd>() & P::reduced_mask(a)};
  else
    return FixedMask<all_axes<P::nd>() & P::reduced>{};
}

#if defined(CHUNKED_KERNEL_RANDOM)
/// The Philox block of cuRAND's device API for counter {block, stream} and key seed.
CHUNKED_KD random::Words4x32 philox_block(u64 seed, u64 stream, u64 block) {
  const uint4 c = make_uint4(static_cast<unsigned>(block), static_cast<unsigned>(block >> 32),
                             static_cast<unsigned>(stream), static_cast<unsigned>(stream >> 32));
  const uint2 k = make_uint2(static_cast<unsigned>(seed), static_cast<unsigned>(seed >> 32));
  const uint4 r = curand_Philox4x32_10(c, k);
  return {r.x, r.y, r.z, r.w};
}
CHUNKED_KD double normal_sample(const LeafArgs& l, i64 flat) {
  const u64 e = static_cast<u64>(flat);
  const double z =
      random::standard_normal_of(philox_block(l.seed, l.stream, e >> 1), (e & 1u) != 0);
  return random::detail::fused_mul_add(l.bf, z, l.af);
}
CHUNKED_KD double uniform_sample(const LeafArgs& l, i64 flat) {
  const u64 e = static_cast<u64>(flat);
  const random::Words4x32 w = philox_block(l.seed, l.stream, e >> 1);
  const double twice_u = (e & 1u) != 0 ? random::twice_unit_uniform(w.w2, w.w3)
                                       : random::twice_unit_uniform(w.w0, w.w1);
  return random::uniform_value({l.af, l.bf, l.cf}, twice_u);
}
CHUNKED_KD i64 integers_sample(const LeafArgs& l, i64 flat) {
  const u64 e = static_cast<u64>(flat);
  const random::Words4x32 w = philox_block(l.seed, l.stream, e >> 1);
  const u64 word = (e & 1u) != 0 ? (static_cast<u64>(w.w2) | (static_cast<u64>(w.w3) << 32))
                                 : (static_cast<u64>(w.w0) | (static_cast<u64>(w.w1) << 32));
  return random::integer_in(word, l.ai, l.bi);
}
#endif

/// NumPy's fill, as the CPU computes it: start + T(pos) * delta in T, a multiply and an add each
/// rounded (never fused into an fma).
template <class T> CHUNKED_KD T arange_value(const LeafArgs& l, i64 pos) {
  if constexpr (is_same<T, float>::value)
    return __fadd_rn(static_cast<float>(l.af),
                     __fmul_rn(static_cast<float>(pos), static_cast<float>(l.bf)));
  else if constexpr (is_same<T, double>::value)
    return __dadd_rn(l.af, __dmul_rn(static_cast<double>(pos), l.bf));
  else
    return cast_value<T>(wrap_add(l.ai, wrap_mul(pos, l.bi)));
}

/// The offset of every leaf of P at multi-index i (constant leaves' are never read).
template <class P> CHUNKED_KD void leaf_offsets(const ProgramArgs& a, const i64* i, i64* off) {
#pragma unroll
  for (int l = 0; l < P::leaves; ++l)
    off[l] = at<P::nd>(a.leaf[l].map, i);
}

/// Each thread evaluates P::batch positions (a grid stride apart) before it uses any of them:
/// programs that only read memory then have that many loads in flight per thread instead of one,
/// which a kernel bound by memory latency needs to reach the bus's rate. With P::loads_first,
/// every load of the batch is issued before the arithmetic of its first position: a slow path
/// (a division's) is a call the compiler will not hoist later loads above, so evaluating
/// position by position would wait for each position's loads in turn. The loops stay in each
/// kernel: moved into a helper that fills its caller's arrays, the compiler interleaved the loads
/// with the divisions again (benchmarks/RESULTS.md, M1). Random programs, bound by arithmetic,
/// use batch 1. The order in which a thread folds its values does not change.
template <class P> CHUNKED_KD void store_kernel(const ProgramArgs& a) {
  using T = typename P::result_type;
  constexpr int nd = P::nd > 0 ? P::nd : 1;
  constexpr FixedMask<all_axes<P::nd>()> mask{};
  constexpr int batch = P::batch;
  T* out = static_cast<T*>(a.out);
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  const i64 t0 = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
  i64 i[nd] = {}, step[nd] = {};
  unflatten<P::nd>(mask, t0, a.extent, i);
  unflatten<P::nd>(mask, stride, a.extent, step);
  i64 t = t0;
  if constexpr (batch > 1) {
    for (; t + (batch - 1) * stride < a.size; t += batch * stride) {
      i64 at_out[batch];
      if constexpr (P::loads_first) {
        typename P::Leaves in[batch];
        i64 off[P::leaves];
        leaf_offsets<P>(a, i, off);
#pragma unroll
        for (int u = 0; u < batch; ++u) {
          in[u] = P::load(a, off);
          at_out[u] = at<P::nd>(a.sink, i);
          advance<P::nd>(mask, step, a.extent, i);
          leaf_offsets<P>(a, i, off);
        }
#pragma unroll
        for (int u = 0; u < batch; ++u)
          out[at_out[u]] = P::apply(a, in[u]);
      } else {
        T v[batch];
#pragma unroll
        for (int u = 0; u < batch; ++u) {
          v[u] = P::eval(a, i);
          at_out[u] = at<P::nd>(a.sink, i);
          advance<P::nd>(mask, step, a.extent, i);
        }
#pragma unroll
        for (int u = 0; u < batch; ++u)
          out[at_out[u]] = v[u];
      }
    }
  }
  for (; t < a.size; t += stride) {
    out[at<P::nd>(a.sink, i)] = P::eval(a, i);
    advance<P::nd>(mask, step, a.extent, i);
  }
}

/// A store whose stored leaves read neighbours along `axis` rather than along the innermost axis
/// (a transposed input): each CUDA block takes 32 x 32 tiles of (axis, innermost) in turn, its
/// warps evaluating a tile with lanes along `axis`, so that their reads coalesce, into shared
/// memory, then writing it with lanes along the innermost axis, so that their writes do. The
/// other axes index the tiles. Each position is evaluated once, as in store_kernel.
template <class P> CHUNKED_KD void store_tiled_kernel(const ProgramArgs& a, int axis) {
  if constexpr (P::nd >= 2) {
    using T = typename P::result_type;
    constexpr int nd = P::nd, last = P::nd - 1;
    constexpr int tile = 32, rows = block_threads / tile;
    __shared__ T buffer[tile][tile + 1]; // one column of padding: no bank conflicts
    T* out = static_cast<T*>(a.out);
    const int tx = static_cast<int>(threadIdx.x) % tile, ty = static_cast<int>(threadIdx.x) / tile;
    const i64 ea = a.extent[axis], el = a.extent[last];
    const i64 ta = (ea + tile - 1) / tile, tl = (el + tile - 1) / tile;
    const i64 tiles = a.size / (ea * el) * ta * tl;
    for (i64 t = blockIdx.x; t < tiles; t += gridDim.x) {
      i64 rest = t / tl;
      const i64 l0 = (t - rest * tl) * tile;
      const i64 qa = rest % ta;
      rest /= ta;
      const i64 a0 = qa * tile;
      i64 i[nd];
      // The other axes from `rest`, C order; the loop is unrolled, so `i` stays in registers.
#pragma unroll
      for (int k = nd - 1; k >= 0; --k) {
        if (k == last || k == axis) {
          i[k] = 0;
        } else {
          const i64 q = rest / a.extent[k];
          i[k] = rest - q * a.extent[k];
          rest = q;
        }
      }
#pragma unroll
      for (int r = 0; r < tile / rows; ++r) {
        const int y = ty + r * rows;
#pragma unroll
        for (int k = 0; k < nd; ++k)
          if (k == axis)
            i[k] = a0 + tx;
        i[last] = l0 + y;
        if (a0 + tx < ea && l0 + y < el)
          buffer[y][tx] = P::eval(a, i);
      }
      __syncthreads();
#pragma unroll
      for (int r = 0; r < tile / rows; ++r) {
        const int y = ty + r * rows;
#pragma unroll
        for (int k = 0; k < nd; ++k)
          if (k == axis)
            i[k] = a0 + y;
        i[last] = l0 + tx;
        if (a0 + y < ea && l0 + tx < el)
          out[at<P::nd>(a.sink, i)] = buffer[tx][y];
      }
      __syncthreads();
    }
  }
}

/// Folds the block's accumulators in a fixed tree; thread 0 returns the block's state.
template <class Acc> CHUNKED_KD Acc block_fold(Acc acc) {
  __shared__ Acc shared[block_threads];
  const int t = threadIdx.x;
  shared[t] = acc;
  __syncthreads();
#pragma unroll
  for (int s = block_threads / 2; s > 0; s >>= 1) {
    if (t < s) {
      Acc left = shared[t];
      left.merge(shared[t + s]);
      shared[t] = left;
    }
    __syncthreads();
  }
  return shared[0];
}

/// Pass 1 of a reduction over every axis: each CUDA block's state goes to scratch[blockIdx.x].
/// With rows_per_part > 0 (the host asks for it when rows along the last axis are long), block b
/// folds rows [b * rows_per_part, (b + 1) * rows_per_part) and its threads walk along each row,
/// so that a leaf's index advances by one addition per element, as in a hand-written kernel;
/// else the threads walk all positions with a grid-wide stride. Either way the host derives the
/// partition from the box alone.
template <class P, class Acc>
CHUNKED_KD void reduce_all_kernel(const ProgramArgs& a, i64 rows_per_part) {
  constexpr int nd = P::nd > 0 ? P::nd : 1;
  constexpr FixedMask<all_axes<P::nd>()> mask{};
  constexpr bool exact_sum = is_same<Acc, ExactAcc>::value;
  __shared__ FoldSpace<Acc, 1> space;
  if constexpr (exact_sum) {
    space.clear();
    __syncthreads();
  }
  auto fold = start_fold<Acc>(space, 0);
  i64 i[nd] = {};
  bool by_rows = false;
  if constexpr (P::nd >= 2) {
    by_rows = rows_per_part > 0;
    if (by_rows) {
      constexpr int last = P::nd - 1;
      constexpr FixedMask<all_axes<P::nd>() & ~(1u << last)> outer{};
      const i64 inner = a.extent[last];
      const i64 rows = a.size / inner;
      const i64 r0 = static_cast<i64>(blockIdx.x) * rows_per_part;
      const i64 r1 = r0 + rows_per_part < rows ? r0 + rows_per_part : rows;
      i64 next[nd] = {};
      unflatten<P::nd>(outer, r0, a.extent, i);
      unflatten<P::nd>(outer, 1, a.extent, next);
      for (i64 r = r0; r < r1; ++r) {
        i64 c = threadIdx.x;
        if constexpr (exact_sum && P::batch > 1) {
          // Loads first, then the windows' longer arithmetic, so that the loads overlap.
          for (; c + (P::batch - 1) * block_threads < inner; c += P::batch * block_threads) {
            typename P::result_type v[P::batch];
#pragma unroll
            for (int u = 0; u < P::batch; ++u) {
              i[last] = c + u * block_threads;
              v[u] = P::eval(a, i);
            }
#pragma unroll
            for (int u = 0; u < P::batch; ++u)
              fold.add(v[u], 0);
          }
        }
        for (; c < inner; c += block_threads) {
          i[last] = c;
          fold.add(P::eval(a, i), P::index(a, i));
        }
        advance<P::nd>(outer, next, a.extent, i);
      }
    }
  }
  if (!by_rows) {
    const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
    const i64 t0 = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
    i64 step[nd] = {};
    unflatten<P::nd>(mask, t0, a.extent, i);
    unflatten<P::nd>(mask, stride, a.extent, step);
    i64 t = t0;
    if constexpr (exact_sum && P::batch > 1) {
      for (; t + (P::batch - 1) * stride < a.size; t += P::batch * stride) {
        typename P::result_type v[P::batch];
#pragma unroll
        for (int u = 0; u < P::batch; ++u) {
          v[u] = P::eval(a, i);
          advance<P::nd>(mask, step, a.extent, i);
        }
#pragma unroll
        for (int u = 0; u < P::batch; ++u)
          fold.add(v[u], 0);
      }
    }
    for (; t < a.size; t += stride) {
      fold.add(P::eval(a, i), P::index(a, i));
      advance<P::nd>(mask, step, a.extent, i);
    }
  }
  if constexpr (exact_sum) {
    fold.done(true);
    __syncthreads();
    if (threadIdx.x == 0)
      exact_store(space.entry[0], static_cast<i64*>(a.scratch) + blockIdx.x * Acc::words);
  } else {
    const Acc total = block_fold(fold.done());
    if (threadIdx.x == 0)
      total.store(static_cast<i64*>(a.scratch) + blockIdx.x * Acc::words);
  }
}

/// Pass 2: one CUDA block folds the `parts` states of pass 1 into partial entry sink.base.
template <class Acc> CHUNKED_KD void reduce_final_kernel(const ProgramArgs& a, int parts) {
  const i64* scratch = static_cast<const i64*>(a.scratch);
  if constexpr (is_same<Acc, ExactAcc>::value) {
    // Warp w adds parts w, w + warps, ... (lane l its words l, l + 32, l + 64), then the warps'
    // sums meet in shared memory: integer sums, so no order to fix.
    __shared__ ExactShared total;
    exact_clear(&total, 1);
    __syncthreads();
    const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
    i64 acc[3] = {0, 0, 0};
    for (int p = warp; p < parts; p += block_threads / 32)
      exact_gather_lane(acc, scratch + p * Acc::words, lane);
    exact_add_lane(total, acc, lane);
    __syncthreads();
    if (threadIdx.x == 0)
      exact_store(total, static_cast<i64*>(a.out) + a.sink.base * Acc::words);
  } else {
    Acc acc = Acc::identity();
    for (int p = threadIdx.x; p < parts; p += block_threads)
      acc.merge(Acc::load(scratch + p * Acc::words));
    const Acc total = block_fold(acc);
    if (threadIdx.x == 0)
      total.store(static_cast<i64*>(a.out) + a.sink.base * Acc::words);
  }
}

/// A reduction along some axes. A CUDA block holds KX kept positions times RY = block_threads /
/// KX lanes over the reduced positions: KX = 32 when neighbouring kept positions are neighbours
/// in memory (a warp then reads 32 of them at once), KX = 1 when the reduced positions are (the
/// lanes then read along them). gridDim.y segments multiply the lanes: lane l of the L =
/// gridDim.y * RY lanes folds reduced positions l, l + L, l + 2L, ... in order; the RY lanes of
/// a block fold in a fixed tree; with one segment the block writes the entry, else segment y
/// writes its state to scratch[y][q] and reduce_axes_final_kernel folds the segments in order.
/// The host picks KX and the segment count from the box alone, so every order is fixed.
template <class P, class Acc, int KX> CHUNKED_KD void reduce_axes_kernel(const ProgramArgs& a) {
  constexpr int nd = P::nd > 0 ? P::nd : 1;
  constexpr int RY = block_threads / KX;
  const auto kept_mask = kept_axes<P>(a);
  const auto reduced_mask = reduced_axes<P>(a);
  const int tx = static_cast<int>(threadIdx.x) % KX, ty = static_cast<int>(threadIdx.x) / KX;
  const i64 q = static_cast<i64>(blockIdx.x) * KX + tx;
  const i64 lanes = static_cast<i64>(gridDim.y) * RY;
  const i64 lane = static_cast<i64>(blockIdx.y) * RY + ty;
  i64 i[nd] = {}, step[nd] = {};
  constexpr bool exact_sum = is_same<Acc, ExactAcc>::value;
  __shared__ FoldSpace<Acc, KX> space;
  if constexpr (exact_sum) {
    space.clear();
    __syncthreads();
  }
  auto fold = start_fold<Acc>(space, tx);
  if (q < a.kept) {
    unflatten<P::nd>(kept_mask, q, a.extent, i);
    unflatten<P::nd>(reduced_mask, lane, a.extent, i);
    unflatten<P::nd>(reduced_mask, lanes, a.extent, step);
    i64 r = lane;
    if constexpr (P::batch > 1) {
      // As store_kernel: the batch's loads first, then its folds in the same order.
      constexpr int batch = P::batch;
      for (; r + (batch - 1) * lanes < a.reduced; r += batch * lanes) {
        i64 index[batch];
        if constexpr (P::loads_first) {
          typename P::Leaves in[batch];
          i64 off[P::leaves];
          leaf_offsets<P>(a, i, off);
#pragma unroll
          for (int u = 0; u < batch; ++u) {
            in[u] = P::load(a, off);
            index[u] = P::index(a, i);
            advance<P::nd>(reduced_mask, step, a.extent, i);
            leaf_offsets<P>(a, i, off);
          }
#pragma unroll
          for (int u = 0; u < batch; ++u)
            fold.add(P::apply(a, in[u]), index[u]);
        } else {
          typename P::result_type v[batch];
#pragma unroll
          for (int u = 0; u < batch; ++u) {
            v[u] = P::eval(a, i);
            index[u] = P::index(a, i);
            advance<P::nd>(reduced_mask, step, a.extent, i);
          }
#pragma unroll
          for (int u = 0; u < batch; ++u)
            fold.add(v[u], index[u]);
        }
      }
    }
    for (; r < a.reduced; r += lanes) {
      fold.add(P::eval(a, i), P::index(a, i));
      advance<P::nd>(reduced_mask, step, a.extent, i);
    }
  }
  if constexpr (exact_sum) {
    fold.done(KX == 1); // with KX = 1 a block's lanes all fold position q
    __syncthreads();
    if (ty != 0 || q >= a.kept)
      return;
    exact_store(space.entry[tx],
                gridDim.y == 1
                    ? static_cast<i64*>(a.out) + at<P::nd>(a.sink, i) * Acc::words
                    : static_cast<i64*>(a.scratch) + (blockIdx.y * a.kept + q) * Acc::words);
  } else {
    __shared__ Acc shared[block_threads];
    shared[threadIdx.x] = fold.done();
    __syncthreads();
#pragma unroll
    for (int s = RY / 2; s > 0; s >>= 1) {
      if (ty < s) {
        Acc left = shared[ty * KX + tx];
        left.merge(shared[(ty + s) * KX + tx]);
        shared[ty * KX + tx] = left;
      }
      __syncthreads();
    }
    if (ty != 0 || q >= a.kept)
      return;
    if (gridDim.y == 1)
      shared[tx].store(static_cast<i64*>(a.out) + at<P::nd>(a.sink, i) * Acc::words);
    else
      shared[tx].store(static_cast<i64*>(a.scratch) + (blockIdx.y * a.kept + q) * Acc::words);
  }
}

/// Folds the `segments` states of each kept position into its entry, one warp per position:
/// lane l folds segments l, l + 32, l + 64, ... in order, then the 32 lanes fold in a fixed tree.
/// The order depends on the segment count alone. One thread per position folding every segment
/// in turn made a chain of hundreds of dependent merges where there are few kept positions and
/// many segments (benchmarks/RESULTS.md, M2).
template <class P, class Acc>
CHUNKED_KD void reduce_axes_final_kernel(const ProgramArgs& a, int segments) {
  constexpr int nd = P::nd > 0 ? P::nd : 1;
  const auto kept_mask = kept_axes<P>(a);
  constexpr int warps = block_threads / 32;
  const i64* scratch = static_cast<const i64*>(a.scratch);
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const i64 stride = static_cast<i64>(gridDim.x) * warps;
  if constexpr (is_same<Acc, ExactAcc>::value) {
    // A warp per position; lane l adds words l, l + 32, ... of every segment.
    __shared__ ExactShared entry[warps];
    for (i64 q = static_cast<i64>(blockIdx.x) * warps + warp; q < a.kept; q += stride) {
      i64 acc[3] = {0, 0, 0};
      for (int y = 0; y < segments; ++y)
        exact_gather_lane(acc, scratch + (y * a.kept + q) * Acc::words, lane);
#pragma unroll
      for (int k = 0; k < 3; ++k)
        if (lane + 32 * k < 1 + exact::digits)
          entry[warp].w[lane + 32 * k] = acc[k];
      __syncwarp();
      if (lane == 0) {
        i64 i[nd] = {};
        unflatten<P::nd>(kept_mask, q, a.extent, i);
        exact_store(entry[warp], static_cast<i64*>(a.out) + at<P::nd>(a.sink, i) * Acc::words);
      }
      __syncwarp();
    }
  } else {
    __shared__ Acc shared[block_threads];
    for (i64 q = static_cast<i64>(blockIdx.x) * warps + warp; q < a.kept; q += stride) {
      Acc acc = Acc::identity();
      for (int y = lane; y < segments; y += 32)
        acc.merge(Acc::load(scratch + (y * a.kept + q) * Acc::words));
      shared[threadIdx.x] = acc;
      __syncwarp();
#pragma unroll
      for (int s = 16; s > 0; s >>= 1) {
        if (lane < s) {
          Acc left = shared[threadIdx.x];
          left.merge(shared[threadIdx.x + s]);
          shared[threadIdx.x] = left;
        }
        __syncwarp();
      }
      if (lane == 0) {
        i64 i[nd] = {};
        unflatten<P::nd>(kept_mask, q, a.extent, i);
        shared[threadIdx.x].store(static_cast<i64*>(a.out) + at<P::nd>(a.sink, i) * Acc::words);
      }
      __syncwarp();
    }
  }
}

} // namespace chunked::cuda::kernel
