// SPDX-License-Identifier: Apache-2.0
// The planner pass of assemble nodes (assemble.hpp): the copy lists of reshape and concatenate
// blocks, and the assemble tasks built from them.
#include "assemble.hpp"

#include "planner.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace chunked::plan::detail {

namespace {

using graph::AssembleParams;
using graph::Node;

/// C-order strides of a box of extents `ext`.
std::vector<index_t> c_strides(const std::vector<index_t>& ext) {
  std::vector<index_t> s(ext.size(), 1);
  for (std::size_t k = ext.size(); k-- > 1;)
    s[k - 1] = s[k] * ext[k];
  return s;
}

bool same_box(const CopyPiece& a, const CopyPiece& b) {
  if (a.operand != b.operand || a.block != b.block || a.ndim != b.ndim)
    return false;
  for (int k = 0; k < a.ndim; ++k)
    if (a.extent[k] != b.extent[k] || a.src_stride[k] != b.src_stride[k] ||
        a.dst_stride[k] != b.dst_stride[k])
      return false;
  return true;
}

/// Folds neighbouring axes that are contiguous in both buffers into one, and drops axes of
/// extent 1: fewer, longer runs for the copy loops.
void fold(CopyPiece& p) {
  CopyPiece q = p;
  q.ndim = 0;
  for (int k = 0; k < p.ndim; ++k) {
    if (p.extent[k] == 1 && p.ndim > 1)
      continue;
    if (q.ndim > 0) {
      const int j = q.ndim - 1;
      if (q.src_stride[j] == p.extent[k] * p.src_stride[k] &&
          q.dst_stride[j] == p.extent[k] * p.dst_stride[k]) {
        q.extent[j] *= p.extent[k];
        q.src_stride[j] = p.src_stride[k];
        q.dst_stride[j] = p.dst_stride[k];
        continue;
      }
    }
    q.extent[q.ndim] = p.extent[k];
    q.src_stride[q.ndim] = p.src_stride[k];
    q.dst_stride[q.ndim] = p.dst_stride[k];
    ++q.ndim;
  }
  if (q.ndim == 0) {
    q.ndim = 1;
    q.extent[0] = 1;
    q.src_stride[0] = q.dst_stride[0] = 1;
  }
  p = q;
}

/// One pass of merging: runs of consecutive pieces of one box shape, at constant distances in
/// both buffers, become one piece with one more (outer) axis. False when nothing merged.
bool merge_pass(std::vector<CopyPiece>& pieces) {
  std::vector<CopyPiece> out;
  bool merged = false;
  for (std::size_t i = 0; i < pieces.size();) {
    CopyPiece p = pieces[i];
    std::size_t j = i + 1;
    if (p.ndim < max_ndim && j < pieces.size() && same_box(p, pieces[j])) {
      const index_t ds = pieces[j].src - p.src, dd = pieces[j].dst - p.dst;
      while (j + 1 < pieces.size() && same_box(p, pieces[j + 1]) &&
             pieces[j + 1].src - pieces[j].src == ds && pieces[j + 1].dst - pieces[j].dst == dd)
        ++j;
      ++j;
      for (int k = p.ndim; k > 0; --k) {
        p.extent[k] = p.extent[k - 1];
        p.src_stride[k] = p.src_stride[k - 1];
        p.dst_stride[k] = p.dst_stride[k - 1];
      }
      p.extent[0] = static_cast<index_t>(j - i);
      p.src_stride[0] = ds;
      p.dst_stride[0] = dd;
      ++p.ndim;
      fold(p);
      merged = true;
    }
    out.push_back(p);
    i = j;
  }
  pieces = std::move(out);
  return merged;
}

/// Pieces grouped by input block (keeping their order within one), then merged until no pass
/// merges more.
void compress(std::vector<CopyPiece>& pieces) {
  std::stable_sort(pieces.begin(), pieces.end(), [](const CopyPiece& a, const CopyPiece& b) {
    return a.operand != b.operand ? a.operand < b.operand : a.block < b.block;
  });
  for (auto& p : pieces)
    fold(p);
  while (merge_pass(pieces)) {
  }
}

/// The input's block boundaries per axis, looked up without allocating: a reshape block of many
/// rows asks for the input block of every run.
struct InputBlocks {
  std::size_t ndim = 0;
  std::array<std::vector<index_t>, max_ndim> bounds; ///< per axis: block offsets, then the extent
  std::array<index_t, max_ndim> block_stride{};      ///< C-order strides over the block grid

  explicit InputBlocks(const ChunkGrid& grid) : ndim(static_cast<std::size_t>(grid.ndim())) {
    index_t stride = 1;
    for (std::size_t d = ndim; d-- > 0;) {
      const auto& lengths = grid.lengths(static_cast<index_t>(d));
      auto& b = bounds[d];
      b.assign(1, 0);
      for (index_t l : lengths)
        b.push_back(b.back() + l);
      block_stride[d] = stride;
      stride *= static_cast<index_t>(lengths.size());
    }
  }

  /// The run starting at input element `idx`: its block, offset in that block's C-order buffer
  /// and the elements left in the block's row.
  void locate(const std::array<index_t, max_ndim>& idx, CopyPiece& p, index_t& in_row) const {
    std::array<index_t, max_ndim> within{}, extent{};
    p.block = 0;
    for (std::size_t d = 0; d < ndim; ++d) {
      const auto& b = bounds[d];
      const auto k =
          static_cast<std::size_t>(std::upper_bound(b.begin(), b.end(), idx[d]) - b.begin() - 1);
      within[d] = idx[d] - b[k];
      extent[d] = b[k + 1] - b[k];
      p.block += static_cast<index_t>(k) * block_stride[d];
    }
    p.src = 0;
    index_t stride = 1;
    for (std::size_t d = ndim; d-- > 0;) {
      p.src += within[d] * stride;
      stride *= extent[d];
    }
    in_row = ndim == 0 ? 1 : extent[ndim - 1] - within[ndim - 1];
  }
};

/// Runs of one input block in successive output rows, merged while they repeat: the same length
/// at constant distances in both buffers (rows of a reshape block mostly do, possibly every
/// other row when an output row takes part of an input row).
struct RowRuns {
  CopyPiece first;
  index_t rows = 0, ds = 0, dd = 0, last_src = 0, last_dst = 0, last_row = -1;

  bool extend(const CopyPiece& p, index_t row) {
    if (rows == 0 || row == last_row || p.extent[0] != first.extent[0])
      return false;
    const index_t s = p.src - last_src, d = p.dst - last_dst;
    if (rows >= 2 && (s != ds || d != dd))
      return false;
    ds = s;
    dd = d;
    last_src = p.src;
    last_dst = p.dst;
    last_row = row;
    ++rows;
    return true;
  }
  void start(const CopyPiece& p, index_t row) {
    first = p;
    rows = 1;
    last_src = p.src;
    last_dst = p.dst;
    last_row = row;
  }
  void flush(std::vector<CopyPiece>& pieces) {
    if (rows == 0)
      return;
    CopyPiece q = first;
    if (rows > 1) {
      q.ndim = 2;
      q.extent[1] = first.extent[0];
      q.src_stride[1] = q.dst_stride[1] = 1;
      q.extent[0] = rows;
      q.src_stride[0] = ds;
      q.dst_stride[0] = dd;
    }
    pieces.push_back(q);
    rows = 0;
  }
};

/// Adds run `p` of output row `row` to the open runs of its input block: extends the first one
/// not yet extended in this row, or replaces it (flushed) when p does not continue it.
void add_run(std::unordered_map<index_t, std::vector<RowRuns>>& open, const CopyPiece& p,
             index_t row, std::vector<CopyPiece>& pieces) {
  auto& runs = open[p.block];
  for (auto& run : runs) {
    if (run.last_row == row)
      continue;
    if (!run.extend(p, row)) {
      run.flush(pieces);
      run.start(p, row);
    }
    return;
  }
  runs.emplace_back().start(p, row);
}

/// Reshape: the runs of the output block at `boff` of extents `bext`, each within one input
/// block and one input row; runs that repeat from row to row leave as one piece of those rows.
void reshape_runs(const Node& n, const std::vector<index_t>& boff, const std::vector<index_t>& bext,
                  std::vector<CopyPiece>& pieces) {
  const Node& in = *n.inputs[0];
  const InputBlocks blocks(in.grid);
  const auto& iext = in.shape.extents();
  const auto istr = in.shape.strides();
  const auto ostr = n.shape.strides();
  const std::size_t ond = bext.size(), ind = iext.size();
  const index_t row = ond == 0 ? 1 : bext[ond - 1];
  std::vector<index_t> r(ond, 0);
  std::unordered_map<index_t, std::vector<RowRuns>> open;
  std::array<index_t, max_ndim> idx{};
  index_t dst_row = 0, rowno = 0;
  do {
    index_t f = 0;
    for (std::size_t k = 0; k < ond; ++k)
      f += (boff[k] + r[k]) * ostr[k];
    index_t dst = dst_row, left = row;
    while (left > 0) {
      for (std::size_t d = 0; d < ind; ++d)
        idx[d] = (f / istr[d]) % iext[d];
      CopyPiece p;
      index_t in_row = 0;
      blocks.locate(idx, p, in_row);
      p.extent[0] = std::min(left, in_row);
      p.src_stride[0] = p.dst_stride[0] = 1;
      p.dst = dst;
      add_run(open, p, rowno, pieces);
      f += p.extent[0];
      dst += p.extent[0];
      left -= p.extent[0];
    }
    dst_row += row;
    ++rowno;
    // The next row: an odometer over every axis of the block but the last.
    std::size_t k = ond > 0 ? ond - 1 : 0;
    bool more = false;
    while (k-- > 0) {
      if (++r[k] < bext[k]) {
        more = true;
        break;
      }
      r[k] = 0;
    }
    if (!more)
      break;
  } while (true);
  for (auto& [block, runs] : open)
    for (auto& run : runs)
      run.flush(pieces);
}

/// Concatenate: the output block's box, shifted into the input holding it along the axis,
/// intersected with that input's blocks.
void concatenate_boxes(const Node& n, const std::vector<index_t>& boff,
                       const std::vector<index_t>& bext, std::vector<CopyPiece>& pieces) {
  const auto a = static_cast<std::size_t>(n.as<AssembleParams>().axis);
  index_t start = 0;
  std::size_t op = 0;
  while (start + n.inputs[op]->shape.extents()[a] <= boff[a]) {
    start += n.inputs[op]->shape.extents()[a];
    ++op;
  }
  const Node& in = *n.inputs[op];
  const std::size_t nd = bext.size();
  std::vector<index_t> lo(boff), blo(nd), bhi(nd);
  lo[a] -= start;
  for (std::size_t d = 0; d < nd; ++d) {
    blo[d] = in.grid.block_containing(static_cast<index_t>(d), lo[d]);
    bhi[d] = in.grid.block_containing(static_cast<index_t>(d), lo[d] + bext[d] - 1);
  }
  const auto ostr = c_strides(bext);
  std::vector<index_t> bi(blo);
  do {
    const auto ioff = in.grid.block_offset(bi);
    const auto iblk = in.grid.block_shape(bi).extents();
    const auto istr = c_strides(iblk);
    CopyPiece p;
    p.operand = static_cast<int>(op);
    p.block = in.grid.block_number(bi);
    p.ndim = static_cast<int>(nd);
    for (std::size_t d = 0; d < nd; ++d) {
      const index_t from = std::max(lo[d], ioff[d]);
      const index_t to = std::min(lo[d] + bext[d], ioff[d] + iblk[d]);
      p.extent[d] = to - from;
      p.src += (from - ioff[d]) * istr[d];
      p.src_stride[d] = istr[d];
      p.dst += (from - lo[d]) * ostr[d];
      p.dst_stride[d] = ostr[d];
    }
    pieces.push_back(p);
  } while (next_in_box(bi, blo, bhi));
}

} // namespace

std::vector<CopyPiece> assemble_pieces(const Node& n, index_t block) {
  const auto bi = n.grid.block_index(block);
  const auto boff = n.grid.block_offset(bi);
  const auto bext = n.grid.block_shape(bi).extents();
  std::vector<CopyPiece> pieces;
  index_t elements = 1;
  for (index_t e : bext)
    elements *= e;
  if (elements == 0)
    return pieces;
  if (n.as<AssembleParams>().kind == AssembleParams::Kind::reshape)
    reshape_runs(n, boff, bext, pieces);
  else
    concatenate_boxes(n, boff, bext, pieces);
  compress(pieces);
  return pieces;
}

bool is_whole_block(const std::vector<CopyPiece>& pieces, index_t elements, const Node& n) {
  if (pieces.size() != 1)
    return false;
  const CopyPiece& p = pieces[0];
  const Node& in = *n.inputs[static_cast<std::size_t>(p.operand)];
  return p.ndim == 1 && p.src == 0 && p.dst == 0 && p.src_stride[0] == 1 && p.dst_stride[0] == 1 &&
         p.extent[0] == elements &&
         in.grid.block_shape(in.grid.block_index(p.block)).size() == elements;
}

BlockProgram copy_program(const CopyPiece& piece, DType dtype) {
  BlockProgram cp;
  cp.ndim = piece.ndim;
  Leaf leaf;
  leaf.kind = LeafKind::stored;
  leaf.dtype = dtype;
  leaf.input = 0;
  leaf.map.base = piece.src;
  cp.sink.kind = Sink::Kind::store;
  cp.sink.map.base = piece.dst;
  for (int k = 0; k < piece.ndim; ++k) {
    cp.extent[k] = piece.extent[k];
    leaf.map.coef[k] = piece.src_stride[k];
    cp.sink.map.coef[k] = piece.dst_stride[k];
  }
  cp.leaves.push_back(leaf);
  return cp;
}

std::vector<InputRef> Planner::plan_assemble(const graph::NodePtr& n) {
  expect_tasks(*n, n->grid, 1);
  std::vector<InputRef> refs;
  const index_t blocks = n->grid.numblocks();
  refs.reserve(static_cast<std::size_t>(blocks));
  for (index_t b = 0; b < blocks; ++b) {
    const std::vector<CopyPiece> pieces = assemble_pieces(*n, b);
    const index_t elements = n->grid.block_shape(n->grid.block_index(b)).size();
    if (is_whole_block(pieces, elements, *n)) {
      // The output block is an input block as it is: no copy, the consumers read that buffer.
      refs.push_back(
          block_ref(*n->inputs[static_cast<std::size_t>(pieces[0].operand)], pieces[0].block));
      continue;
    }
    std::vector<GatherPiece> copies;
    std::vector<TaskId> deps;
    copies.reserve(pieces.size());
    for (const CopyPiece& p : pieces) {
      GatherPiece g;
      g.source = block_ref(*n->inputs[static_cast<std::size_t>(p.operand)], p.block);
      if (g.source.kind == InputRef::Kind::task)
        deps.push_back(g.source.task);
      g.program = copy_program(p, n->dtype);
      copies.push_back(std::move(g));
    }
    plan.gathers.push_back(std::move(copies));
    Task t;
    t.kind = TaskKind::assemble;
    t.index = static_cast<std::uint32_t>(plan.gathers.size() - 1);
    t.block = b;
    t.output = Output{Output::Kind::buffer, n->dtype, elements, -1};
    refs.push_back(InputRef{InputRef::Kind::task, add_task(t, std::move(deps)), nullptr});
  }
  return refs;
}

} // namespace chunked::plan::detail
