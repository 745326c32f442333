// SPDX-License-Identifier: Apache-2.0
// What a program task reads: for each stored leaf of its stage, the block (or gather of blocks)
// holding the box its coordinates cover, and the leaf's index map into that buffer.
#include "planner.hpp"

#include "plan/borrowed.hpp"

#include <vector>

namespace chunked::plan::detail {

using graph::Node;

void Planner::add_program_inputs(std::uint32_t stage, index_t block, std::vector<TaskId>& deps) {
  const Stage& st = plan.stages[stage];
  std::array<index_t, max_ndim> origin{}, extent{};
  block_box(st.grid, block, static_cast<int>(st.grid.ndim()), origin, extent);
  for (const auto& info : stage_reads_[stage]) {
    TaskInput in;
    in.leaf = info.leaf;
    in.ref = graph::is_borrowed(*info.node)
                 ? read_borrowed(info, origin, extent, st.program.ndim, in.map, in.packed)
                 : resolve_read(info, origin, extent, st.program.ndim, in.map, deps);
    plan.inputs.push_back(in);
  }
}

InputRef Planner::read_borrowed(const StoredLeafInfo& info,
                                const std::array<index_t, max_ndim>& origin,
                                const std::array<index_t, max_ndim>& extent, int ndim,
                                AffineMap& map, AffineMap& packed) {
  const Node& src = *info.node;
  const graph::StoredData& data = *src.as<graph::StoredParams>().data;
  const std::size_t nd = info.coords.size();
  bool empty = src.shape.size() == 0;
  for (int k = 0; k < ndim; ++k)
    empty = empty || extent[k] == 0;
  // The region read: the block holding the whole read (shared by its readers, so that a backend
  // copying regions copies each block once), else the read's bounding box.
  std::array<index_t, max_ndim> lo{}, rext{}, start{}, strides{};
  std::vector<index_t> blo(nd), bhi(nd);
  bool single = true;
  for (std::size_t d = 0; d < nd; ++d) {
    strides[d] = data.strides[d];
    if (empty)
      continue;
    const IndexRange r = range_over(info.coords[d], origin, extent, ndim);
    start[d] = r.start;
    lo[d] = r.lo;
    rext[d] = r.hi - r.lo + 1;
    blo[d] = src.grid.block_containing(static_cast<index_t>(d), r.lo);
    bhi[d] = src.grid.block_containing(static_cast<index_t>(d), r.hi);
    single = single && blo[d] == bhi[d];
  }
  if (!empty && single) {
    const auto off = src.grid.block_offset(blo);
    const auto ext = src.grid.block_shape(blo).extents();
    for (std::size_t d = 0; d < nd; ++d) {
      lo[d] = off[d];
      rext[d] = ext[d];
    }
  }
  map = AffineMap{};
  packed = AffineMap{};
  if (!empty) {
    const Layout dense = c_order(std::span<const index_t>(rext.data(), nd));
    for (std::size_t d = 0; d < nd; ++d) {
      AffineMap axis = info.coords[d];
      axis.base = start[d] - lo[d];
      add_scaled(map, strides[d], axis, ndim);
      add_scaled(packed, dense.map.coef[d], axis, ndim);
    }
  }
  return borrowed_region(src, lo, rext, strides);
}

InputRef Planner::borrowed_region(const Node& src, const std::array<index_t, max_ndim>& lo,
                                  const std::array<index_t, max_ndim>& extent,
                                  const std::array<index_t, max_ndim>& strides) {
  const auto nd = static_cast<std::size_t>(src.shape.ndim());
  auto key = std::make_tuple(&src, std::vector<index_t>(lo.begin(), lo.begin() + nd),
                             std::vector<index_t>(extent.begin(), extent.begin() + nd));
  auto [it, fresh] = borrowed_.try_emplace(std::move(key), nullptr);
  if (fresh) {
    auto region = std::make_shared<BorrowedRegion>(src.as<graph::StoredParams>().data->borrowed,
                                                   dtype_size(src.dtype), static_cast<int>(nd), lo,
                                                   extent, strides);
    it->second = region.get();
    plan.borrowed_regions.push_back(std::move(region));
  }
  return InputRef{InputRef::Kind::stored, 0, it->second};
}

InputRef Planner::resolve_read(const StoredLeafInfo& info,
                               const std::array<index_t, max_ndim>& origin,
                               const std::array<index_t, max_ndim>& extent, int ndim,
                               AffineMap& map, std::vector<TaskId>& deps) {
  const Node& src = *info.node;
  const std::size_t nd = info.coords.size();
  bool empty = false;
  for (int k = 0; k < ndim; ++k)
    empty = empty || extent[k] == 0;
  // Per axis of src, the index the box starts from and the least and greatest it reads.
  std::vector<index_t> start(nd), lo(nd), hi(nd);
  for (std::size_t d = 0; d < nd; ++d) {
    const IndexRange r = range_over(info.coords[d], origin, extent, ndim);
    start[d] = r.start;
    lo[d] = r.lo;
    hi[d] = r.hi;
  }
  // The leaf's map into a C-order buffer holding the box of src at region_lo.
  auto read_through = [&](const std::vector<index_t>& region_lo,
                          const std::vector<index_t>& region_extent) {
    const AffineMap strides = c_order(region_extent).map;
    map = AffineMap{};
    for (std::size_t d = 0; d < nd; ++d) {
      AffineMap axis = info.coords[d];
      axis.base = start[d] - region_lo[d];
      add_scaled(map, strides.coef[d], axis, ndim);
    }
  };
  auto read_from = [&](const InputRef& ref) {
    if (ref.kind == InputRef::Kind::task)
      deps.push_back(ref.task);
    return ref;
  };
  if (empty || src.shape.size() == 0) {
    // Nothing is read; any block keeps the pointer valid.
    map = AffineMap{};
    return read_from(empty_read(src));
  }
  std::vector<index_t> blo(nd), bhi(nd);
  bool single = true;
  for (std::size_t d = 0; d < nd; ++d) {
    blo[d] = src.grid.block_containing(static_cast<index_t>(d), lo[d]);
    bhi[d] = src.grid.block_containing(static_cast<index_t>(d), hi[d]);
    single = single && blo[d] == bhi[d];
  }
  if (single) {
    read_through(src.grid.block_offset(blo), src.grid.block_shape(blo).extents());
    return read_from(block_ref(src, src.grid.block_number(blo)));
  }
  // The read spans several blocks: gather its bounding box into one buffer first.
  std::vector<index_t> rext(nd);
  for (std::size_t d = 0; d < nd; ++d)
    rext[d] = hi[d] - lo[d] + 1;
  read_through(lo, rext);
  return read_from(InputRef{InputRef::Kind::task, add_gather(src, lo, rext, blo, bhi), nullptr});
}

} // namespace chunked::plan::detail
