// SPDX-License-Identifier: Apache-2.0
// The immutable array-level DAG: one Node per operation, checked when it is made.
#pragma once

#include <chunked/core/block_info.hpp>
#include <chunked/core/buffer.hpp>
#include <chunked/core/chunk_grid.hpp>
#include <chunked/core/dtype.hpp>
#include <chunked/core/shape.hpp>
#include <chunked/graph/block_io.hpp>
#include <chunked/ops/op_code.hpp>
#include <chunked/ops/reduce_op.hpp>
#include <chunked/ops/scalar_value.hpp>
#include <chunked/ops/user_function.hpp>

#include <memory>
#include <variant>
#include <vector>

namespace chunked::graph {

struct Node;
/// Nodes made by the constructors below are deleted without recursion, however long the chain of
/// inputs that goes with the last reference.
using NodePtr = std::shared_ptr<const Node>;

/// Blocks already held in memory (from_host, persist, a computed intermediate). Each block is one
/// C-order buffer of the grid's block shape.
struct StoredData {
  DType dtype = DType::float64;
  ChunkGrid grid;
  std::vector<std::shared_ptr<Buffer>> blocks;
  /// Blocks persisted over a cluster's ranks (ComputeOptions::cluster): per block, the rank that
  /// holds it; on the other ranks its entry in `blocks` only stands for it (no memory). Empty:
  /// every rank holds every block.
  std::vector<int> owners;
  // ---- Borrowed memory (from_host_view, from_device)
  /// When set, the values are not in `blocks` (empty) but in this one buffer of the whole array,
  /// element (i_0, ...) at `sum_k i_k * strides[k]` (elements): memory the caller owns, which the
  /// planner reads in place, block by block, at each block's offset.
  std::shared_ptr<Buffer> borrowed;
  std::vector<index_t> strides; ///< of `borrowed`, per axis, in elements
  // ---- A persisted stencil (map_overlap of a strided function): `borrowed` is then memory the
  // library owns, one buffer of the whole array with a frame around it
  /// Per axis, the elements of frame on each side of the array in `borrowed`'s memory (empty: no
  /// frame), filled as `frame_boundary` says: a map_overlap of no more depth and that boundary (or
  /// Boundary::none) reads its blocks with their halos in place.
  std::vector<index_t> frame;
  Boundary frame_boundary;
};

/// True for a stored node whose values are borrowed memory (StoredData::borrowed), or one buffer of
/// the whole array (a persisted stencil, StoredData::frame).
bool is_borrowed(const Node& n);

/// A counter-based random array (DESIGN section 4): element e depends on (seed, stream, e) only.
struct RandomParams {
  ops::LeafKind dist = ops::LeafKind::normal;
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;
  ops::Scalar a, b;
};
struct ConstantParams {
  ops::Scalar value;
};
struct ArangeParams {
  ops::Scalar start, step;
};
struct StoredParams {
  std::shared_ptr<const StoredData> data;
};
/// A lazy leaf (load_npy, from_zarr): its blocks are read from `source` when a computation needs
/// them, each block at most once per computation, never the blocks no task reads.
struct SourceParams {
  std::shared_ptr<const BlockSource> source;
};
struct ElementwiseParams {
  ops::OpCode op = ops::OpCode::add;
  /// Set for a call of a user function (op then unused): its inputs have its parameter dtypes.
  std::shared_ptr<const ops::UserFunction> function;
};
/// A view: output axis k (extent `length[k]`) reads source axis `source[k]` at
/// `start[k] + step[k] * i` (step 0 broadcasts; source -1 is a new axis); a source axis that no
/// output axis reads is fixed at `fixed[d]` (an integer index; -1 for axes that are read).
struct ViewParams {
  std::vector<index_t> length;
  std::vector<int> source;
  std::vector<index_t> start;
  std::vector<index_t> step;
  std::vector<index_t> fixed;
};
struct RechunkParams {};
struct ReduceParams {
  ops::ReduceOp op = ops::ReduceOp::sum;
  std::vector<index_t> axes; ///< sorted, normalised
  bool keepdims = false;
  index_t ddof = 0;
  bool flat_index = false; ///< argmin/argmax over all axes: report C-order flat indices
};
/// Reshape and concatenate (graph/assemble.hpp): each output block is assembled by copying
/// rectangular pieces of the inputs' blocks (src/plan/assemble.cpp plans the pieces).
struct AssembleParams {
  enum class Kind : unsigned char {
    reshape,     ///< one input, read in C order into the node's shape
    concatenate, ///< the inputs joined along `axis`
  };
  Kind kind = Kind::reshape;
  index_t axis = 0; ///< concatenate: the axis (normalised)
};

/// A cumulative sum or product along one axis (DESIGN 8.2). The input already has the result
/// dtype (int64 for bool and integers, floats their own), so the scan only accumulates.
struct ScanParams {
  /// exact_sum: the cumulative sum of floats, each element the correctly rounded sum of the
  /// elements up to it, what ComputeOptions::exact_sums makes of a floating cumsum.
  enum class Op : unsigned char { sum, prod, exact_sum };
  Op op = Op::sum;
  index_t axis = 0; ///< normalised, in [0, ndim)
};

/// "cumsum", "cumprod" or "exact cumsum": the scan's name in messages and plans.
inline const char* scan_op_name(ScanParams::Op op) {
  switch (op) {
  case ScanParams::Op::sum:
    return "cumsum";
  case ScanParams::Op::prod:
    return "cumprod";
  default:
    return "exact cumsum";
  }
}

/// A user block function (map_blocks, map_overlap): output block b is fn of block b of every
/// input read over `input_grid` (all inputs have its shape), widened by `depth` per axis and
/// padded at the array's edges as `boundary` says (map_overlap; depth empty for map_blocks).
struct UserParams {
  std::shared_ptr<const chunked::detail::BlockFunction> fn;
  ChunkGrid input_grid;
  std::vector<index_t> depth;
  Boundary boundary;
};

/// A product of blocks (linalg: matmul, dot, tensordot): with axis counts (batch, m, k, n), input
/// 0 has axes (batch..., m..., k...) and input 1 (batch..., k..., n...), on equal grids along the
/// batch and k axes; the result, with axes (batch..., m..., n...), is the sum over the k axes of
/// their products. In C order each block of input 0 is a stack of (M, K) matrices, of input 1 of
/// (K, N) ones, of the result of (M, N) ones.
struct ContractParams {
  index_t batch = 0, m = 0, k = 0, n = 0;
};

enum class NodeKind : unsigned char {
  random,
  constant,
  arange,
  stored,
  elementwise,
  view,
  rechunk,
  reduce,
  assemble, // reshape helper: blocks copied together from pieces of the inputs' blocks
  scan,     // scans helper (issue 21)
  user,     // usercode helper: map_blocks, map_overlap (UserParams)
  source,   // a lazy leaf whose blocks are read from outside memory (SourceParams)
  contract  // linalg helper: a product of blocks (ContractParams)
};

struct Node {
  NodeKind kind;
  DType dtype;
  Shape shape;
  ChunkGrid grid;
  std::vector<NodePtr> inputs;
  std::variant<RandomParams, ConstantParams, ArangeParams, StoredParams, ElementwiseParams,
               ViewParams, RechunkParams, ReduceParams, AssembleParams, ScanParams, UserParams,
               SourceParams, ContractParams>
      params;

  template <class P> const P& as() const { return std::get<P>(params); }
};

// Node constructors: each validates its arguments and throws the matching chunked::Error.
NodePtr make_random(const Shape& shape, const std::vector<index_t>& chunks, DType dtype,
                    RandomParams p);
NodePtr make_constant(const Shape& shape, const std::vector<index_t>& chunks, DType dtype,
                      ops::Scalar value);
NodePtr make_arange(index_t length, index_t chunk, DType dtype, ops::Scalar start,
                    ops::Scalar step);
NodePtr make_stored(std::shared_ptr<const StoredData> data);
/// A lazy leaf of `dtype` over `grid` (its shape is the grid's) whose blocks `source` reads.
/// ValueError for a null source or a rank past max_ndim.
NodePtr make_source(DType dtype, ChunkGrid grid, std::shared_ptr<const BlockSource> source);
/// Elementwise op over inputs of equal shape (broadcast first); inserts no casts itself.
NodePtr make_elementwise(ops::OpCode op, DType result, std::vector<NodePtr> inputs);
/// A call of user function `fn` on inputs of its parameter dtypes and of equal shape (broadcast
/// first); the result has fn's result dtype.
NodePtr make_call(std::shared_ptr<const ops::UserFunction> fn, std::vector<NodePtr> inputs);
NodePtr make_view(NodePtr input, ViewParams view);
NodePtr make_rechunk(NodePtr input, const std::vector<index_t>& chunks);
NodePtr make_reduce(NodePtr input, ReduceParams p);
/// An assemble node of the given shape and grid over `inputs` (all of its dtype); the callers in
/// graph/assemble.hpp check that shape, grid and params agree with the inputs.
NodePtr make_assemble(std::vector<NodePtr> inputs, Shape shape, ChunkGrid grid, AssembleParams p);
/// A scan of `input` along p.axis (negative counts from the end; IndexError out of range). The
/// input must be int64, float or double (ValueError; cast bool and int32 to int64 first); the
/// result has its shape, dtype and chunk grid.
NodePtr make_scan(NodePtr input, ScanParams p);
/// A user block function's result of dtype `result` over `grid` (as many blocks per axis as
/// p.input_grid); the inputs have p.input_grid's shape. The API checks the arguments' meaning.
NodePtr make_user(DType result, ChunkGrid grid, std::vector<NodePtr> inputs, UserParams p);

/// The product of `a` and `b` over p.k axes (ContractParams), both float or both double, with
/// equal extents and block lengths along the batch and k axes (the API aligns them first);
/// ValueError otherwise.
NodePtr make_contract(NodePtr a, NodePtr b, ContractParams p);
/// `input` cut into the blocks of `grid` (any lengths summing to its extents; ShapeError else).
NodePtr make_rechunk(NodePtr input, ChunkGrid grid);

/// A copy of `n` reading `inputs` in place of its own, which they must match in shape, dtype and
/// grid (a graph rewritten below `n`); ValueError for another number of inputs.
NodePtr with_inputs(const Node& n, std::vector<NodePtr> inputs);

/// Cast to dtype (the same node when it already has it).
NodePtr cast(NodePtr input, DType dtype);
/// Broadcast shapes (NumPy rules) or ShapeError naming both shapes.
Shape broadcast_shapes(const Shape& a, const Shape& b);
/// View of input broadcast to shape (the same node when the shape already matches).
NodePtr broadcast_to(NodePtr input, const Shape& shape);

} // namespace chunked::graph
