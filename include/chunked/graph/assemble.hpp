// SPDX-License-Identifier: Apache-2.0
// Graph constructors of the data-moving shape operations: reshape and concatenate.
#pragma once

#include <chunked/graph/node.hpp>

#include <optional>
#include <vector>

namespace chunked::graph {

/// The shape `spec` asks for when an array of `from` is reshaped: at most one -1, inferred so
/// that the sizes match. Two -1s or any other negative entry is a ValueError; a size that does not
/// match, or a -1 that cannot be inferred (the other entries multiply to 0), is a ShapeError.
Shape reshape_target(const Shape& from, const std::vector<index_t>& spec);

/// The chunk lengths a reshape of `input` to `shape` gets when the caller names none: axes that
/// the reshape keeps (same extent, in the same C-order group) keep their chunks; within a group
/// of axes that are merged or split, each block holds about as many elements as an input block
/// of that group, the trailing output axes whole first, so that a block of a merge is whole
/// input blocks laid end to end and a block of a split is a whole input block where the input's
/// chunk is a multiple of the trailing extents (then every copy is one run).
ChunkGrid reshape_grid(const graph::Node& input, const Shape& shape);

/// `input` reshaped (C order) to `spec` (see reshape_target), on the grid `chunks` when given
/// (per-axis regular chunk lengths) or on reshape_grid otherwise. A reshape that only adds or
/// drops axes of length 1 is a view (no data moves); any other is an assemble node.
NodePtr make_reshape(NodePtr input, const std::vector<index_t>& spec,
                     const std::optional<std::vector<index_t>>& chunks);

/// `inputs` joined along `axis` (negative counts from the end). The chunks along the axis are the
/// inputs' chunks in order (those of inputs of extent 0 there left out); off the axis, the
/// common refinement of the inputs' chunks, so that each output block lies in one block of one
/// input. An empty list is a ValueError; an axis out of range an IndexError; ranks or extents
/// off the axis that differ a ShapeError; dtypes that differ a ValueError.
NodePtr make_concatenate(std::vector<NodePtr> inputs, index_t axis);

} // namespace chunked::graph
