// SPDX-License-Identifier: Apache-2.0
// Splitting large blocks into several tasks (task_split.hpp).
#include "plan/task_split.hpp"

#include <algorithm>
#include <vector>

namespace chunked::plan {

ChunkGrid split_for_tasks(const ChunkGrid& grid, std::uint32_t axes, const TaskSplit& split) {
  index_t blocks = grid.numblocks();
  if (blocks >= split.min_tasks || grid.shape().size() == 0)
    return grid;
  const index_t nd = grid.ndim();
  std::vector<std::vector<index_t>> lengths(static_cast<std::size_t>(nd));
  for (index_t k = 0; k < nd; ++k)
    lengths[k] = grid.lengths(k);
  auto longest = [&](index_t k) { return *std::max_element(lengths[k].begin(), lengths[k].end()); };
  // Outer axes first: their pieces keep the inner rows whole, so each task still reads long
  // contiguous runs.
  for (index_t a = 0; a < nd && blocks < split.min_tasks; ++a) {
    if (!((axes >> a) & 1u))
      continue;
    const index_t along = longest(a);
    index_t inner = 1, largest_block = along;
    for (index_t k = 0; k < nd; ++k) {
      if (k != a)
        largest_block *= longest(k);
      if (k > a)
        inner *= longest(k);
    }
    const index_t by_size = largest_block / std::max<index_t>(1, split.min_task_elements);
    if (by_size <= 1)
      break; // every further cut would make tasks too small
    // A piece of the largest block still reads runs of at least min_run_elements in a row
    // (a block cut along its last axis would otherwise read rows of a few elements).
    const index_t by_run = along * inner / std::max<index_t>(1, split.min_run_elements);
    const index_t most = std::min({along, by_size, std::max<index_t>(by_run, 1)});
    if (most <= 1)
      continue;
    // As many pieces per block as make the grid reach min_tasks: short blocks (a ragged last
    // one) give fewer, and the others make up for them, so that no inner axis needs cutting.
    const index_t others = blocks / static_cast<index_t>(lengths[a].size());
    auto tasks_with = [&](index_t pieces) {
      index_t n = 0;
      for (const index_t length : lengths[a])
        n += std::clamp<index_t>(length, 1, pieces);
      return n * others;
    };
    index_t pieces = std::min(most, (split.min_tasks + blocks - 1) / blocks);
    while (pieces < most && tasks_with(pieces) < split.min_tasks)
      ++pieces;
    std::vector<index_t> cut;
    for (const index_t length : lengths[a]) {
      const index_t p = std::clamp<index_t>(length, 1, pieces);
      for (index_t i = 0; i < p; ++i)
        cut.push_back(length / p + (i < length % p ? 1 : 0));
    }
    blocks = others * static_cast<index_t>(cut.size());
    lengths[a] = std::move(cut);
  }
  return ChunkGrid(std::move(lengths));
}

} // namespace chunked::plan
