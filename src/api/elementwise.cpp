// SPDX-License-Identifier: Apache-2.0
// Elementwise operations as graph nodes: casts to the computing dtype, then broadcasting.
#include <chunked/ops.hpp>

namespace chunked::detail {

graph::NodePtr binary(ops::OpCode op, DType compute, DType result, const graph::NodePtr& a,
                      const graph::NodePtr& b) {
  const Shape shape = graph::broadcast_shapes(a->shape, b->shape);
  return graph::make_elementwise(op, result,
                                 {graph::broadcast_to(graph::cast(a, compute), shape),
                                  graph::broadcast_to(graph::cast(b, compute), shape)});
}

graph::NodePtr unary(ops::OpCode op, DType compute, DType result, const graph::NodePtr& a) {
  return graph::make_elementwise(op, result, {graph::cast(a, compute)});
}

graph::NodePtr where(const graph::NodePtr& cond, DType result, const graph::NodePtr& a,
                     const graph::NodePtr& b) {
  const Shape shape =
      graph::broadcast_shapes(graph::broadcast_shapes(cond->shape, a->shape), b->shape);
  return graph::make_elementwise(ops::OpCode::where, result,
                                 {graph::broadcast_to(cond, shape),
                                  graph::broadcast_to(graph::cast(a, result), shape),
                                  graph::broadcast_to(graph::cast(b, result), shape)});
}

graph::NodePtr scalar(DType t, double f, std::int64_t i) {
  ops::Scalar s;
  if (is_floating(t))
    s.f = f;
  else
    s.i = t == DType::bool_ ? (i != 0 || f != 0) : i;
  return graph::make_constant(Shape(std::vector<index_t>{}), {}, t, s);
}

void scalar_out_of_bounds(const std::string& value, DType t) {
  throw ValueError("integer scalar " + value + " is out of bounds for " +
                   std::string(dtype_name(t)) +
                   ": by NEP 50 a scalar takes the array's type (NumPy raises OverflowError); cast "
                   "the array to a wider type first");
}

} // namespace chunked::detail
