// SPDX-License-Identifier: Apache-2.0
// A TileProgram bound to one block: its maps with the block's bases, its tile buffers and the
// block's input and output pointers. Built by run() once per block, read by the tile loop and the
// strategies.
#pragma once

#include "plan/block_program.hpp"
#include "plan/partial.hpp"

#include "backend/cpu/tile_program.hpp"

#include <cstddef>
#include <span>
#include <vector>

namespace chunked::cpu {

struct BlockBinding {
  const plan::BlockProgram* program = nullptr;
  /// Each leaf's map: the TileProgram's normalized coefficients with the block's base.
  std::vector<plan::AffineMap> leaf_maps;
  plan::AffineMap sink_map, index_map;
  /// Where each value's tile lies: its tile buffer, or the input itself for leaves read in place.
  std::vector<const void*> where;
  /// The input buffer of each leaf step (null for generated leaves).
  std::vector<const void*> step_input;
  /// The output of each instruction step: its tile buffer, or the output for a direct store.
  std::vector<void*> step_out;
  std::byte* slots = nullptr;
  void* output = nullptr;
  plan::PartialWord* partials = nullptr;
  index_t* index = nullptr; ///< argmin/argmax: the tile's indices

  std::byte* slot(int s) const;
  /// Binds `tp` to the block of `p`: maps, buffers (constants and invariant leaves filled),
  /// inputs (throws ValueError for a null stored input) and output.
  void bind(const TileProgram& tp, const plan::BlockProgram& p, std::span<const void* const> inputs,
            void* out);
};

} // namespace chunked::cpu
