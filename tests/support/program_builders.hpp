// SPDX-License-Identifier: Apache-2.0
// Block programs built by hand for the code generation and interpreter tests.
#pragma once

#include "plan/block_program.hpp"
#include "plan/op_types.hpp"

#include <vector>

namespace chunked::test {

/// A stored leaf of dtype `t` reading the program's input `input`; its map is the caller's.
inline plan::Leaf stored_leaf(DType t, int input) {
  plan::Leaf leaf;
  leaf.kind = plan::LeafKind::stored;
  leaf.dtype = t;
  leaf.input = input;
  return leaf;
}

/// The leaves and the one instruction of a program applying `op` to operands of dtype `t`, read
/// from stored inputs (for `where`, a bool condition first).
struct SingleOp {
  std::vector<plan::Leaf> leaves;
  plan::Instr instr;
};

inline SingleOp single_op(plan::OpCode op, DType t) {
  SingleOp s;
  s.instr.op = op;
  s.instr.dtype = plan::op_result_dtype(op, t);
  if (op == plan::OpCode::where) {
    s.leaves = {stored_leaf(DType::bool_, 0), stored_leaf(t, 1), stored_leaf(t, 2)};
    s.instr.args = {0, 1, 2};
  } else if (plan::opcode_arity(op) == 2) {
    s.leaves = {stored_leaf(t, 0), stored_leaf(t, 1)};
    s.instr.args = {0, 1, -1};
  } else {
    s.leaves = {stored_leaf(t, 0)};
    s.instr.args = {0, -1, -1};
  }
  return s;
}

} // namespace chunked::test
