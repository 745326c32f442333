// SPDX-License-Identifier: Apache-2.0
// Strategy direct_store: a contiguous store of an instruction's result computes each tile that is
// one run straight into the output instead of its tile buffer.
#pragma once

#include "backend/cpu/tile_program.hpp"

namespace chunked::cpu::strategy {

/// Whether `tp`, a store not streamed, takes direct_store (sets its fields when it does).
bool choose_direct_store(TileProgram& tp);

} // namespace chunked::cpu::strategy
