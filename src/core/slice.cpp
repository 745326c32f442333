// SPDX-License-Identifier: Apache-2.0
// Slice resolution with Python's slice.indices() semantics.
#include <chunked/core/error.hpp>
#include <chunked/core/slice.hpp>

#include <algorithm>
#include <string>

namespace chunked {

SliceRange Slice::apply(index_t extent) const {
  if (step_ == 0) throw ValueError("slice step cannot be zero (slice " + to_string() + ")");
  index_t start, stop;
  if (step_ > 0) {
    auto clamp = [&](Bound b, index_t dflt) {
      if (b.is_none()) return dflt;
      index_t v = b.value();
      if (v < 0) v = std::max<index_t>(0, v + extent);
      return std::min(v, extent);
    };
    start = clamp(start_, 0);
    stop = clamp(stop_, extent);
    const index_t len = stop > start ? (stop - start + step_ - 1) / step_ : 0;
    return {start, step_, len};
  }
  // Negative step: bounds clamp to [-1, extent - 1], defaults run from the end to before 0.
  auto clamp = [&](Bound b, index_t dflt) {
    if (b.is_none()) return dflt;
    index_t v = b.value();
    if (v < 0) v = std::max<index_t>(-1, v + extent);
    return std::min(v, extent - 1);
  };
  start = clamp(start_, extent - 1);
  stop = clamp(stop_, -1);
  const index_t len = start > stop ? (start - stop + (-step_) - 1) / (-step_) : 0;
  return {len > 0 ? start : 0, step_, len};
}

std::string Slice::to_string() const {
  auto b = [](Bound x) { return x.is_none() ? std::string() : std::to_string(x.value()); };
  std::string s = b(start_) + ":" + b(stop_);
  if (step_ != 1) s += ":" + std::to_string(step_);
  return s;
}

} // namespace chunked
