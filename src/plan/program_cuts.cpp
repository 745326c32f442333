// SPDX-License-Identifier: Apache-2.0
// Where a fused region is larger than one program may be: which intermediates to store
// (lowering.hpp), in one walk over the region however deep it is.
#include "lowering.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace chunked::plan::detail {

namespace {

using graph::Node;
using graph::NodeKind;

/// Instructions and leaves of a program, saturating far above the caps.
struct Size {
  int instrs = 0;
  int leaves = 0;
  bool fits() const { return instrs <= max_program_instrs && leaves <= max_program_leaves; }
  Size& operator+=(const Size& o) {
    constexpr int most = 1 << 20;
    instrs = std::min(most, instrs + o.instrs);
    leaves = std::min(most, leaves + o.leaves);
    return *this;
  }
  friend bool operator<(const Size& a, const Size& b) {
    return std::pair(a.instrs, a.leaves) < std::pair(b.instrs, b.leaves);
  }
};

/// Per node of the region, the size of its program were it a root, and the node to store to
/// replace that program by one stored leaf (an elementwise node, maybe below views; none for
/// leaves).
struct Estimate {
  Size size;
  const Node* cut = nullptr;
};

class CutPlanner {
public:
  CutPlanner(const Node* root, bool count_constants, const ForcedSet& forced)
      : root_(root), count_constants_(count_constants), forced_(forced) {}

  /// Walks the region below the root, inputs before the nodes that read them, each node once.
  Cuts run() {
    std::vector<std::pair<const Node*, bool>> stack{{root_, false}};
    while (!stack.empty()) {
      const auto [n, entered] = stack.back();
      if (est_.count(n)) {
        stack.pop_back();
        continue;
      }
      if (!entered && !stored(n)) {
        stack.back().second = true;
        for (auto it = n->inputs.rbegin(); it != n->inputs.rend(); ++it)
          if (!est_.count(it->get()))
            stack.emplace_back(it->get(), false);
        continue;
      }
      stack.pop_back();
      visit(n);
    }
    result_.distinct_fit = distinct_.fits();
    return std::move(result_);
  }

private:
  bool stored(const Node* n) const { return n != root_ && is_materialized(n, forced_); }

  void visit(const Node* n) {
    const Estimate leaf{Size{0, 1}, nullptr};
    if (stored(n)) {
      est_[n] = leaf;
      distinct_ += leaf.size;
      return;
    }
    switch (n->kind) {
    case NodeKind::constant:
      est_[n] = Estimate{Size{0, count_constants_ ? 1 : 0}, nullptr};
      return;
    case NodeKind::view:
    case NodeKind::rechunk:
      est_[n] = est_.at(n->inputs[0].get());
      return;
    case NodeKind::elementwise:
      break;
    default: // random and arange leaves, which are never stored
      est_[n] = leaf;
      distinct_ += leaf.size;
      return;
    }
    distinct_ += Size{1, 0};
    auto total = [&] {
      Size s{1, 0};
      for (const auto& in : n->inputs)
        s += est_.at(in.get()).size;
      return s;
    };
    // Past a cap, store the largest input's program until the rest fits (with at most three
    // inputs, each then one leaf, it always does).
    for (Size s = total(); !s.fits(); s = total()) {
      const graph::NodePtr* largest = nullptr;
      for (const auto& in : n->inputs) {
        const Estimate& e = est_.at(in.get());
        if (e.cut && (!largest || est_.at(largest->get()).size < e.size))
          largest = &in;
      }
      if (!largest)
        break;
      const Node* cut = est_.at(largest->get()).cut;
      result_.stored.push_back(cut);
      est_[cut] = leaf;
      est_[largest->get()] = leaf; // a view of it reads the stored blocks too
    }
    est_[n] = Estimate{total(), n};
  }

  const Node* root_;
  bool count_constants_;
  const ForcedSet& forced_;
  std::unordered_map<const Node*, Estimate> est_; ///< also the nodes already visited
  Size distinct_; ///< distinct elementwise nodes, and leaves other than constants
  Cuts result_;
};

} // namespace

Cuts plan_cuts(const Node* root, bool count_constants, const ForcedSet& forced) {
  return CutPlanner(root, count_constants, forced).run();
}

} // namespace chunked::plan::detail
