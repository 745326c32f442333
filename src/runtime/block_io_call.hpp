// SPDX-License-Identifier: Apache-2.0
// Calling a lazy leaf's source and a written array's sink on one block, for every backend.
#pragma once

#include "plan/plan.hpp"

namespace chunked::runtime {

/// Reads block `block` of load stage `load` into `out` (its block's bytes, C order); a block of
/// no elements is not read. A
/// chunked::Error from the source passes unchanged (it names the file); any other exception
/// derived from std::exception becomes a chunked::Error naming the source, the block and its
/// message; anything else passes unchanged.
void read_block(const plan::LoadStage& load, index_t block, void* out);

/// Hands block `block` of write stage `write`, at `data` in host memory, to its sink; its
/// exceptions pass as read_block's do, named after the written block.
void write_block(const plan::WriteStage& write, index_t block, const void* data);

} // namespace chunked::runtime
