// SPDX-License-Identifier: Apache-2.0
// Node constructors: shape, dtype and chunk-grid inference with eager validation.
#include "core/checked.hpp"
#include <chunked/graph/node.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace chunked::graph {

namespace {

void check_rank(const Shape& shape) {
  if (shape.ndim() > max_ndim)
    throw ValueError("arrays of rank " + std::to_string(shape.ndim()) +
                     " are not supported; the most is " + std::to_string(max_ndim));
}

/// The rank, and bytes within int64 (ValueError): before a grid is cut for the shape.
void check_array(const Shape& shape, DType dtype) {
  check_rank(shape);
  (void)detail::array_nbytes(shape, dtype_size(dtype));
}

/// A node with the link that queues it for deletion.
struct NodeHolder {
  explicit NodeHolder(Node&& n) : node(std::move(n)) {}
  Node node;
  NodeHolder* next = nullptr;
};

/// Deletes nodes without recursing through their inputs: destroying the last reference to a long
/// chain would otherwise nest one destructor per node and overflow the stack. A node whose last
/// reference goes while this thread is already deleting one is queued, and the outermost call
/// deletes the queue in a loop. A deleter runs once the reference count reached zero, so no other
/// thread can reach the node, and the queue is this thread's own; its state is trivially
/// destructible, so nodes released after the thread's other thread_local objects are gone (a
/// static array at exit) still find it.
struct NodeDeleter {
  void operator()(NodeHolder* holder) const noexcept {
    thread_local NodeHolder* queue = nullptr;
    thread_local bool deleting = false;
    if (deleting) {
      holder->next = queue;
      queue = holder;
      return;
    }
    deleting = true;
    delete holder;
    while (queue) {
      NodeHolder* next = queue;
      queue = next->next;
      delete next;
    }
    deleting = false;
  }
};

NodePtr finish(Node n) {
  check_array(n.shape, n.dtype);
  std::shared_ptr<NodeHolder> owner(new NodeHolder(std::move(n)), NodeDeleter{});
  Node* node = &owner->node;
  return NodePtr(std::move(owner), node);
}

} // namespace

NodePtr with_inputs(const Node& n, std::vector<NodePtr> inputs) {
  if (inputs.size() != n.inputs.size())
    throw ValueError("with_inputs: " + std::to_string(inputs.size()) + " inputs for a node of " +
                     std::to_string(n.inputs.size()));
  Node copy = n;
  copy.inputs = std::move(inputs);
  return finish(std::move(copy));
}

namespace {

/// The shape operands of an elementwise operation share (ShapeError when they differ).
Shape operands_shape(std::string_view what, const std::vector<NodePtr>& inputs) {
  const Shape& shape = inputs[0]->shape;
  for (const auto& in : inputs)
    if (in->shape != shape)
      throw ShapeError("elementwise " + std::string(what) + ": operand shapes " +
                       shape.to_string() + " and " + in->shape.to_string() + " differ");
  return shape;
}

/// Per axis, the finest operand grid: broadcast operands have one chunk there, so the real
/// chunking wins; operands of different grids are aligned to it by the planner.
ChunkGrid finest_grid(const std::vector<NodePtr>& inputs) {
  std::vector<std::vector<index_t>> lengths;
  for (index_t k = 0; k < inputs[0]->shape.ndim(); ++k) {
    const std::vector<index_t>* best = &inputs[0]->grid.lengths(k);
    for (const auto& in : inputs)
      if (in->grid.lengths(k).size() > best->size())
        best = &in->grid.lengths(k);
    lengths.push_back(*best);
  }
  return ChunkGrid(std::move(lengths));
}

/// Chunk lengths along one output axis of a view: consecutive output positions that read the
/// same source block form one chunk, as Dask does for sliced arrays.
std::vector<index_t> view_axis_lengths(const ChunkGrid& src, int axis, index_t start, index_t step,
                                       index_t length) {
  if (length == 0)
    return {0};
  if (axis < 0 || step == 0)
    return {length};
  std::vector<index_t> out;
  const auto& off = src.offsets(axis);
  index_t i = 0;
  while (i < length) {
    const index_t pos = start + step * i;
    const index_t b = src.block_containing(axis, pos);
    // Positions pos, pos + step, ... that stay in block b. Written so that no step, however
    // large (an INT64_MAX step keeps one element), overflows: off[b + 1] > pos >= off[b].
    const index_t in_block =
        step > 0 ? (off[b + 1] - pos - 1) / step + 1 : 1 - (pos - off[b]) / step;
    const index_t n = std::min(in_block, length - i);
    out.push_back(n);
    i += n;
  }
  return out;
}

/// Checks that a view reads only positions inside its input and that its integer indices are in
/// range (ValueError), and gives axes of at most one element step 1 and empty axes start 0: any
/// step reads the same there. The planner composes index maps from these starts and steps, and
/// with them every coefficient and offset it forms stays within the input's extents.
void normalize_view(ViewParams& v, const Shape& input) {
  const index_t src_nd = input.ndim();
  std::vector<bool> read(static_cast<std::size_t>(src_nd), false);
  for (std::size_t k = 0; k < v.length.size(); ++k) {
    if (v.source[k] < -1 || v.source[k] >= src_nd || v.length[k] < 0)
      throw ValueError("malformed view parameters: output axis " + std::to_string(k) +
                       " reads axis " + std::to_string(v.source[k]) + " of an input of rank " +
                       std::to_string(src_nd) + " with length " + std::to_string(v.length[k]));
    if (v.source[k] < 0)
      continue;
    read[static_cast<std::size_t>(v.source[k])] = true;
    if (v.length[k] <= 1)
      v.step[k] = 1;
    if (v.length[k] == 0)
      v.start[k] = 0;
    if (v.length[k] == 0)
      continue;
    const index_t extent = input.extents()[static_cast<std::size_t>(v.source[k])];
    index_t span = 0, last = 0;
    if (detail::mul_overflows(v.step[k], v.length[k] - 1, span) ||
        detail::add_overflows(v.start[k], span, last) || v.start[k] < 0 || v.start[k] >= extent ||
        last < 0 || last >= extent)
      throw ValueError("malformed view parameters: output axis " + std::to_string(k) +
                       " of length " + std::to_string(v.length[k]) + " reads from " +
                       std::to_string(v.start[k]) + " in steps of " + std::to_string(v.step[k]) +
                       ", outside [0, " + std::to_string(extent) + ") of input " +
                       input.to_string());
  }
  for (std::size_t d = 0; d < read.size(); ++d) {
    const index_t f = v.fixed[d];
    if (read[d] ? f != -1 : f < 0 || f >= input.extents()[d])
      throw ValueError("malformed view parameters: input axis " + std::to_string(d) + " of " +
                       input.to_string() + " fixed at " + std::to_string(f));
  }
}

/// What NumPy does with an operation chunked does not define on bools, for its error message.
std::string bool_hint(ops::OpCode op) {
  switch (op) {
  case ops::OpCode::sub:
    return " (NumPy rejects it too; use ^ on bools)";
  case ops::OpCode::neg:
    return " (NumPy rejects it too; use ~ on bools)";
  case ops::OpCode::sign:
    return " (NumPy rejects it too)";
  case ops::OpCode::mod:
  case ops::OpCode::pow:
  case ops::OpCode::fmod:
  case ops::OpCode::square:
  case ops::OpCode::reciprocal:
    return " (NumPy computes it in int8, which chunked does not have; cast the operands to an "
           "integer type first)";
  case ops::OpCode::round:
    return " (NumPy computes it in float16, which chunked does not have; cast to a floating type "
           "first)";
  default:
    return "";
  }
}

} // namespace

NodePtr make_random(const Shape& shape, const std::vector<index_t>& chunks, DType dtype,
                    RandomParams p) {
  check_array(shape, dtype);
  if (p.dist == ops::LeafKind::integers) {
    if (!is_integral(dtype))
      throw ValueError("Generator::integers needs an int32 or int64 element type, got " +
                       std::string(dtype_name(dtype)));
    if (p.b.i <= p.a.i)
      throw ValueError("Generator::integers: low (" + std::to_string(p.a.i) +
                       ") must be below high (" + std::to_string(p.b.i) + ")");
  } else if (!is_floating(dtype)) {
    throw ValueError("Generator::normal and uniform need a float or double element type, got " +
                     std::string(dtype_name(dtype)));
  }
  if (p.dist == ops::LeafKind::normal && !(p.b.f >= 0))
    throw ValueError("Generator::normal: stddev must be >= 0, got " + std::to_string(p.b.f));
  // [low, high) must be a finite interval, as NumPy's Generator.uniform asks (it raises on an
  // infinite range); an empty one (low == high) gives low.
  if (p.dist == ops::LeafKind::uniform &&
      !(std::isfinite(p.a.f) && std::isfinite(p.b.f) && p.a.f <= p.b.f))
    throw ValueError(fmt::format("Generator::uniform: low and high must be finite with low <= "
                                 "high, got low {} and high {}",
                                 p.a.f, p.b.f));
  return finish(Node{NodeKind::random, dtype, shape, ChunkGrid(shape, chunks), {}, p});
}

NodePtr make_constant(const Shape& shape, const std::vector<index_t>& chunks, DType dtype,
                      ops::Scalar value) {
  check_array(shape, dtype);
  return finish(
      Node{NodeKind::constant, dtype, shape, ChunkGrid(shape, chunks), {}, ConstantParams{value}});
}

NodePtr make_arange(index_t length, index_t chunk, DType dtype, ops::Scalar start,
                    ops::Scalar step) {
  if (chunk <= 0)
    throw ValueError("arange: chunk length must be > 0, got " + std::to_string(chunk));
  if (dtype == DType::bool_)
    throw ValueError("arange does not support bool elements");
  Shape shape{length};
  check_array(shape, dtype);
  const index_t c = std::max<index_t>(1, std::min(chunk, length));
  return finish(Node{NodeKind::arange,
                     dtype,
                     shape,
                     ChunkGrid(shape, std::vector<index_t>{c}),
                     {},
                     ArangeParams{start, step}});
}

bool is_borrowed(const Node& n) {
  return n.kind == NodeKind::stored && n.as<StoredParams>().data->borrowed != nullptr;
}

NodePtr make_stored(std::shared_ptr<const StoredData> data) {
  Shape shape = data->grid.shape();
  check_rank(shape);
  DType t = data->dtype;
  ChunkGrid g = data->grid;
  return finish(
      Node{NodeKind::stored, t, std::move(shape), std::move(g), {}, StoredParams{std::move(data)}});
}

NodePtr make_source(DType dtype, ChunkGrid grid, std::shared_ptr<const BlockSource> source) {
  if (!source)
    throw ValueError("make_source: the block source is null; expected the source of the "
                     "leaf's blocks");
  Shape shape = grid.shape();
  check_array(shape, dtype);
  return finish(Node{NodeKind::source,
                     dtype,
                     std::move(shape),
                     std::move(grid),
                     {},
                     SourceParams{std::move(source)}});
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const index_t nd = std::max(a.ndim(), b.ndim());
  std::vector<index_t> out(static_cast<std::size_t>(nd));
  for (index_t k = 0; k < nd; ++k) {
    const index_t ia = k - (nd - a.ndim()), ib = k - (nd - b.ndim());
    const index_t ea = ia >= 0 ? a.extents()[ia] : 1, eb = ib >= 0 ? b.extents()[ib] : 1;
    if (ea != eb && ea != 1 && eb != 1)
      throw ShapeError("shapes " + a.to_string() + " and " + b.to_string() +
                       " cannot be broadcast");
    out[k] = ea == 1 ? eb : ea;
  }
  return Shape(std::move(out));
}

NodePtr broadcast_to(NodePtr input, const Shape& shape) {
  if (input->shape == shape)
    return input;
  const index_t nd = shape.ndim(), lead = nd - input->shape.ndim();
  bool fits = lead >= 0;
  for (index_t d = 0; fits && d < input->shape.ndim(); ++d) {
    const index_t n = input->shape.extents()[d];
    fits = n == 1 || n == shape.extents()[d + lead];
  }
  if (!fits)
    throw ShapeError("shape " + input->shape.to_string() + " cannot be broadcast to " +
                     shape.to_string() +
                     "; expected at most as many axes as the target, each of length 1 or the "
                     "target's length on the axis it aligns with from the last one");
  ViewParams v;
  v.fixed.assign(static_cast<std::size_t>(input->shape.ndim()), -1);
  for (index_t k = 0; k < nd; ++k) {
    const index_t d = k - lead;
    v.length.push_back(shape.extents()[k]);
    v.source.push_back(d >= 0 ? static_cast<int>(d) : -1);
    v.start.push_back(0);
    v.step.push_back(d >= 0 && input->shape.extents()[d] == shape.extents()[k] ? 1 : 0);
  }
  return make_view(std::move(input), std::move(v));
}

NodePtr make_elementwise(ops::OpCode op, DType result, std::vector<NodePtr> inputs) {
  if (static_cast<int>(inputs.size()) != ops::op_arity(op))
    throw ValueError("elementwise " + std::string(ops::op_name(op)) + " given " +
                     std::to_string(inputs.size()) + " operands");
  // where's condition is bool; its values (operands 1, 2) carry the dtype the op works in.
  const DType operand = op == ops::OpCode::where ? inputs[1]->dtype : inputs[0]->dtype;
  if (op == ops::OpCode::where && inputs[0]->dtype != DType::bool_)
    throw ValueError("where: the condition must be bool, got " +
                     std::string(dtype_name(inputs[0]->dtype)));
  for (std::size_t j = op == ops::OpCode::where ? 1 : 0; j < inputs.size(); ++j)
    if (inputs[j]->dtype != operand)
      throw ValueError("elementwise " + std::string(ops::op_name(op)) + ": operand dtypes " +
                       std::string(dtype_name(operand)) + " and " +
                       std::string(dtype_name(inputs[j]->dtype)) + " differ (cast first)");
  if (!ops::op_accepts(op, operand))
    throw ValueError(std::string(ops::op_name(op)) + " is not defined for " +
                     std::string(dtype_name(operand)) + " operands" +
                     (operand == DType::bool_ ? bool_hint(op) : ""));
  if (op != ops::OpCode::cast && ops::op_result_dtype(op, operand) != result)
    throw ValueError("elementwise " + std::string(ops::op_name(op)) + " on " +
                     std::string(dtype_name(operand)) + " gives " +
                     std::string(dtype_name(ops::op_result_dtype(op, operand))) + ", not " +
                     std::string(dtype_name(result)));
  const Shape shape = operands_shape(ops::op_name(op), inputs);
  ChunkGrid grid = finest_grid(inputs);
  return finish(Node{NodeKind::elementwise, result, shape, std::move(grid), std::move(inputs),
                     ElementwiseParams{op, nullptr}});
}

NodePtr make_call(std::shared_ptr<const ops::UserFunction> fn, std::vector<NodePtr> inputs) {
  if (inputs.size() != fn->params.size())
    throw ValueError(fmt::format("ElementwiseFunction {} takes {} arguments, given {}", fn->name,
                                 fn->params.size(), inputs.size()));
  for (std::size_t j = 0; j < inputs.size(); ++j)
    if (inputs[j]->dtype != fn->params[j])
      throw ValueError(fmt::format("ElementwiseFunction {}: argument {} is {}, expected {}",
                                   fn->name, j, dtype_name(inputs[j]->dtype),
                                   dtype_name(fn->params[j])));
  const Shape shape = operands_shape(fn->name, inputs);
  ChunkGrid grid = finest_grid(inputs);
  const DType result = fn->result;
  return finish(Node{NodeKind::elementwise, result, shape, std::move(grid), std::move(inputs),
                     ElementwiseParams{ops::OpCode::cast, std::move(fn)}});
}

NodePtr cast(NodePtr input, DType dtype) {
  if (input->dtype == dtype)
    return input;
  return make_elementwise(ops::OpCode::cast, dtype, {std::move(input)});
}

NodePtr make_view(NodePtr input, ViewParams v) {
  const std::size_t nd = v.length.size();
  const index_t src_nd = input->shape.ndim();
  if (v.source.size() != nd || v.start.size() != nd || v.step.size() != nd ||
      v.fixed.size() != static_cast<std::size_t>(src_nd))
    throw ValueError("malformed view parameters");
  Shape shape(v.length);
  check_rank(shape);
  normalize_view(v, input->shape);
  std::vector<std::vector<index_t>> lengths(nd);
  for (std::size_t k = 0; k < nd; ++k)
    lengths[k] = view_axis_lengths(input->grid, v.source[k], v.start[k], v.step[k], v.length[k]);
  DType t = input->dtype;
  return finish(Node{NodeKind::view,
                     t,
                     std::move(shape),
                     ChunkGrid(std::move(lengths)),
                     {std::move(input)},
                     std::move(v)});
}

NodePtr make_rechunk(NodePtr input, const std::vector<index_t>& chunks) {
  ChunkGrid g(input->shape, chunks);
  DType t = input->dtype;
  Shape s = input->shape;
  return finish(
      Node{NodeKind::rechunk, t, std::move(s), std::move(g), {std::move(input)}, RechunkParams{}});
}

NodePtr make_rechunk(NodePtr input, ChunkGrid grid) {
  if (grid.shape() != input->shape)
    throw ShapeError("internal: rechunk grid " + grid.to_string() + " does not cover shape " +
                     input->shape.to_string());
  DType t = input->dtype;
  Shape s = input->shape;
  return finish(Node{
      NodeKind::rechunk, t, std::move(s), std::move(grid), {std::move(input)}, RechunkParams{}});
}

NodePtr make_contract(NodePtr a, NodePtr b, ContractParams p) {
  const index_t nb = p.batch, nm = p.m, nk = p.k, nn = p.n;
  if (nb < 0 || nm < 0 || nk < 0 || nn < 0 || a->shape.ndim() != nb + nm + nk ||
      b->shape.ndim() != nb + nk + nn || nb + nm + nn > max_ndim)
    throw ValueError("internal: contract axis counts do not match the operands' ranks");
  if (a->dtype != b->dtype || !is_floating(a->dtype))
    throw ValueError("internal: contract operands must both be float or both double");
  std::vector<std::vector<index_t>> lengths;
  auto same_axis = [&](index_t ka, index_t kb) {
    if (a->grid.lengths(ka) != b->grid.lengths(kb))
      throw ValueError("internal: contract operands are not aligned along axes " +
                       std::to_string(ka) + " and " + std::to_string(kb));
  };
  for (index_t k = 0; k < nb; ++k) {
    same_axis(k, k);
    lengths.push_back(a->grid.lengths(k));
  }
  for (index_t k = 0; k < nk; ++k)
    same_axis(nb + nm + k, nb + k);
  for (index_t k = 0; k < nm; ++k)
    lengths.push_back(a->grid.lengths(nb + k));
  for (index_t k = 0; k < nn; ++k)
    lengths.push_back(b->grid.lengths(nb + nk + k));
  ChunkGrid grid(std::move(lengths));
  Shape shape = grid.shape();
  const DType t = a->dtype;
  return finish(Node{
      NodeKind::contract, t, std::move(shape), std::move(grid), {std::move(a), std::move(b)}, p});
}

NodePtr make_reduce(NodePtr input, ReduceParams p) {
  const index_t nd = input->shape.ndim();
  std::vector<bool> reduced(static_cast<std::size_t>(nd), false);
  for (index_t& a : p.axes) {
    a = normalize_axis(a, nd);
    if (reduced[a])
      throw ValueError("axis " + std::to_string(a) + " is given more than once to " +
                       std::string(ops::reduce_op_name(p.op)));
    reduced[a] = true;
  }
  std::sort(p.axes.begin(), p.axes.end());
  if (ops::reduce_needs_elements(p.op))
    for (index_t a : p.axes)
      if (input->shape.extents()[a] == 0)
        throw ValueError("zero-size array to reduction operation " +
                         std::string(ops::reduce_op_name(p.op)) + " which has no identity (axis " +
                         std::to_string(a) + " of shape " + input->shape.to_string() + ")");
  std::vector<index_t> extents;
  std::vector<std::vector<index_t>> lengths;
  for (index_t k = 0; k < nd; ++k) {
    if (!reduced[k]) {
      extents.push_back(input->shape.extents()[k]);
      lengths.push_back(input->grid.lengths(k));
    } else if (p.keepdims) {
      extents.push_back(1);
      lengths.push_back({1});
    }
  }
  const DType t = ops::reduce_result_dtype(p.op, input->dtype);
  return finish(Node{NodeKind::reduce,
                     t,
                     Shape(std::move(extents)),
                     ChunkGrid(std::move(lengths)),
                     {std::move(input)},
                     std::move(p)});
}

NodePtr make_assemble(std::vector<NodePtr> inputs, Shape shape, ChunkGrid grid, AssembleParams p) {
  if (inputs.empty())
    throw ValueError("internal: an assemble node needs at least one input");
  const DType t = inputs[0]->dtype;
  for (const auto& in : inputs)
    if (in->dtype != t)
      throw ValueError("internal: assemble inputs of different dtypes");
  if (grid.shape() != shape)
    throw ShapeError("internal: assemble grid " + grid.to_string() + " does not cover shape " +
                     shape.to_string());
  return finish(
      Node{NodeKind::assemble, t, std::move(shape), std::move(grid), std::move(inputs), p});
}

NodePtr make_scan(NodePtr input, ScanParams p) {
  p.axis = normalize_axis(p.axis, input->shape.ndim());
  const DType t = input->dtype;
  if (t != DType::int64 && !is_floating(t))
    throw ValueError("scans accumulate int64, float or double values, got " +
                     std::string(dtype_name(t)) + " (cast bool and int32 to int64 first)");
  Shape s = input->shape;
  ChunkGrid g = input->grid;
  return finish(Node{NodeKind::scan, t, std::move(s), std::move(g), {std::move(input)}, p});
}

NodePtr make_user(DType result, ChunkGrid grid, std::vector<NodePtr> inputs, UserParams p) {
  if (grid.blocks_per_axis() != p.input_grid.blocks_per_axis())
    throw ShapeError("internal: a user function's output grid " + grid.to_string() +
                     " and input grid " + p.input_grid.to_string() + " differ in blocks");
  for (const NodePtr& in : inputs)
    if (in->shape != p.input_grid.shape())
      throw ShapeError("internal: a user function's input of shape " + in->shape.to_string() +
                       " is not of its input grid's shape " + p.input_grid.shape().to_string());
  Shape shape = grid.shape();
  return finish(Node{NodeKind::user, result, std::move(shape), std::move(grid), std::move(inputs),
                     std::move(p)});
}

} // namespace chunked::graph
