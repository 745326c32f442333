// SPDX-License-Identifier: Apache-2.0
// Chunks: the requested chunk length of each axis, and the automatic choice.
#pragma once

#include <chunked/core/shape.hpp>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

namespace chunked {

/// One chunk length per axis; the last chunk of an axis may be shorter. `Chunks::automatic()`
/// picks lengths when the array is made, aiming at `target_bytes` per chunk.
class Chunks {
public:
  Chunks() = default;
  Chunks(std::initializer_list<index_t> lengths);
  explicit Chunks(std::vector<index_t> lengths);

  /// Square-ish chunks of about target_bytes, resolved against a shape and element size.
  static Chunks automatic(std::size_t target_bytes = std::size_t{128} << 20);

  bool is_automatic() const { return automatic_; }
  std::size_t target_bytes() const { return target_bytes_; }
  const std::vector<index_t>& lengths() const { return lengths_; }
  index_t ndim() const { return static_cast<index_t>(lengths_.size()); }
  index_t operator[](index_t i) const { return lengths_.at(static_cast<std::size_t>(i)); }

  /// Concrete chunk lengths for a shape: checks rank and positivity (ShapeError / ValueError) and
  /// resolves automatic chunks. Extents of 0 keep a chunk length of 1.
  std::vector<index_t> resolve(const Shape& shape, std::size_t element_size) const;

  friend bool operator==(const Chunks&, const Chunks&) = default;
  std::string to_string() const;

private:
  std::vector<index_t> lengths_;
  bool automatic_ = false;
  std::size_t target_bytes_ = 0;
};

} // namespace chunked
