// SPDX-License-Identifier: Apache-2.0
// matmul, dot and tensordot as one contract node: each operand's axes are permuted (a view) into
// (batch, free, contracted) and (batch, contracted, free) order, cast to the common floating
// type, and rechunked where the two disagree along a shared axis, so that every block product
// pairs whole blocks.
#include <chunked/linalg.hpp>
#include <chunked/shape_ops.hpp>

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

namespace chunked::detail {

namespace {

using graph::NodePtr;

std::string shapes_of(const NodePtr& a, const NodePtr& b) {
  return a->shape.to_string() + " and " + b->shape.to_string();
}

/// The dtype both operands are multiplied in, or a ValueError for integer and bool operands.
DType product_dtype(const char* what, const NodePtr& a, const NodePtr& b) {
  if (!is_floating(a->dtype) || !is_floating(b->dtype))
    throw ValueError(std::string(what) + ": operands of dtypes " +
                     std::string(dtype_name(a->dtype)) + " and " +
                     std::string(dtype_name(b->dtype)) +
                     " are not supported; expected float or double (cast integer and bool "
                     "arrays to a floating type first)");
  return promote(a->dtype, b->dtype);
}

/// Per pair (axis pa[j] of a, axis pb[j] of b), the blocks of the operand with fewer blocks
/// there (a's on a tie) for both: rechunks where they differ.
void align(NodePtr& a, NodePtr& b, const std::vector<index_t>& pa, const std::vector<index_t>& pb) {
  std::vector<std::vector<index_t>> la, lb;
  for (index_t k = 0; k < a->shape.ndim(); ++k)
    la.push_back(a->grid.lengths(k));
  for (index_t k = 0; k < b->shape.ndim(); ++k)
    lb.push_back(b->grid.lengths(k));
  bool ca = false, cb = false;
  for (std::size_t j = 0; j < pa.size(); ++j) {
    auto& x = la[static_cast<std::size_t>(pa[j])];
    auto& y = lb[static_cast<std::size_t>(pb[j])];
    if (x == y)
      continue;
    if (y.size() < x.size()) {
      x = y;
      ca = true;
    } else {
      y = x;
      cb = true;
    }
  }
  if (ca)
    a = graph::make_rechunk(a, ChunkGrid(std::move(la)));
  if (cb)
    b = graph::make_rechunk(b, ChunkGrid(std::move(lb)));
}

/// The contract node of a (batch, m, k axes) and b (batch, k, n axes), cast and aligned.
NodePtr contract(const char* what, NodePtr a, NodePtr b, graph::ContractParams p) {
  const DType t = product_dtype(what, a, b);
  a = graph::cast(std::move(a), t);
  b = graph::cast(std::move(b), t);
  std::vector<index_t> pa, pb;
  for (index_t k = 0; k < p.batch; ++k) {
    pa.push_back(k);
    pb.push_back(k);
  }
  for (index_t k = 0; k < p.k; ++k) {
    pa.push_back(p.batch + p.m + k);
    pb.push_back(p.batch + k);
  }
  align(a, b, pa, pb);
  return graph::make_contract(std::move(a), std::move(b), p);
}

/// The axes of `x` not in `used`, in order.
std::vector<index_t> free_axes(index_t ndim, const std::vector<index_t>& used) {
  std::vector<index_t> out;
  for (index_t k = 0; k < ndim; ++k)
    if (std::find(used.begin(), used.end(), k) == used.end())
      out.push_back(k);
  return out;
}

/// `axes` normalised against x's rank: IndexError out of range, ValueError for a repeat.
std::vector<index_t> normalized(const char* what, const NodePtr& x,
                                const std::vector<index_t>& axes) {
  const index_t nd = x->shape.ndim();
  std::vector<index_t> out;
  for (index_t a : axes) {
    index_t k = 0;
    try {
      k = normalize_axis(a, nd);
    } catch (const IndexError& e) {
      throw IndexError(std::string(what) + ": " + e.what());
    }
    if (std::find(out.begin(), out.end(), k) != out.end())
      throw ValueError(std::string(what) + ": axis " + std::to_string(a) + " is repeated in " +
                       format_tuple(axes) + "; expected each axis at most once");
    out.push_back(k);
  }
  return out;
}

} // namespace

NodePtr tensordot(const NodePtr& a, const NodePtr& b, const std::vector<index_t>& axes_a,
                  const std::vector<index_t>& axes_b) {
  if (axes_a.size() != axes_b.size())
    throw ValueError("tensordot: the axis lists " + format_tuple(axes_a) + " and " +
                     format_tuple(axes_b) +
                     " have different lengths; expected one axis of b "
                     "for each axis of a");
  const std::vector<index_t> ka = normalized("tensordot", a, axes_a);
  const std::vector<index_t> kb = normalized("tensordot", b, axes_b);
  for (std::size_t j = 0; j < ka.size(); ++j) {
    const index_t ea = a->shape.extents()[static_cast<std::size_t>(ka[j])];
    const index_t eb = b->shape.extents()[static_cast<std::size_t>(kb[j])];
    if (ea != eb)
      throw ShapeError("tensordot: shapes " + shapes_of(a, b) + " do not match: axis " +
                       std::to_string(ka[j]) + " of a has " + std::to_string(ea) +
                       " elements, axis " + std::to_string(kb[j]) + " of b has " +
                       std::to_string(eb));
  }
  std::vector<index_t> perm_a = free_axes(a->shape.ndim(), ka);
  const auto m = static_cast<index_t>(perm_a.size());
  perm_a.insert(perm_a.end(), ka.begin(), ka.end());
  std::vector<index_t> perm_b = kb;
  const std::vector<index_t> fb = free_axes(b->shape.ndim(), kb);
  perm_b.insert(perm_b.end(), fb.begin(), fb.end());
  if (m + static_cast<index_t>(fb.size()) > max_ndim)
    throw ValueError("tensordot: the result of shapes " + shapes_of(a, b) + " would have " +
                     std::to_string(m + static_cast<index_t>(fb.size())) + " axes; at most " +
                     std::to_string(max_ndim) + " are supported");
  return contract("tensordot", transpose(a, perm_a), transpose(b, perm_b),
                  {0, m, static_cast<index_t>(ka.size()), static_cast<index_t>(fb.size())});
}

NodePtr tensordot(const NodePtr& a, const NodePtr& b, index_t axes) {
  const index_t na = a->shape.ndim(), nb = b->shape.ndim();
  if (axes < 0 || axes > na || axes > nb)
    throw ValueError("tensordot: axes = " + std::to_string(axes) + " for shapes " +
                     shapes_of(a, b) + "; expected a count from 0 to " +
                     std::to_string(std::min(na, nb)));
  std::vector<index_t> la(static_cast<std::size_t>(axes)), lb(static_cast<std::size_t>(axes));
  std::iota(la.begin(), la.end(), na - axes);
  std::iota(lb.begin(), lb.end(), 0);
  return tensordot(a, b, la, lb);
}

namespace {

/// matmul, its messages starting with `what` (matmul, or dot for the operands they share).
NodePtr matmul_as(const char* what, const NodePtr& a0, const NodePtr& b0) {
  const std::string w(what);
  if (a0->shape.ndim() == 0 || b0->shape.ndim() == 0)
    throw ValueError(w + ": shapes " + shapes_of(a0, b0) +
                     ": a 0-d operand has no matrix axes; expected arrays of rank 1 or more "
                     "(use * to scale)");
  product_dtype(what, a0, b0);
  const bool vec_a = a0->shape.ndim() == 1, vec_b = b0->shape.ndim() == 1;
  NodePtr a = vec_a ? expand_dims(a0, {0}) : a0;
  NodePtr b = vec_b ? expand_dims(b0, {1}) : b0;
  const auto& ea = a->shape.extents();
  const auto& eb = b->shape.extents();
  const index_t k_a = ea.back(), k_b = eb[eb.size() - 2];
  if (k_a != k_b)
    throw ShapeError(w + ": shapes " + shapes_of(a0, b0) + " do not match: a's last axis has " +
                     std::to_string(k_a) + " elements, b's " +
                     (vec_b ? std::string("only axis") : std::string("second-to-last axis")) +
                     " has " + std::to_string(k_b));
  // The batch axes broadcast (NumPy's rules, ShapeError naming both shapes).
  const Shape sa(std::vector<index_t>(ea.begin(), ea.end() - 2));
  const Shape sb(std::vector<index_t>(eb.begin(), eb.end() - 2));
  Shape batch;
  try {
    batch = graph::broadcast_shapes(sa, sb);
  } catch (const ShapeError&) {
    throw ShapeError(w + ": shapes " + shapes_of(a0, b0) + " do not broadcast: batch shapes " +
                     sa.to_string() + " and " + sb.to_string());
  }
  auto with_batch = [&](const NodePtr& x) {
    std::vector<index_t> full = batch.extents();
    const auto& ex = x->shape.extents();
    full.insert(full.end(), ex.end() - 2, ex.end());
    return detail::broadcast_to(x, Shape(std::move(full)));
  };
  const index_t nb = batch.ndim();
  if (nb + 2 > max_ndim)
    throw ValueError(w + ": shapes " + shapes_of(a0, b0) + " have more batch axes than the " +
                     std::to_string(max_ndim) + " axes supported");
  NodePtr c = contract(what, with_batch(a), with_batch(b), {nb, 1, 1, 1});
  std::vector<index_t> drop;
  if (vec_a)
    drop.push_back(nb);
  if (vec_b)
    drop.push_back(c->shape.ndim() - 1);
  return drop.empty() ? c : squeeze(c, Axes(std::move(drop)));
}

} // namespace

NodePtr matmul(const NodePtr& a, const NodePtr& b) { return matmul_as("matmul", a, b); }

NodePtr dot(const NodePtr& a, const NodePtr& b) {
  if (a->shape.ndim() == 0 || b->shape.ndim() == 0) {
    product_dtype("dot", a, b); // a 0-d operand: the caller multiplied; only the dtype check
    return a;
  }
  if (a->shape.ndim() <= 2 && b->shape.ndim() <= 2)
    return matmul_as("dot", a, b);
  const index_t last_b = b->shape.ndim() == 1 ? 0 : b->shape.ndim() - 2;
  if (a->shape.extents().back() != b->shape.extents()[static_cast<std::size_t>(last_b)])
    throw ShapeError("dot: shapes " + shapes_of(a, b) + " do not match: a's last axis has " +
                     std::to_string(a->shape.extents().back()) + " elements, axis " +
                     std::to_string(last_b) + " of b has " +
                     std::to_string(b->shape.extents()[static_cast<std::size_t>(last_b)]));
  return tensordot(a, b, {a->shape.ndim() - 1}, {last_b});
}

} // namespace chunked::detail
