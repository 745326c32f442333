// SPDX-License-Identifier: Apache-2.0
// NumPy-style slices: bounds that may be missing, steps that may be negative.
#pragma once

#include <chunked/core/types.hpp>

#include <optional>
#include <string>
#include <type_traits>

namespace chunked {

/// A missing slice bound, like Python's None.
struct none_t {
  constexpr bool operator==(const none_t&) const = default;
};
inline constexpr none_t none{};

/// A slice bound: an index (negative counts from the end) or none.
class Bound {
public:
  constexpr Bound(none_t) {}
  template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
  constexpr Bound(I value) : value_(static_cast<index_t>(value)), set_(true) {}
  constexpr bool is_none() const { return !set_; }
  constexpr index_t value() const { return value_; }

private:
  index_t value_ = 0;
  bool set_ = false;
};

/// The effect of a slice on an axis of a given extent: the kept positions are
/// start, start + step, ... (length of them).
struct SliceRange {
  index_t start = 0;
  index_t step = 1;
  index_t length = 0;
};

/// `start:stop:step` with NumPy semantics. A zero step is rejected when applied (ValueError).
class Slice {
public:
  constexpr Slice() = default;
  constexpr Slice(Bound start, Bound stop, index_t step = 1)
      : start_(start), stop_(stop), step_(step) {}
  constexpr Bound start() const { return start_; }
  constexpr Bound stop() const { return stop_; }
  constexpr index_t step() const { return step_; }

  /// Resolves against an axis extent exactly like Python's slice.indices(): clamps bounds,
  /// handles negative steps, gives an empty range when nothing is kept.
  SliceRange apply(index_t extent) const;
  std::string to_string() const;

private:
  Bound start_ = none;
  Bound stop_ = none;
  index_t step_ = 1;
};

/// slice(start, stop, step): `x(slice(none, none, 2))` is NumPy's `x[::2]`.
constexpr Slice slice(Bound start, Bound stop, index_t step = 1) {
  return Slice(start, stop, step);
}

/// ':' — the whole axis.
inline constexpr Slice all{};

} // namespace chunked
