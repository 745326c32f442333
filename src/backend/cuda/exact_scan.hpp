// SPDX-License-Identifier: Apache-2.0
// The CUDA backend's exact cumsum of one block (ComputeOptions::exact_sums) and its launch
// geometry (plain host code).
#pragma once

#include "backend/cuda/runtime.hpp"
#include "plan/scan_block.hpp"

#include <algorithm>
#include <cstddef>

namespace chunked::cuda {

/// Work items (a segment of a line each) an exact cumsum aims for: each walks its segment with a
/// running exact sum of some 560 bytes, so a few tens of thousands fill the GPU.
inline constexpr index_t exact_scan_items = index_t{1} << 15;
/// Fewest elements of a segment, so that short lines are not cut into slivers.
inline constexpr index_t exact_scan_min_segment = 64;

/// Segments each line of `b` is cut into. The results do not depend on it (every prefix is exact
/// before it is rounded); it only spreads long lines over threads.
inline index_t exact_scan_segments(const plan::ScanBlock& b) {
  const index_t lines = b.lines();
  if (lines == 0 || b.length <= exact_scan_min_segment)
    return 1;
  const index_t wanted = (exact_scan_items + lines - 1) / lines;
  const index_t most = (b.length + exact_scan_min_segment - 1) / exact_scan_min_segment;
  return std::clamp<index_t>(wanted, 1, most);
}

/// Bytes of scratch exact_scan_block needs: one exact sum per segment of every line, when lines
/// are cut into segments.
inline std::size_t exact_scan_scratch_bytes(const plan::ScanBlock& b) {
  const index_t segments = exact_scan_segments(b);
  return segments > 1 ? static_cast<std::size_t>(b.lines() * segments) * plan::exact_state_words * 8
                      : 0;
}

/// Writes into `out` (device) the exact cumsum of `in` (`b.size()` values of `dtype`, float or
/// double) along the axis of `b`, as cpu::exact_scan_block does and with the same bits: from the
/// exact sums after `carry`'s values (unused when b.carry_length is 0), its own lines' exact sums
/// written after its values; on `stream`, with exact_scan_scratch_bytes(b) bytes of `scratch`.
/// Long lines are cut into segments: pass 1 sums each segment exactly, pass 2 turns the sums into
/// each segment's exact prefix in segment order, pass 3 walks each segment from its prefix.
void exact_scan_block(DType dtype, const plan::ScanBlock& b, const void* in, const void* carry,
                      void* out, void* scratch, const Stream& stream);

} // namespace chunked::cuda
