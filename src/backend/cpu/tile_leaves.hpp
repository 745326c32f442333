// SPDX-License-Identifier: Apache-2.0
// How the CPU tile interpreter fills a tile buffer with a leaf's values: one loop per (leaf kind,
// dtype), chosen when a program is compiled.
#pragma once

#include "plan/block_program.hpp"
#include <chunked/core/dtype.hpp>
#include <chunked/core/types.hpp>

#include <cstddef>

namespace chunked::cpu {

/// Writes the leaf's values at offsets offset, offset + step, ... (len of them) to `out`;
/// `input` is the stored leaf's buffer (null for generated leaves).
using LeafFill = void (*)(const plan::Leaf& leaf, const void* input, index_t offset, index_t step,
                          index_t len, void* out);

/// The fill loop of a leaf of kind `kind` and dtype `t`; null for constants (filled once per
/// block by fill_constant).
LeafFill select_fill(plan::LeafKind kind, DType t);

/// n copies of a constant leaf's value.
void fill_constant(const plan::Leaf& leaf, void* out, index_t n);

/// The values a leaf gives every tile when it reads the same values in every tile: it varies only
/// along the axes from `from` on, whose extents multiply to `period`, and tiles hold a whole
/// number of periods (x - x.mean(Axes{0}) over column blocks: the mean's row repeats down the
/// block). Stored once per block rather than filled run by run: each tile of a block 64 columns
/// wide would cost two fills of 64 values for every 64 positions computed.
struct InvariantLeaf {
  int from = 0;
  index_t period = 0;
};

/// The smallest period of leaf `l` over the box of `p`, as InvariantLeaf; period 0 when the leaf
/// changes along the outermost axis (or is a constant, which has its own path).
InvariantLeaf invariant_period(const plan::BlockProgram& p, const plan::Leaf& leaf);

/// Fills `tile` positions of `out` with the leaf's values over one period, repeated.
void fill_invariant(const plan::BlockProgram& p, const plan::Leaf& leaf, InvariantLeaf inv,
                    LeafFill fill, const void* input, std::byte* out, std::size_t elem_size,
                    index_t tile);

} // namespace chunked::cpu
