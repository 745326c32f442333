// SPDX-License-Identifier: Apache-2.0
// The CUDA backend's scan of one block along an axis, with the carried prefix of the blocks
// before it, and its launch geometry (plain host code).
#pragma once

#include "backend/cuda/exact_scan.hpp"
#include "backend/cuda/runtime.hpp"
#include "plan/scan_block.hpp"

#include <cstddef>

namespace chunked::cuda {

/// Elements of one segment of a row along the last axis: a row longer than this is scanned in
/// segments, each by one CUDA block, whose totals are scanned in segment order in between. A
/// constant, so that the order of operations (and so the bits of a float scan) depends on the
/// block's shape alone, never on the GPU model or count.
inline constexpr index_t scan_segment = index_t{1} << 16;

/// Segments per row of a scan along the last axis (1 for other axes, which walk columns).
inline index_t scan_segments(const plan::ScanBlock& b) {
  if (b.inner != 1 || b.length <= scan_segment)
    return 1;
  return (b.length + scan_segment - 1) / scan_segment;
}

/// Bytes of scratch scan_block needs (the segment totals; 0 with one segment per row).
inline std::size_t scan_scratch_bytes(graph::ScanParams::Op op, const plan::ScanBlock& b,
                                      DType dtype) {
  if (op == graph::ScanParams::Op::exact_sum)
    return exact_scan_scratch_bytes(b);
  const index_t segments = scan_segments(b);
  return segments > 1 ? static_cast<std::size_t>(b.outer * segments) * dtype_size(dtype) : 0;
}

/// Writes into `out` (device) the scan of `in` (`b.size()` values of `dtype`: int64, float or
/// double) along the axis of `b`, each element combined with the carry, row b.carry_length - 1
/// of `carry` (unused when b.carry_length is 0), on `stream`. `scratch` holds
/// scan_scratch_bytes(op, b, dtype) bytes. An exact cumsum (Op::exact_sum) is exact_scan_block's.
///
/// Order of operations. Along the last axis each row is scanned by cub::BlockScan (its default
/// raking algorithm) over tiles of a fixed size, tile prefixes folded in tile order, and rows
/// longer than scan_segment in fixed segments whose totals are then scanned in order: the
/// association is a function of the row length alone, so results are the same on every run and
/// every GPU, but float sums may differ in the last bits from the CPU's strictly sequential
/// loop. cub::DeviceScan is not used: its decoupled look-back combines tile prefixes in an order
/// that depends on timing, which is fine for integers but not for floats. Along any other axis
/// each thread walks one column down the axis in index order, exactly as the CPU does. Integer
/// results are exact (int64 wraps) everywhere.
void scan_block(graph::ScanParams::Op op, DType dtype, const plan::ScanBlock& b, const void* in,
                const void* carry, void* out, void* scratch, const Stream& stream);

} // namespace chunked::cuda
