// SPDX-License-Identifier: Apache-2.0
// Reduction partial states on the device: identities, pairwise combining and finalizing, with the
// semantics of the CPU's backend/cpu/partials.hpp.
#pragma once

#include "backend/cuda/runtime.hpp"
#include "plan/partial.hpp"
#include <chunked/core/types.hpp>

#include <span>

namespace chunked::cuda {

/// Writes the identity of `op` over `input` values into entries [0, n) of `words` (device).
void init_partials(plan::ReduceOp op, DType input, void* words, index_t n, const Stream& stream);

/// out[p] = in[0][p] (+) in[1][p] (+) ... (+) in[k-1][p] for p < n, folded left to right (device
/// pointers, earlier blocks first; `out` may alias any of them). One kernel launch folds up to
/// combine_launch_inputs of them, so a combine task costs one launch rather than one per input.
void combine_partials(plan::ReduceOp op, DType input, std::span<const void* const> in, void* out,
                      index_t n, const Stream& stream);

/// Inputs one combine launch folds.
inline constexpr int combine_launch_inputs = 8;

/// Turns n combined entries of `op` into values of reduce_result_dtype(result, input) in `out`
/// (device), by cpu::finalize_partials' rules.
void finalize_partials(plan::ReduceOp op, plan::ReduceOp result, DType input, const void* partials,
                       index_t n, index_t count, index_t ddof, void* out, const Stream& stream);

} // namespace chunked::cuda
