// SPDX-License-Identifier: Apache-2.0
// Slice resolution with Python's slice.indices() semantics.
#include <chunked/core/error.hpp>
#include <chunked/core/slice.hpp>

#include <algorithm>
#include <limits>
#include <string>

namespace chunked {

SliceRange Slice::apply(index_t extent) const {
  if (step_ == 0)
    throw ValueError("slice step cannot be zero (slice " + to_string() + ")");
  // Python's slice.indices(): bounds clamp to [0, extent] for a positive step and to
  // [-1, extent - 1] for a negative one. No sum below leaves int64: a negative bound plus a
  // non-negative extent, and differences of two clamped bounds.
  const bool up = step_ > 0;
  const index_t lower = up ? 0 : -1;
  const index_t upper = up ? extent : extent - 1;
  auto clamp = [&](Bound b, index_t dflt) {
    if (b.is_none())
      return dflt;
    index_t v = b.value();
    if (v < 0)
      v = std::max(v + extent, lower);
    return std::min(v, upper);
  };
  const index_t start = clamp(start_, up ? lower : upper);
  const index_t stop = clamp(stop_, up ? upper : lower);
  // len(range(start, stop, step)) as (distance - 1) / |step| + 1, which cannot overflow where
  // the usual (distance + |step| - 1) / |step| does; |INT64_MIN| is taken as INT64_MAX, which
  // gives the same length since no distance exceeds INT64_MAX.
  if (up)
    return {start, step_, start < stop ? (stop - start - 1) / step_ + 1 : 0};
  const index_t down =
      step_ == std::numeric_limits<index_t>::min() ? std::numeric_limits<index_t>::max() : -step_;
  const index_t len = stop < start ? (start - stop - 1) / down + 1 : 0;
  return {len > 0 ? start : 0, step_, len};
}

std::string Slice::to_string() const {
  auto b = [](Bound x) { return x.is_none() ? std::string() : std::to_string(x.value()); };
  std::string s = b(start_) + ":" + b(stop_);
  if (step_ != 1)
    s += ":" + std::to_string(step_);
  return s;
}

} // namespace chunked
