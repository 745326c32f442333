// SPDX-License-Identifier: Apache-2.0
// User block functions (map_blocks, map_overlap): one user task per output block, reading each
// input's block widened by its halo. A halo is gathered from as many neighbouring blocks as it
// spans, and padded at the array's edges by the boundary mode, by the copy programs of one gather
// task: wrapping, mirroring and repeating are index maps of step 1, -1 and 0 into a source block,
// constant padding a constant leaf, so every backend pads with the programs it already runs and
// no whole array is ever materialised. A function that takes strided views reads blocks of
// borrowed memory and of persisted stencils where they lie instead (their halos in the stencil's
// frame), and a persisted stencil's tasks write into its one buffer.
#include "planner.hpp"

#include "plan/borrowed.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace chunked::plan {

std::pair<index_t, index_t> UserStage::halo(const std::vector<index_t>& index, index_t axis) const {
  if (depth.empty())
    return {0, 0};
  const auto k = static_cast<std::size_t>(axis);
  const index_t d = depth[k];
  const index_t off = input_grid.offsets(axis)[static_cast<std::size_t>(index[k])];
  const index_t len = input_grid.lengths(axis)[static_cast<std::size_t>(index[k])];
  const index_t n = input_grid.shape().extents()[k];
  if (boundary.kind != Boundary::Kind::none)
    return {d, d};
  // Dask's "none": no halo beyond the array's edges (a side next to an edge gets none).
  return {std::min(d, off), std::min(d, n - off - len)};
}

Shape UserStage::input_shape(index_t block) const {
  const std::vector<index_t> index = input_grid.block_index(block);
  std::vector<index_t> ext = input_grid.block_shape(index).extents();
  for (index_t k = 0; k < input_grid.ndim(); ++k) {
    const auto [lo, hi] = halo(index, k);
    ext[static_cast<std::size_t>(k)] += lo + hi;
  }
  return Shape(std::move(ext));
}

BlockInfo UserStage::info(index_t block) const {
  BlockInfo info;
  info.block = grid.block_index(block);
  info.offset = grid.block_offset(info.block);
  info.shape = grid.block_shape(info.block);
  return info;
}

std::vector<index_t> user_input_strides(const InputRef& ref, const Shape& shape, bool packed) {
  if (!packed && ref.kind == InputRef::Kind::stored)
    if (const auto* r = dynamic_cast<const BorrowedRegion*>(ref.stored))
      return std::vector<index_t>(r->strides().begin(), r->strides().begin() + shape.ndim());
  return {};
}

chunked::detail::RawView user_destination(const Destination& d, const UserStage& u, index_t block) {
  const std::vector<index_t> idx = u.grid.block_index(block);
  const std::vector<index_t> off = u.grid.block_offset(idx);
  index_t at = 0;
  for (std::size_t k = 0; k < off.size(); ++k)
    at += off[k] * d.strides[k];
  return {static_cast<char*>(d.data) + at * static_cast<index_t>(dtype_size(d.dtype)),
          u.grid.block_shape(idx), d.strides};
}

namespace detail {

namespace {

/// Whether a user function (`fn`, `depth`, `boundary` of UserParams or UserStage) reads input
/// `src` where it lies: src is one buffer of the whole array (borrowed memory, a persisted
/// stencil), fn takes strided views, and every halo it needs is inside the array or in src's
/// frame (filled for this boundary, at least as deep).
template <class P> bool reads_in_place(const graph::Node& src, const P& p) {
  if (!p.fn->strided || !graph::is_borrowed(src))
    return false;
  const bool halo = std::any_of(p.depth.begin(), p.depth.end(), [](index_t d) { return d > 0; });
  if (!halo || p.boundary.kind == Boundary::Kind::none)
    return true; // no halo beyond the array's edges
  const graph::StoredData& data = *src.as<graph::StoredParams>().data;
  if (data.frame.size() != p.depth.size())
    return false;
  for (std::size_t k = 0; k < p.depth.size(); ++k)
    if (p.depth[k] > data.frame[k])
      return false;
  const Boundary& b = data.frame_boundary;
  return p.boundary.kind == b.kind &&
         (b.kind != Boundary::Kind::constant || p.boundary.value == b.value);
}

/// A run of positions along one axis of a padded input buffer and where they come from: `len`
/// positions from `pos` read source block `block` (along this axis) from element `start` with
/// step `step` (1 in order, -1 mirrored, 0 repeated); block -1 is constant padding.
struct AxisRun {
  index_t pos = 0, len = 0;
  index_t block = -1;
  index_t start = 0;
  index_t step = 1;
};

/// Appends the runs of `len` positions from `pos` reading source elements from global index `s`
/// with `step`, cut where they cross blocks of src along `axis`.
void cut_by_blocks(const ChunkGrid& src, index_t axis, index_t pos, index_t len, index_t s,
                   index_t step, std::vector<AxisRun>& out) {
  while (len > 0) {
    const index_t b = src.block_containing(axis, s);
    const index_t boff = src.offsets(axis)[static_cast<std::size_t>(b)];
    const index_t blen = src.lengths(axis)[static_cast<std::size_t>(b)];
    index_t take = len;
    if (step > 0)
      take = std::min(len, boff + blen - s);
    else if (step < 0)
      take = std::min(len, s - boff + 1);
    out.push_back(AxisRun{pos, take, b, s - boff, step});
    pos += take;
    len -= take;
    s += step * take;
  }
}

/// The runs of one axis of the padded buffer for global positions [g0, g1) over an axis of n.
std::vector<AxisRun> axis_runs(const ChunkGrid& src, index_t axis, index_t g0, index_t g1,
                               Boundary boundary) {
  const index_t n = src.shape().extents()[static_cast<std::size_t>(axis)];
  std::vector<AxisRun> runs;
  // Depth is at most n, so one wrap or one mirror reaches every halo position.
  auto outside = [&](index_t pos, index_t len, index_t wrapped, index_t mirrored, index_t edge) {
    if (len <= 0)
      return;
    switch (boundary.kind) {
    case Boundary::Kind::periodic:
      cut_by_blocks(src, axis, pos, len, wrapped, 1, runs);
      break;
    case Boundary::Kind::reflect:
      cut_by_blocks(src, axis, pos, len, mirrored, -1, runs);
      break;
    case Boundary::Kind::nearest:
      cut_by_blocks(src, axis, pos, len, edge, 0, runs);
      break;
    case Boundary::Kind::constant:
    case Boundary::Kind::none: // none has no halo outside (UserStage::halo)
      runs.push_back(AxisRun{pos, len, -1, 0, 0});
      break;
    }
  };
  const index_t left = std::min<index_t>(0, g1) - g0; // positions below 0
  outside(0, left, g0 + n, -g0 - 1, 0);
  const index_t in0 = std::max<index_t>(g0, 0), in1 = std::min(g1, n);
  if (in1 > in0)
    cut_by_blocks(src, axis, in0 - g0, in1 - in0, in0, 1, runs);
  const index_t right0 = std::max(g0, n);
  outside(right0 - g0, g1 - right0, right0 - n, 2 * n - right0 - 1, n - 1);
  return runs;
}

/// `v` as a constant leaf's value of `dtype`.
ops::Scalar scalar_of(double v, DType dtype) {
  ops::Scalar s;
  if (is_floating(dtype))
    s.f = v;
  else if (dtype == DType::bool_)
    s.i = v != 0 ? 1 : 0;
  else
    s.i = static_cast<std::int64_t>(v);
  return s;
}

std::vector<index_t> c_strides(const std::vector<index_t>& ext) {
  std::vector<index_t> st(ext.size(), 1);
  for (std::size_t k = ext.size(); k-- > 1;)
    st[k - 1] = st[k] * ext[k];
  return st;
}

} // namespace

Body Planner::user_reads(const graph::Node& n) {
  Body body;
  for (const graph::NodePtr& in : n.inputs)
    if (!reads_in_place(*in, n.as<graph::UserParams>()))
      body.stored.push_back(StoredLeafInfo{-1, in, {}});
  return body;
}

std::vector<InputRef> Planner::plan_user(const graph::Node& n, int destination) {
  const auto& p = n.as<graph::UserParams>();
  expect_tasks(n, n.grid, 1 + n.inputs.size());
  plan.users.push_back(UserStage{p.fn, n.grid, p.input_grid, p.depth, p.boundary, n.dtype});
  const auto index = static_cast<std::uint32_t>(plan.users.size() - 1);
  std::vector<InputRef> refs;
  for (index_t b = 0; b < n.grid.numblocks(); ++b) {
    std::vector<TaskId> deps;
    const auto begin = static_cast<std::uint32_t>(plan.inputs.size());
    for (const graph::NodePtr& in : n.inputs) {
      const InputRef ref = user_input(*in, plan.users[index], b, deps);
      plan.inputs.push_back(TaskInput{ref, -1, {}, {}});
    }
    const auto end = static_cast<std::uint32_t>(plan.inputs.size());
    const index_t elements = n.grid.block_shape(n.grid.block_index(b)).size();
    const Output out = destination < 0
                           ? Output{Output::Kind::buffer, n.dtype, elements, -1}
                           : Output{Output::Kind::destination, n.dtype, elements, destination};
    const TaskId id = add_task(Task{TaskKind::user, index, b, begin, end, out}, std::move(deps));
    refs.push_back(InputRef{InputRef::Kind::task, id, nullptr});
  }
  return refs;
}

InputRef Planner::user_input(const graph::Node& src, const UserStage& u, index_t block,
                             std::vector<TaskId>& deps) {
  if (reads_in_place(src, u))
    return in_place_region(src, u, block);
  const index_t nd = src.shape.ndim();
  const std::vector<index_t> idx = u.input_grid.block_index(block);
  const std::vector<index_t> off = u.input_grid.block_offset(idx);
  const std::vector<index_t> ext = u.input_grid.block_shape(idx).extents();
  bool direct = true;
  std::vector<std::vector<AxisRun>> runs(static_cast<std::size_t>(nd));
  std::vector<index_t> padded(static_cast<std::size_t>(nd));
  for (index_t k = 0; k < nd; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    const auto [lo, hi] = u.halo(idx, k);
    direct = direct && lo == 0 && hi == 0 && src.grid.lengths(k) == u.input_grid.lengths(k);
    padded[kk] = ext[kk] + lo + hi;
    runs[kk] = axis_runs(src.grid, k, off[kk] - lo, off[kk] + ext[kk] + hi, u.boundary);
  }
  if (direct) { // the block itself, as the input's own program or memory holds it
    const InputRef ref = block_ref(src, src.grid.block_number(idx));
    if (ref.kind == InputRef::Kind::task)
      deps.push_back(ref.task);
    return ref;
  }
  // One copy program per combination of runs across the axes (a box of the padded buffer).
  const std::vector<index_t> pstride = c_strides(padded);
  std::vector<GatherPiece> pieces;
  std::vector<TaskId> gather_deps;
  std::vector<GatherPiece> constants;
  const bool empty = std::any_of(runs.begin(), runs.end(), [](const auto& r) { return r.empty(); });
  std::vector<std::size_t> at(static_cast<std::size_t>(nd), 0);
  while (!empty) {
    GatherPiece piece;
    BlockProgram& cp = piece.program;
    cp.ndim = static_cast<int>(nd);
    bool constant = false;
    std::vector<index_t> bi(static_cast<std::size_t>(nd));
    for (std::size_t k = 0; k < static_cast<std::size_t>(nd); ++k) {
      const AxisRun& r = runs[k][at[k]];
      cp.extent[k] = r.len;
      cp.sink.map.base += r.pos * pstride[k];
      cp.sink.map.coef[k] = pstride[k];
      constant = constant || r.block < 0;
      bi[k] = r.block;
    }
    Leaf leaf;
    leaf.dtype = src.dtype;
    if (constant) {
      leaf.kind = LeafKind::constant;
      leaf.a = scalar_of(u.boundary.value, src.dtype);
    } else {
      leaf.kind = LeafKind::stored;
      leaf.input = 0;
      const std::vector<index_t> bstride = c_strides(src.grid.block_shape(bi).extents());
      for (std::size_t k = 0; k < static_cast<std::size_t>(nd); ++k) {
        const AxisRun& r = runs[k][at[k]];
        leaf.map.base += r.start * bstride[k];
        leaf.map.coef[k] = r.step * bstride[k];
      }
      piece.source = block_ref(src, src.grid.block_number(bi));
      if (piece.source.kind == InputRef::Kind::task)
        gather_deps.push_back(piece.source.task);
    }
    cp.leaves.push_back(leaf);
    cp.sink.kind = Sink::Kind::store;
    (constant ? constants : pieces).push_back(std::move(piece));
    std::size_t k = static_cast<std::size_t>(nd);
    while (k > 0 && ++at[k - 1] == runs[k - 1].size())
      at[--k] = 0;
    if (k == 0)
      break;
  }
  // A constant piece reads no input, but executors bind one: the block's own, read anyway.
  for (GatherPiece& c : constants) {
    c.source = pieces.empty() ? block_ref(src, 0) : pieces.front().source;
    if (c.source.kind == InputRef::Kind::task)
      gather_deps.push_back(c.source.task);
    pieces.push_back(std::move(c));
  }
  plan.gathers.push_back(std::move(pieces));
  Task t;
  t.kind = TaskKind::gather;
  t.index = static_cast<std::uint32_t>(plan.gathers.size() - 1);
  t.output = Output{Output::Kind::buffer, src.dtype, Shape(padded).size(), -1};
  const TaskId id = add_task(t, std::move(gather_deps));
  deps.push_back(id);
  return InputRef{InputRef::Kind::task, id, nullptr};
}

InputRef Planner::in_place_region(const graph::Node& src, const UserStage& u, index_t block) {
  const graph::StoredData& data = *src.as<graph::StoredParams>().data;
  const auto nd = static_cast<std::size_t>(src.shape.ndim());
  const std::vector<index_t> idx = u.input_grid.block_index(block);
  const std::vector<index_t> off = u.input_grid.block_offset(idx);
  const std::vector<index_t> ext = u.input_grid.block_shape(idx).extents();
  std::array<index_t, max_ndim> lo{}, rext{}, strides{};
  for (std::size_t k = 0; k < nd; ++k) {
    const auto [below, above] = u.halo(idx, static_cast<index_t>(k));
    lo[k] = off[k] - below; // below 0 in a stencil's frame
    rext[k] = ext[k] + below + above;
    strides[k] = data.strides[k];
  }
  return borrowed_region(src, lo, rext, strides);
}

} // namespace detail

} // namespace chunked::plan
