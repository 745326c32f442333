// SPDX-License-Identifier: Apache-2.0
// The planner pass of assemble nodes (reshape, concatenate): for each output block, the list of
// rectangular copies from the inputs' blocks that fill it (planner internals).
#pragma once

#include "plan/block_program.hpp"
#include <chunked/graph/node.hpp>

#include <array>
#include <vector>

namespace chunked::plan::detail {

/// One copy of an assemble task: a box of `ndim` axes (outermost first) read from block `block`
/// of input `operand` at offset `src + sum_k src_stride[k] * i_k` of that block's C-order buffer
/// and written at `dst + sum_k dst_stride[k] * i_k` of the output block's C-order buffer.
struct CopyPiece {
  int operand = 0;
  index_t block = 0;
  int ndim = 1;
  std::array<index_t, max_ndim> extent{};
  index_t src = 0;
  std::array<index_t, max_ndim> src_stride{};
  index_t dst = 0;
  std::array<index_t, max_ndim> dst_stride{};

  index_t elements() const {
    index_t n = 1;
    for (int k = 0; k < ndim; ++k)
      n *= extent[k];
    return n;
  }
};

/// The copies that fill block `block` (C-order number in n's grid) of assemble node `n`: each
/// output element written exactly once, none for an empty block. Pieces of one input block come
/// together, merged into as few boxes as their strides allow (a run repeated at a constant
/// distance in both buffers becomes one more axis; axes contiguous in both buffers fold into
/// one), so a block that reads a whole input block in its own layout is one 1-D piece.
///
/// Reshape: the output block's rows (its last axis) are runs of consecutive C-order positions;
/// each row is cut where it leaves an input block along the input's last axis, or wraps to the
/// next input row, and the runs are merged as above. Concatenate: the block's box, shifted into
/// the input that holds it along the axis, intersected with that input's blocks.
std::vector<CopyPiece> assemble_pieces(const graph::Node& n, index_t block);

/// Whether `pieces` (of an output block of `elements` values) is one copy of a whole input block
/// of the same size in its own layout: then the output block is that buffer, unchanged.
bool is_whole_block(const std::vector<CopyPiece>& pieces, index_t elements, const graph::Node& n);

/// The copy program of a piece (one stored leaf, input 0, store sink), as gathers run them.
BlockProgram copy_program(const CopyPiece& piece, DType dtype);

} // namespace chunked::plan::detail
