// SPDX-License-Identifier: Apache-2.0
// Validation of block programs (see validate.hpp).
#include "backend/cpu/validate.hpp"

#include "backend/cpu/elementwise.hpp"
#include <chunked/core/error.hpp>

#include <string>
#include <utility>

namespace chunked::cpu {

using plan::AffineMap;
using plan::BlockProgram;
using plan::Instr;
using plan::Leaf;
using plan::LeafKind;
using plan::OpCode;
using plan::Sink;

namespace {

[[noreturn]] void malformed(const BlockProgram& p, const std::string& what) {
  throw ValueError("cpu::run_program: malformed block program (" + what + "):\n" + p.describe());
}

/// Smallest and largest value of `m` over the box (extents all > 0).
std::pair<index_t, index_t> map_range(const AffineMap& m, const BlockProgram& p) {
  index_t lo = m.base, hi = m.base;
  for (int k = 0; k < p.ndim; ++k) {
    const index_t reach = m.coef[k] * (p.extent[k] - 1);
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi};
}

/// A call instruction: a function the program holds, with a CPU form, of this arity and these
/// operand and result dtypes.
void validate_call(const BlockProgram& p, const Instr& in, std::size_t j) {
  const std::string which = "instruction " + std::to_string(j);
  if (static_cast<std::size_t>(in.call) >= p.functions.size() || !p.functions[in.call])
    malformed(p, which + " calls a function the program does not hold");
  const ops::UserFunction& f = *p.functions[static_cast<std::size_t>(in.call)];
  if (!f.cpu)
    throw ValueError("ElementwiseFunction " + f.name +
                     " has no CPU function; give one to run it on the CPU");
  bool ok = in.dtype == f.result && static_cast<std::size_t>(in.call_arity) == f.params.size();
  for (int a = 0; ok && a < in.call_arity; ++a)
    ok = p.value_dtype(in.args[a]) == f.params[static_cast<std::size_t>(a)];
  if (!ok)
    malformed(p, which + " (call " + f.name + ") has operand or result dtypes it does not accept");
}

} // namespace

void validate_program(const BlockProgram& p, std::span<const void* const> inputs) {
  if (p.ndim < 0 || p.ndim > plan::max_ndim)
    malformed(p, "rank out of range");
  for (int k = 0; k < p.ndim; ++k)
    if (p.extent[k] < 0)
      malformed(p, "negative extent");
  if (p.leaves.empty())
    malformed(p, "no leaves");
  for (const Leaf& leaf : p.leaves) {
    if (leaf.kind == LeafKind::stored &&
        (leaf.input < 0 || static_cast<std::size_t>(leaf.input) >= inputs.size()))
      malformed(p, "stored leaf input " + std::to_string(leaf.input) + " is not among the " +
                       std::to_string(inputs.size()) + " inputs");
  }
  const int nl = static_cast<int>(p.leaves.size());
  for (std::size_t j = 0; j < p.instrs.size(); ++j) {
    const Instr& in = p.instrs[j];
    const int self = nl + static_cast<int>(j);
    if (in.call < 0 &&
        static_cast<std::size_t>(in.op) >= static_cast<std::size_t>(ops::num_opcodes))
      malformed(p, "unknown opcode");
    const int arity = in.arity();
    for (int a = 0; a < arity; ++a)
      if (in.args[a] < 0 || in.args[a] >= self)
        malformed(p, "instruction " + std::to_string(j) + " reads an undefined value");
    if (in.call >= 0) {
      validate_call(p, in, j);
      continue;
    }
    const DType t = p.value_dtype(in.args[arity == 3 ? 1 : 0]);
    bool ok =
        in.op == OpCode::cast || (op_accepts(in.op, t) && in.dtype == op_result_dtype(in.op, t));
    if (arity >= 2)
      ok = ok && p.value_dtype(in.args[1]) == t;
    if (arity == 3)
      ok = ok && p.value_dtype(in.args[0]) == DType::bool_ && p.value_dtype(in.args[2]) == t;
    if (!ok)
      malformed(p, "instruction " + std::to_string(j) + " (" +
                       std::string(plan::opcode_name(in.op)) +
                       ") has operand or result dtypes it does not accept");
  }
  if (p.sink.kind == Sink::Kind::reduce) {
    if (!ops::is_reduce_op(p.sink.op))
      malformed(p, "unknown reduce op");
    if (p.sink.num_partials < 0)
      malformed(p, "negative num_partials");
    if (p.size() > 0) {
      const auto [lo, hi] = map_range(p.sink.map, p);
      if (lo < 0 || hi >= p.sink.num_partials)
        malformed(p, "reduce map outside the partials");
    }
  } else if (p.sink.kind != Sink::Kind::store) {
    malformed(p, "unknown sink kind");
  }
}

} // namespace chunked::cpu
