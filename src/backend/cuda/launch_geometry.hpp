// SPDX-License-Identifier: Apache-2.0
// Launch geometry of the CUDA backend: grid sizes, the split of a reduction into CUDA blocks and
// segments, and where a dense block's rows go in a host destination. Plain host code with no CUDA
// call, derived from a block's box alone (never from the GPU), so results do not depend on the
// GPU model or count; unit-tested without a GPU (tests/unit/test_launch_geometry.cpp).
#pragma once

#include "backend/cuda/kernel/args.hpp"
#include "plan/block_program.hpp"
#include "plan/partial.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>

namespace chunked::cuda {

/// Most CUDA blocks of pass 1 of a reduction over every axis. Fixed, so that the fold order and
/// therefore the result depend on the box alone, never on the GPU model or count.
inline constexpr index_t max_reduce_parts = 1024;
/// Most CUDA blocks of a grid-stride launch.
inline constexpr index_t max_grid = 8192;
/// Bytes of a lane's scratch before any reduction asks for more: pass 1 states of a reduction
/// over every axis (up to three words each).
inline constexpr std::size_t default_scratch_bytes =
    static_cast<std::size_t>(max_reduce_parts) * 3 * 8;

/// Bytes of the pass 1 states of a reduction `op` of program p over every axis (exact sums have
/// 75 words per state), at least default_scratch_bytes.
inline std::size_t pass1_scratch_bytes(plan::ReduceOp op, const plan::BlockProgram& p) {
  const auto words = static_cast<std::size_t>(plan::partial_layout(op, p.result_dtype()).words);
  return std::max(default_scratch_bytes, static_cast<std::size_t>(max_reduce_parts) * words * 8);
}

/// CUDA blocks of block_threads_host threads for n elements, per_thread each, at most `most`.
inline unsigned grid_for(index_t n, index_t per_thread = 1, index_t most = max_grid) {
  const index_t threads = kernel::block_threads_host;
  const index_t blocks = (n + threads * per_thread - 1) / (threads * per_thread);
  return static_cast<unsigned>(std::clamp<index_t>(blocks, 1, most));
}

/// Whether p draws random numbers (its kernels are then bound by their arithmetic, not by
/// memory).
inline bool draws_random(const plan::BlockProgram& p) {
  for (const auto& leaf : p.leaves)
    if (leaf.kind == plan::LeafKind::normal || leaf.kind == plan::LeafKind::uniform ||
        leaf.kind == plan::LeafKind::integers)
      return true;
  return false;
}

/// Whether `op` folds into exact entries (ComputeOptions::exact_sums).
inline bool exact_reduction(plan::ReduceOp op) {
  return ops::reduce_accumulator(op) == ops::Accumulator::exact;
}

/// Exact sums (ComputeOptions::exact_sums) give each thread a window with a fixed cost to start
/// and to move into the digits, which longer runs per thread repay where the program only loads
/// its values: at most this many parts of a reduction over every axis (programs that draw random
/// numbers keep max_reduce_parts), and at least this many positions per lane along some axes.
/// Exact results do not depend on either.
inline constexpr index_t exact_reduce_parts = 256;
inline constexpr index_t exact_min_per_lane = 256;

/// The launch of a reduction over every axis (program.hpp's reduce_all_kernel, then
/// reduce_final_kernel over its `parts` states). Rows of at least 2048 elements (at most 1/8 of
/// a row's threads idle at its end) and at least 256 of them: each CUDA block folds
/// `rows_per_part` whole rows; else (rows_per_part 0) a grid-wide stride over parts blocks.
struct ReduceAllLaunch {
  int parts = 1;
  long long rows_per_part = 0;
};

inline ReduceAllLaunch reduce_all_launch(const plan::BlockProgram& p) {
  const index_t most_parts =
      exact_reduction(p.sink.op) && !draws_random(p) ? exact_reduce_parts : max_reduce_parts;
  const index_t size = p.size();
  const index_t inner = p.ndim >= 2 ? p.extent[p.ndim - 1] : 0;
  const index_t rows = inner > 0 ? size / inner : 0;
  ReduceAllLaunch l;
  l.parts = static_cast<int>(std::clamp<index_t>((size + 2047) / 2048, 1, most_parts));
  if (inner >= 2048 && rows >= 256) {
    l.rows_per_part = (rows + most_parts - 1) / most_parts;
    l.parts = static_cast<int>((rows + l.rows_per_part - 1) / l.rows_per_part);
  }
  return l;
}

/// The launch of a reduction along some axes (program.hpp's reduce_axes_kernel): 32 kept
/// positions per CUDA block for the wide kernel set (codegen's kernel_set), else one; and
/// segments that split the reduced positions until the grid holds about 2^18 threads, each
/// folding at least 16 positions (exact_min_per_lane for `exact` sums).
struct AxesLaunch {
  bool wide = true;
  index_t blocks = 1;
  index_t segments = 1;
};

inline AxesLaunch axes_launch(bool wide, index_t kept, index_t reduced, bool exact = false) {
  constexpr index_t target_threads = index_t{1} << 18;
  const index_t min_per_lane = exact ? exact_min_per_lane : 16;
  constexpr index_t max_segments = 65535; // CUDA's limit on gridDim.y
  const index_t threads = kernel::block_threads_host;
  AxesLaunch l;
  l.wide = wide;
  const index_t kx = l.wide ? 32 : 1;
  const index_t ry = threads / kx;
  l.blocks = (kept + kx - 1) / kx;
  const index_t wanted = (target_threads + l.blocks * threads - 1) / (l.blocks * threads);
  const index_t most = std::max<index_t>(1, reduced / (ry * min_per_lane));
  l.segments = std::clamp<index_t>(wanted, 1, std::min(most, max_segments));
  return l;
}

/// Where a dense block goes in a host destination: the block's extents and the destination's
/// index map (element offsets).
struct Scatter {
  int ndim = 0;
  index_t extent[plan::max_ndim] = {};
  plan::AffineMap target;
};

/// Makes a store program write its box densely in C order, and returns where that dense block
/// goes: the program's extents and the sink map it had.
inline Scatter make_dense(plan::BlockProgram& program) {
  Scatter scatter;
  scatter.ndim = program.ndim;
  scatter.target = program.sink.map;
  index_t stride = 1;
  program.sink.map = plan::AffineMap{};
  for (int k = program.ndim; k-- > 0;) {
    scatter.extent[k] = program.extent[k];
    program.sink.map.coef[k] = stride;
    stride *= program.extent[k];
  }
  return scatter;
}

/// Calls f(offset, step, len, j) for the rows of flat positions [t0, t1) of the block: positions
/// j .. j+len-1 (relative to t0) map to offset + step * k under the target map.
template <class F> void for_each_row(const Scatter& s, index_t t0, index_t t1, F&& f) {
  if (s.ndim == 0) {
    if (t0 < t1)
      f(s.target.base, index_t{0}, index_t{1}, index_t{0});
    return;
  }
  const int last = s.ndim - 1;
  index_t idx[plan::max_ndim] = {};
  index_t rest = t0;
  for (int k = last; k >= 0; --k) {
    idx[k] = rest % s.extent[k];
    rest /= s.extent[k];
  }
  for (index_t j = 0; t0 + j < t1;) {
    const index_t len = std::min(t1 - t0 - j, s.extent[last] - idx[last]);
    f(s.target.at(idx, s.ndim), s.target.coef[last], len, j);
    j += len;
    idx[last] = 0;
    for (int k = last - 1; k >= 0 && ++idx[k] == s.extent[k]; --k)
      idx[k] = 0;
  }
}

/// A dense block copied into a destination as `outer` 2-D copies (one per index of the axes
/// before the last two) of `height` rows of `width` elements, `pitch` elements apart.
struct PitchedCopies {
  index_t width = 1;
  index_t height = 1;
  index_t pitch = 1;
  index_t outer = 1;
};

/// The 2-D copies of a scatter, or nothing when the destination's rows are not increasing and
/// unit-stride (copies element by element from staging handle those).
inline std::optional<PitchedCopies> pitched_copies(const Scatter& s) {
  const int nd = s.ndim;
  const plan::AffineMap& m = s.target;
  PitchedCopies c;
  c.width = nd > 0 ? s.extent[nd - 1] : 1;
  c.height = nd > 1 ? s.extent[nd - 2] : 1;
  c.pitch = nd > 1 ? m.coef[nd - 2] : c.width;
  if (nd > 0 && m.coef[nd - 1] != 1)
    return std::nullopt;
  if (c.height > 1 && c.pitch < c.width)
    return std::nullopt;
  for (int k = 0; k + 2 < nd; ++k)
    if (m.coef[k] < 0)
      return std::nullopt;
  if (c.height <= 1)
    c.pitch = c.width;
  for (int k = 0; k + 2 < nd; ++k)
    c.outer *= s.extent[k];
  return c;
}

/// Element offset in the destination of the first row of 2-D copy `o` (0 <= o < outer).
inline index_t pitched_copy_offset(const Scatter& s, index_t o) {
  const int nd = s.ndim;
  index_t idx[plan::max_ndim] = {};
  index_t rest = o;
  for (int k = nd - 3; k >= 0; --k) {
    idx[k] = rest % s.extent[k];
    rest /= s.extent[k];
  }
  return s.target.at(idx, nd);
}

} // namespace chunked::cuda
