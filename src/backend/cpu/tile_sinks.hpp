// SPDX-License-Identifier: Apache-2.0
// How the CPU tile interpreter consumes a tile of results: stores to the output or accumulation
// into partial entries, one loop per (sink, dtype), chosen when a program is compiled.
#pragma once

#include "backend/cpu/tile_reduce.hpp"
#include "plan/block_program.hpp"
#include "plan/partial.hpp"
#include <chunked/core/dtype.hpp>

#include "backend/cpu/interpreter_simd.hpp"
#include "backend/cpu/tile_geometry.hpp"

namespace chunked::cpu {

/// Stores a tile's values to `output` at the offsets `map` gives its runs.
using StoreTile = void (*)(const TileRuns&, const plan::AffineMap&, const void*, void*);

/// Accumulates a tile of n values (and their argmin/argmax indices) into the partial entries;
/// the bool says that every axis is reduced (one entry takes the whole tile).
using ReduceTile = void (*)(const TileRuns&, const plan::AffineMap&, bool, index_t, const void*,
                            const index_t*, plan::PartialWord*);

/// cpu::moments_row of n values of the result dtype into columns of states.
using MomentRow = void (*)(const void* x, index_t n, const MomentColumns& s);

StoreTile select_store(DType t);

/// The accumulator of `op` over values of dtype `t`; the wide min and max of float64 when `wide`
/// is given.
ReduceTile select_reduce(plan::ReduceOp op, DType t, const detail::InterpreterKernels* wide);

MomentRow select_moment_row(DType t);

} // namespace chunked::cpu
