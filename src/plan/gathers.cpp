// SPDX-License-Identifier: Apache-2.0
// Gathers: a read spanning several blocks of a materialised node copies its bounding box out of
// each block into one C-order buffer, a copy program per block, once per (node, box) in a plan.
#include "planner.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

namespace chunked::plan::detail {

namespace {

/// The copy of the part of block `bi` of `src` inside the box at `lo` of extents `rext` into the
/// C-order buffer of that box.
BlockProgram gather_copy(const graph::Node& src, const std::vector<index_t>& bi,
                         const std::vector<index_t>& lo, const std::vector<index_t>& rext) {
  const std::size_t nd = lo.size();
  const auto boff = src.grid.block_offset(bi);
  const auto bext = src.grid.block_shape(bi).extents();
  std::array<index_t, max_ndim> from_block{}, from_box{};
  BlockProgram cp;
  cp.ndim = static_cast<int>(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    const index_t ilo = std::max(lo[d], boff[d]);
    const index_t ihi = std::min(lo[d] + rext[d], boff[d] + bext[d]);
    cp.extent[d] = ihi - ilo;
    from_block[d] = ilo - boff[d];
    from_box[d] = ilo - lo[d];
  }
  Leaf leaf;
  leaf.kind = LeafKind::stored;
  leaf.dtype = src.dtype;
  leaf.input = 0;
  leaf.map = shifted(c_order(bext).map, from_block, cp.ndim);
  cp.leaves.push_back(leaf);
  cp.sink.kind = Sink::Kind::store;
  cp.sink.map = shifted(c_order(rext).map, from_box, cp.ndim);
  return cp;
}

} // namespace

TaskId Planner::add_gather(const graph::Node& src, const std::vector<index_t>& lo,
                           const std::vector<index_t>& rext, const std::vector<index_t>& blo,
                           const std::vector<index_t>& bhi) {
  auto key = std::make_tuple(&src, lo, rext);
  if (auto it = gathers_.find(key); it != gathers_.end())
    return it->second;
  std::vector<GatherPiece> pieces;
  std::vector<TaskId> deps;
  std::vector<index_t> bi(blo);
  do {
    GatherPiece piece;
    piece.source = block_ref(src, src.grid.block_number(bi));
    if (piece.source.kind == InputRef::Kind::task)
      deps.push_back(piece.source.task);
    piece.program = gather_copy(src, bi, lo, rext);
    pieces.push_back(std::move(piece));
  } while (next_in_box(bi, blo, bhi));
  plan.gathers.push_back(std::move(pieces));
  Task t;
  t.kind = TaskKind::gather;
  t.index = static_cast<std::uint32_t>(plan.gathers.size() - 1);
  t.output = Output{Output::Kind::buffer, src.dtype, c_order(rext).elements, -1};
  const TaskId id = add_task(t, std::move(deps));
  gathers_.emplace(std::move(key), id);
  return id;
}

} // namespace chunked::plan::detail
