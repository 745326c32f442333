// SPDX-License-Identifier: Apache-2.0
// Calling a source or a sink on one block (block_io_call.hpp).
#include "runtime/block_io_call.hpp"

#include "runtime/user_call.hpp"
#include <chunked/core/error.hpp>

#include <exception>
#include <string>

namespace chunked::runtime {

void read_block(const plan::LoadStage& load, index_t block, void* out) {
  const std::vector<index_t> index = load.grid.block_index(block);
  const std::vector<index_t> lo = load.grid.block_offset(index);
  const Shape shape = load.grid.block_shape(index);
  if (shape.size() == 0)
    return; // an empty array's block: nothing to read
  try {
    load.source->read(index, lo, shape.extents(), out);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    // The block is named so that a failure on one block among thousands can be found.
    throw Error(load.source->describe() + ": reading block " + block_label(index) +
                " failed: " + e.what());
  }
}

void write_block(const plan::WriteStage& write, index_t block, const void* data) {
  const std::vector<index_t> index = write.grid.block_index(block);
  const std::vector<index_t> lo = write.grid.block_offset(index);
  const std::vector<index_t> extent = write.grid.block_shape(index).extents();
  try {
    write.sink->write(index, lo, extent, data);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error("writing block " + block_label(index) + " of an array of shape " +
                write.grid.shape().to_string() + " failed: " + e.what());
  }
}

} // namespace chunked::runtime
