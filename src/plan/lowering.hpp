// SPDX-License-Identifier: Apache-2.0
// Lowering of one fused region of the array DAG into a BlockProgram body, and the choice of the
// intermediates to store where a region is larger than one program may be (planner internals).
#pragma once

#include "index_maps.hpp"

#include "plan/block_program.hpp"
#include <chunked/graph/node.hpp>

#include <array>
#include <unordered_set>
#include <vector>

namespace chunked::plan::detail {

/// A stored leaf of a program: which node's blocks it reads, and where (node coordinates).
struct StoredLeafInfo {
  int leaf;
  graph::NodePtr node;
  Coords coords;
};

/// A lowered program with its stored leaves (their maps and inputs come per task).
struct Body {
  BlockProgram prog;
  std::vector<StoredLeafInfo> stored;
};

/// True when `body` only copies the blocks of `n` (one stored leaf read in place, no operation):
/// a consumer may then read or keep those blocks where they are instead of copying them.
inline bool copies_blocks(const Body& body, const graph::Node* n) {
  return body.prog.instrs.empty() && body.prog.leaves.size() == 1 && body.stored.size() == 1 &&
         body.stored[0].node.get() == n;
}

/// Intermediates the planner decided to store although fusion could compute them in place.
using ForcedSet = std::unordered_set<const graph::Node*>;

/// True when a node below a program's root is read from memory rather than computed in place:
/// stored data, lazy leaves read from outside memory, reductions, assembled blocks (reshape,
/// concatenate), scans, user block functions, products of blocks, and intermediates in `forced`.
inline bool is_materialized(const graph::Node* n, const ForcedSet& forced) {
  return n->kind == graph::NodeKind::stored || n->kind == graph::NodeKind::reduce ||
         n->kind == graph::NodeKind::assemble || n->kind == graph::NodeKind::scan ||
         n->kind == graph::NodeKind::user || n->kind == graph::NodeKind::source ||
         n->kind == graph::NodeKind::contract || forced.count(n) != 0;
}

/// Lowers the region below `root` (iterated over root's shape, rank `ndim`) into `body`: root
/// itself is computed when `lower_root` is set (else read as a stored leaf), and every node below
/// it up to the materialised ones. Returns false, leaving `body` incomplete, as soon as the
/// program passes max_program_instrs or max_program_leaves. Iterative: any depth is fine.
bool lower_program(const graph::NodePtr& root, int ndim, bool lower_root, const ForcedSet& forced,
                   Body& body);

/// Intermediates to store below a root so that each program fits the caps.
struct Cuts {
  std::vector<const graph::Node*> stored;
  /// The region has few enough distinct nodes that one program may hold it; when false, it
  /// certainly cannot.
  bool distinct_fit = false;
};

/// Chooses intermediates below `root` (computed itself) that split its region into programs
/// within the caps, counting every path to a node as a copy of it (an upper bound on what
/// lowering makes), in one walk over the region. Constants count as leaves only when
/// `count_constants` is set: lowering shares equal constants, so the first try leaves them out,
/// which splits a long `x + 1` chain at the instruction cap. Only elementwise nodes are stored
/// (never views, which may broadcast).
Cuts plan_cuts(const graph::Node* root, bool count_constants, const ForcedSet& forced);

} // namespace chunked::plan::detail
