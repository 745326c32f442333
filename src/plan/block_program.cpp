// SPDX-License-Identifier: Apache-2.0
// Names of opcodes and reduce ops, and the text forms of block programs (descriptions, cache keys).
#include <chunked/plan/block_program.hpp>

#include <fmt/format.h>

#include <iterator>

namespace chunked::plan {

std::string_view opcode_name(OpCode op) {
  switch (op) {
  case OpCode::cast:
    return "cast";
  case OpCode::neg:
    return "neg";
  case OpCode::abs:
    return "abs";
  case OpCode::sqrt:
    return "sqrt";
  case OpCode::exp:
    return "exp";
  case OpCode::log:
    return "log";
  case OpCode::log1p:
    return "log1p";
  case OpCode::expm1:
    return "expm1";
  case OpCode::sin:
    return "sin";
  case OpCode::cos:
    return "cos";
  case OpCode::tan:
    return "tan";
  case OpCode::tanh:
    return "tanh";
  case OpCode::isnan:
    return "isnan";
  case OpCode::isfinite:
    return "isfinite";
  case OpCode::bit_not:
    return "bit_not";
  case OpCode::add:
    return "add";
  case OpCode::sub:
    return "sub";
  case OpCode::mul:
    return "mul";
  case OpCode::div:
    return "div";
  case OpCode::mod:
    return "mod";
  case OpCode::pow:
    return "pow";
  case OpCode::minimum:
    return "minimum";
  case OpCode::maximum:
    return "maximum";
  case OpCode::eq:
    return "eq";
  case OpCode::ne:
    return "ne";
  case OpCode::lt:
    return "lt";
  case OpCode::le:
    return "le";
  case OpCode::gt:
    return "gt";
  case OpCode::ge:
    return "ge";
  case OpCode::bit_and:
    return "bit_and";
  case OpCode::bit_or:
    return "bit_or";
  case OpCode::bit_xor:
    return "bit_xor";
  case OpCode::where:
    return "where";
  }
  return "unknown_op";
}

std::string_view reduce_op_name(ReduceOp op) {
  switch (op) {
  case ReduceOp::sum:
    return "sum";
  case ReduceOp::prod:
    return "prod";
  case ReduceOp::min:
    return "min";
  case ReduceOp::max:
    return "max";
  case ReduceOp::any:
    return "any";
  case ReduceOp::all:
    return "all";
  case ReduceOp::mean:
    return "mean";
  case ReduceOp::var:
    return "var";
  case ReduceOp::std:
    return "std";
  case ReduceOp::argmin:
    return "argmin";
  case ReduceOp::argmax:
    return "argmax";
  }
  return "unknown_reduce";
}

namespace {

std::string_view leaf_kind_name(LeafKind kind) {
  switch (kind) {
  case LeafKind::constant:
    return "constant";
  case LeafKind::normal:
    return "normal";
  case LeafKind::uniform:
    return "uniform";
  case LeafKind::integers:
    return "integers";
  case LeafKind::arange:
    return "arange";
  case LeafKind::stored:
    return "stored";
  }
  return "unknown_leaf";
}

void append_map(std::string& s, const AffineMap& m, int ndim) {
  fmt::format_to(std::back_inserter(s), "{}", m.base);
  for (int k = 0; k < ndim; ++k)
    fmt::format_to(std::back_inserter(s), "{:+}*i{}", m.coef[k], k);
}

bool leaf_uses_float_params(const Leaf& leaf) {
  return leaf.kind == LeafKind::normal || leaf.kind == LeafKind::uniform ||
         (is_floating(leaf.dtype) &&
          (leaf.kind == LeafKind::constant || leaf.kind == LeafKind::arange));
}

} // namespace

std::string BlockProgram::describe() const {
  std::string s;
  auto out = std::back_inserter(s);
  fmt::format_to(out, "block program, box (");
  for (int k = 0; k < ndim; ++k)
    fmt::format_to(out, "{}{}", k ? ", " : "", extent[k]);
  fmt::format_to(out, "{})\n", ndim == 1 ? "," : "");
  for (std::size_t l = 0; l < leaves.size(); ++l) {
    const Leaf& leaf = leaves[l];
    fmt::format_to(out, "  v{} = {} {}", l, leaf_kind_name(leaf.kind), dtype_name(leaf.dtype));
    if (leaf.kind == LeafKind::stored)
      fmt::format_to(out, " input {}", leaf.input);
    if (leaf.kind == LeafKind::normal || leaf.kind == LeafKind::uniform ||
        leaf.kind == LeafKind::integers)
      fmt::format_to(out, " seed {} stream {}", leaf.seed, leaf.stream);
    if (leaf.kind == LeafKind::constant)
      leaf_uses_float_params(leaf) ? fmt::format_to(out, " {}", leaf.a.f)
                                   : fmt::format_to(out, " {}", leaf.a.i);
    else if (leaf.kind != LeafKind::stored)
      leaf_uses_float_params(leaf) ? fmt::format_to(out, " a {} b {}", leaf.a.f, leaf.b.f)
                                   : fmt::format_to(out, " a {} b {}", leaf.a.i, leaf.b.i);
    if (leaf.kind != LeafKind::constant) {
      s += " at ";
      append_map(s, leaf.map, ndim);
    }
    s += '\n';
  }
  for (std::size_t j = 0; j < instrs.size(); ++j) {
    const Instr& in = instrs[j];
    fmt::format_to(out, "  v{} = {} {}", leaves.size() + j, opcode_name(in.op),
                   dtype_name(in.dtype));
    for (int a = 0; a < opcode_arity(in.op); ++a)
      fmt::format_to(out, "{}v{}", a ? ", " : " (", in.args[a]);
    s += ")\n";
  }
  if (sink.kind == Sink::Kind::store) {
    s += "  store at ";
    append_map(s, sink.map, ndim);
  } else {
    fmt::format_to(out, "  reduce {} axes 0x{:x} into {} partials at ", reduce_op_name(sink.op),
                   sink.reduced_axes, sink.num_partials);
    append_map(s, sink.map, ndim);
    if (sink.op == ReduceOp::argmin || sink.op == ReduceOp::argmax) {
      s += " index ";
      append_map(s, sink.index_map, ndim);
    }
  }
  s += '\n';
  return s;
}

std::string BlockProgram::structure_key() const {
  std::string s;
  auto out = std::back_inserter(s);
  fmt::format_to(out, "r{}", ndim);
  for (const Leaf& leaf : leaves) {
    fmt::format_to(out, "|L{}.{}", static_cast<int>(leaf.kind), static_cast<int>(leaf.dtype));
    if (leaf.kind == LeafKind::stored)
      fmt::format_to(out, ".{}", leaf.input);
  }
  for (const Instr& in : instrs) {
    fmt::format_to(out, "|I{}.{}", static_cast<int>(in.op), static_cast<int>(in.dtype));
    for (int a = 0; a < opcode_arity(in.op); ++a)
      fmt::format_to(out, ".{}", in.args[a]);
  }
  if (sink.kind == Sink::Kind::store)
    s += "|S";
  else
    fmt::format_to(out, "|R{}.{:x}", static_cast<int>(sink.op), sink.reduced_axes);
  return s;
}

} // namespace chunked::plan
