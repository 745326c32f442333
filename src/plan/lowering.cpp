// SPDX-License-Identifier: Apache-2.0
// Lowering of a fused region into a BlockProgram body (lowering.hpp), with an explicit stack so
// that chains of any length lower without deep recursion.
#include "lowering.hpp"

#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <unordered_map>

namespace chunked::plan::detail {

namespace {

using graph::Node;
using graph::NodeKind;
using graph::NodePtr;

/// The coordinates of a view's input from those of the view.
Coords view_input_coords(const Node& n, const Coords& m, int ndim) {
  const auto& v = n.as<graph::ViewParams>();
  Coords src(n.inputs[0]->shape.extents().size());
  for (std::size_t d = 0; d < src.size(); ++d)
    src[d].base = v.fixed[d];
  for (std::size_t k = 0; k < v.source.size(); ++k)
    if (v.source[k] >= 0)
      src[static_cast<std::size_t>(v.source[k])] = compose(v.start[k], v.step[k], m[k], ndim);
  return src;
}

/// A node at some coordinates: lowering it twice there gives the same value.
struct MemoKey {
  const Node* node;
  Coords coords;
  friend bool operator==(const MemoKey&, const MemoKey&) = default;
};

struct MemoHash {
  std::size_t operator()(const MemoKey& k) const {
    std::size_t h = std::hash<const Node*>{}(k.node);
    auto mix = [&h](index_t v) { h = (h ^ static_cast<std::size_t>(v)) * 0x100000001b3ull; };
    for (const AffineMap& a : k.coords) {
      mix(a.base);
      for (index_t c : a.coef)
        mix(c);
    }
    return h;
  }
};

/// Lowers in the order of a depth-first walk taking inputs left to right, each node's value
/// after its inputs'; values refer to leaves (>= 0) and instructions (j as -(j + 1)) until
/// renumber() turns them into SSA numbers.
class Lowerer {
public:
  Lowerer(int ndim, const ForcedSet& forced, Body& body)
      : ndim_(ndim), forced_(forced), body_(body) {}

  bool lower(const NodePtr& root, bool lower_root) {
    stack_.push_back(Frame{&root, identity_coords(ndim_), lower_root});
    int value = 0;
    while (!stack_.empty()) {
      // A frame's inputs lowered so far are in args; the next one is args.size().
      Frame& f = stack_.back();
      if (!f.started) {
        f.started = true;
        if (auto it = memo_.find(MemoKey{f.node->get(), f.coords}); it != memo_.end()) {
          value = it->second;
          if (!finish(value))
            return false;
          continue;
        }
        if (const int leaf = leaf_value(f); leaf != no_value) {
          if (!finish(leaf))
            return false;
          continue;
        }
      }
      const Node& n = **f.node;
      if (f.nargs < static_cast<int>(n.inputs.size())) {
        Coords coords = n.kind == NodeKind::view ? view_input_coords(n, f.coords, ndim_) : f.coords;
        stack_.push_back(
            Frame{&n.inputs[static_cast<std::size_t>(f.nargs)], std::move(coords), false});
        continue;
      }
      if (n.kind == NodeKind::elementwise) {
        const auto& ep = n.as<graph::ElementwiseParams>();
        Instr ins;
        ins.op = ep.op;
        ins.dtype = n.dtype;
        if (ep.function) {
          ins.call = function_number(ep.function);
          ins.call_arity = static_cast<std::int8_t>(ep.function->params.size());
        }
        for (int j = 0; j < f.nargs; ++j)
          ins.args[j] = static_cast<std::int16_t>(f.args[j]);
        body_.prog.instrs.push_back(ins);
        value = -static_cast<int>(body_.prog.instrs.size());
      } else {
        value = f.args[0]; // a view or rechunk is its input read at other coordinates
      }
      if (!finish(value))
        return false;
    }
    return true;
  }

private:
  static constexpr int no_value = std::numeric_limits<int>::min();

  struct Frame {
    const NodePtr* node;
    Coords coords;
    bool root = false;
    bool started = false;
    int nargs = 0;
    std::array<int, 3> args{};
  };

  /// Records a frame's value and hands it to the frame that asked for it; false past a cap.
  bool finish(int value) {
    Frame& f = stack_.back();
    memo_.emplace(MemoKey{f.node->get(), std::move(f.coords)}, value);
    stack_.pop_back();
    if (!stack_.empty()) {
      Frame& parent = stack_.back();
      parent.args[static_cast<std::size_t>(parent.nargs++)] = value;
    }
    return body_.prog.instrs.size() <= static_cast<std::size_t>(max_program_instrs) &&
           body_.prog.leaves.size() <= static_cast<std::size_t>(max_program_leaves);
  }

  /// The value of a node that is a leaf of the program (random, constant, arange, or read from
  /// memory), or no_value for nodes lowered from their inputs.
  int leaf_value(const Frame& f) {
    const NodePtr& n = *f.node;
    const Coords& m = f.coords;
    if (!f.root && is_materialized(n.get(), forced_)) {
      Leaf leaf;
      leaf.kind = LeafKind::stored;
      leaf.dtype = n->dtype;
      const int value = add_leaf(leaf);
      body_.stored.push_back({value, n, m});
      return value;
    }
    switch (n->kind) {
    case NodeKind::random: {
      const auto& p = n->as<graph::RandomParams>();
      Leaf leaf;
      leaf.kind = p.dist;
      leaf.dtype = n->dtype;
      leaf.map = flatten(m, n->shape.strides(), ndim_);
      leaf.a = p.a;
      leaf.b = p.b;
      leaf.seed = p.seed;
      leaf.stream = p.stream;
      return add_leaf(leaf);
    }
    case NodeKind::constant: {
      Leaf leaf;
      leaf.kind = LeafKind::constant;
      leaf.dtype = n->dtype;
      leaf.a = n->as<graph::ConstantParams>().value;
      return constant_leaf(leaf);
    }
    case NodeKind::arange: {
      const auto& p = n->as<graph::ArangeParams>();
      Leaf leaf;
      leaf.kind = LeafKind::arange;
      leaf.dtype = n->dtype;
      constexpr index_t unit_stride[] = {1};
      leaf.map = flatten(m, unit_stride, ndim_);
      leaf.a = p.start;
      leaf.b = p.step;
      return add_leaf(leaf);
    }
    case NodeKind::elementwise:
    case NodeKind::view:
    case NodeKind::rechunk:
      return no_value;
    case NodeKind::stored:
    case NodeKind::reduce:
    case NodeKind::assemble:
    case NodeKind::scan:
    case NodeKind::user:
    case NodeKind::source:
    case NodeKind::contract:
      break;
    }
    throw ValueError("internal: materialised node reached the lowering switch");
  }

  int add_leaf(const Leaf& leaf) {
    body_.prog.leaves.push_back(leaf);
    return static_cast<int>(body_.prog.leaves.size()) - 1;
  }

  /// Constants with the same dtype and bits share one leaf: every `x + 1` of a long chain is a
  /// separate graph node, and a leaf each would split the chain at the leaf cap.
  int constant_leaf(const Leaf& leaf) {
    const auto& leaves = body_.prog.leaves;
    for (std::size_t j = 0; j < leaves.size(); ++j) {
      const Leaf& l = leaves[j];
      if (l.kind == LeafKind::constant && l.dtype == leaf.dtype &&
          std::bit_cast<std::uint64_t>(l.a.f) == std::bit_cast<std::uint64_t>(leaf.a.f) &&
          l.a.i == leaf.a.i)
        return static_cast<int>(j);
    }
    return add_leaf(leaf);
  }

  /// The number of `fn` among the program's functions, added at its first call.
  std::int8_t function_number(const std::shared_ptr<const ops::UserFunction>& fn) {
    auto& fns = body_.prog.functions;
    for (std::size_t j = 0; j < fns.size(); ++j)
      if (fns[j] == fn)
        return static_cast<std::int8_t>(j);
    fns.push_back(fn);
    return static_cast<std::int8_t>(fns.size() - 1);
  }

  int ndim_;
  const ForcedSet& forced_;
  Body& body_;
  std::vector<Frame> stack_;
  std::unordered_map<MemoKey, int, MemoHash> memo_;
};

/// Converts the lowering's value encoding (leaves >= 0, instruction j as -(j+1)) to SSA numbers.
void renumber(BlockProgram& prog) {
  const int nleaves = static_cast<int>(prog.leaves.size());
  for (auto& ins : prog.instrs)
    for (int j = 0; j < ins.arity(); ++j)
      if (ins.args[j] < 0)
        ins.args[j] = static_cast<std::int16_t>(nleaves + (-ins.args[j] - 1));
}

} // namespace

bool lower_program(const NodePtr& root, int ndim, bool lower_root, const ForcedSet& forced,
                   Body& body) {
  body.prog.ndim = ndim;
  if (!Lowerer(ndim, forced, body).lower(root, lower_root))
    return false;
  renumber(body.prog);
  return true;
}

} // namespace chunked::plan::detail
