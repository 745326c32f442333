// SPDX-License-Identifier: Apache-2.0
// Strategy stream_store: a contiguous store of a block larger than the caches goes out with
// non-temporal stores (stream_copy): ordinary stores would first read every output line from
// memory. Where the result is a float64 add/sub/mul/div or fused pair and a tile is one run, that
// loop writes the output itself with non-temporal stores, so that loads, arithmetic and stores
// overlap in one pass rather than two.
#pragma once

#include "backend/cpu/block_binding.hpp"
#include "backend/cpu/tile_program.hpp"

namespace chunked::cpu::strategy {

/// Store blocks from this size on bypass the caches: well past a core's L2, so the lines written
/// would be evicted before anything read them again.
inline constexpr index_t stream_from_bytes = index_t{4} << 20;

/// Whether `tp`, a store, takes stream_store (sets its fields when it does).
bool choose_stream_store(TileProgram& tp);

/// Sends a tile's values to the output with non-temporal stores.
void stream_tile(const TileProgram& tp, const BlockBinding& b, const TileRuns& runs,
                 const void* values);

} // namespace chunked::cpu::strategy
