// SPDX-License-Identifier: Apache-2.0
// The text forms of block programs: descriptions and cache keys.
#include "plan/block_program.hpp"

#include <fmt/format.h>

#include <iterator>

namespace chunked::plan {

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

std::string BlockProgram::summary() const {
  std::string s;
  const auto add = [&s](std::string_view word) {
    if (!s.empty())
      s += " \u00b7 ";
    s += word;
  };
  for (const Leaf& leaf : leaves)
    if (leaf.kind != LeafKind::constant)
      add(leaf_kind_name(leaf.kind));
  for (const Instr& in : instrs) {
    if (in.call >= 0 && static_cast<std::size_t>(in.call) < functions.size())
      add(functions[static_cast<std::size_t>(in.call)]->name);
    else if (in.call < 0 && in.op != OpCode::cast)
      add(opcode_name(in.op));
  }
  add(sink.kind == Sink::Kind::store ? std::string_view("store") : reduce_op_name(sink.op));
  return s;
}

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
    fmt::format_to(out, "  v{} = {} {}", leaves.size() + j,
                   in.call < 0 ? std::string(opcode_name(in.op))
                   : static_cast<std::size_t>(in.call) < functions.size()
                       ? "call " + functions[static_cast<std::size_t>(in.call)]->name
                       : std::string("call ?"),
                   dtype_name(in.dtype));
    for (int a = 0; a < in.arity(); ++a)
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
    if (in.call >= 0)
      fmt::format_to(out, "|C{}.{}",
                     static_cast<std::size_t>(in.call) < functions.size()
                         ? functions[static_cast<std::size_t>(in.call)]->key
                         : std::string("?"),
                     static_cast<int>(in.dtype));
    else
      fmt::format_to(out, "|I{}.{}", static_cast<int>(in.op), static_cast<int>(in.dtype));
    for (int a = 0; a < in.arity(); ++a)
      fmt::format_to(out, ".{}", in.args[a]);
  }
  if (sink.kind == Sink::Kind::store)
    s += "|S";
  else
    fmt::format_to(out, "|R{}.{:x}", static_cast<int>(sink.op), sink.reduced_axes);
  return s;
}

} // namespace chunked::plan
