// SPDX-License-Identifier: Apache-2.0
// LeafIndex: what explain() learns of a plan's leaves from the graph its roots keep alive (the
// shape of each generated array, the stored array each block belongs to), and how a leaf's index
// map reads its array, spelt as a NumPy slice.
#pragma once

#include "plan/block_program.hpp"
#include <chunked/core/buffer.hpp>
#include <chunked/core/shape.hpp>
#include <chunked/graph/node.hpp>

#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace chunked::plan {

/// A stored array that a plan reads (from_host, persist, from_host_view, from_device).
struct StoredArray {
  const graph::Node* node = nullptr;
  int number = 0; ///< 1, 2, ... in the order a walk of the roots' graph meets them
  bool borrowed = false;
};

/// Looks up the graph nodes behind a plan's leaves. The plan keeps only leaf parameters and
/// buffer pointers; the graph (Plan::roots) still knows the shapes they came from, which is
/// what turns a flat index map back into the slice a user wrote.
class LeafIndex {
public:
  explicit LeafIndex(const std::vector<graph::NodePtr>& roots);

  /// The shape of the random or arange array that `leaf` generates; nullopt when the graph holds
  /// none with its parameters, or several of different shapes.
  std::optional<Shape> generated_shape(const Leaf& leaf) const;

  /// The stored array a buffer belongs to, and which of its blocks it is (-1 for a region of
  /// borrowed memory); nullopt for a buffer of no stored array.
  struct BlockOf {
    const StoredArray* array = nullptr;
    index_t block = -1;
  };
  std::optional<BlockOf> stored_block(const Buffer* buffer) const;

  /// Every stored array, in the order of their numbers.
  const std::vector<StoredArray>& arrays() const { return arrays_; }

private:
  /// Kind, dtype, seed, stream and the parameters' bits (doubles as bits: NaN is a parameter too).
  using GeneratedKey = std::tuple<int, int, std::uint64_t, std::uint64_t, std::uint64_t,
                                  std::int64_t, std::uint64_t, std::int64_t>;
  static GeneratedKey key_of(const Leaf& leaf);

  std::map<GeneratedKey, std::optional<Shape>> generated_;
  std::unordered_map<const Buffer*, BlockOf> blocks_;
  std::unordered_map<const Buffer*, std::size_t> borrowed_; ///< whole buffer -> arrays_ index
  std::vector<StoredArray> arrays_;
};

/// A buffer a leaf reads, placed in the array it is part of: the buffer holds the box of
/// `extent` at `origin` of an array of `shape`, in C order.
struct BufferBox {
  std::vector<index_t> origin, extent, shape;
};

/// How a leaf that reads `box` through `map` (over an iteration of `out_shape`, the map taken at
/// the iteration's origin) reads its array `name`, when that is not the whole array in place:
/// e.g. "normal[::2, ::2] (every 2nd element along axis 0, every 2nd element along axis 1)".
/// Empty when the leaf reads the array as it is (the iteration is the array); nullopt when the
/// map is no slice, transpose or broadcast of the array that can be spelt so.
std::optional<std::string> describe_view(const AffineMap& map, std::span<const index_t> out_shape,
                                         const BufferBox& box, std::string_view name);

} // namespace chunked::plan
