// SPDX-License-Identifier: Apache-2.0
// Reduction partial states on the device: identities, pairwise combining and finalizing, with the
// semantics of the CPU's backend/cpu/partials.hpp.
#pragma once

#include <chunked/backend/cuda/runtime.hpp>
#include <chunked/core/types.hpp>
#include <chunked/plan/partial.hpp>

namespace chunked::cuda {

/// Writes the identity of `op` over `input` values into entries [0, n) of `words` (device).
void init_partials(plan::ReduceOp op, DType input, void* words, index_t n, const Stream& stream);

/// out[p] = a[p] (+) b[p] for p < n (device pointers; `out` may alias `a` or `b`); `a` holds the
/// earlier blocks.
void combine_partials(plan::ReduceOp op, DType input, const void* a, const void* b, void* out,
                      index_t n, const Stream& stream);

/// Turns n combined entries of `op` into values of reduce_result_dtype(result, input) in `out`
/// (device), by cpu::finalize_partials' rules.
void finalize_partials(plan::ReduceOp op, plan::ReduceOp result, DType input, const void* partials,
                       index_t n, index_t count, index_t ddof, void* out, const Stream& stream);

} // namespace chunked::cuda
