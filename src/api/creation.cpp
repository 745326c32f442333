// SPDX-License-Identifier: Apache-2.0
// Creation helpers: constants and arange lengths.
#include <chunked/creation.hpp>

#include <cmath>
#include <limits>
#include <string>

namespace chunked::detail {

graph::NodePtr constant(const Shape& shape, const Chunks& chunks, DType t, double f,
                        std::int64_t i) {
  ops::Scalar s;
  if (is_floating(t))
    s.f = f;
  else
    s.i = i;
  return graph::make_constant(shape, chunks.resolve(shape, dtype_size(t)), t, s);
}

graph::NodePtr empty_array(DType dtype) { return constant(Shape{0}, Chunks{1}, dtype, 0.0, 0); }

index_t arange_length(double start, double stop, double step) {
  if (step == 0 || !std::isfinite(step) || !std::isfinite(start) || !std::isfinite(stop))
    throw ValueError("arange: start, stop and step must be finite and step non-zero (got start " +
                     std::to_string(start) + ", stop " + std::to_string(stop) + ", step " +
                     std::to_string(step) + ")");
  const double n = std::ceil((stop - start) / step); // may be infinite: stop - start overflows
  if (!(n < 0x1p63))
    throw ValueError("arange(" + std::to_string(start) + ", " + std::to_string(stop) + ", " +
                     std::to_string(step) + ") would have " + std::to_string(n) +
                     " elements, more than int64 can count");
  return n > 0 ? static_cast<index_t>(n) : 0;
}

index_t arange_length(std::int64_t start, std::int64_t stop, std::int64_t step) {
  if (step == 0)
    throw ValueError("arange: step must be non-zero");
  // stop - start need not fit int64, but its magnitude fits uint64 (two's complement difference).
  // The count, ceil(|span| / |step|), passes int64 only where |step| <= 2.
  if (step > 0 ? stop <= start : stop >= start)
    return 0;
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  const std::uint64_t span = step > 0 ? u(stop) - u(start) : u(start) - u(stop);
  const std::uint64_t magnitude = step > 0 ? u(step) : std::uint64_t{0} - u(step);
  const std::uint64_t n = (span - 1) / magnitude + 1;
  if (n > static_cast<std::uint64_t>(std::numeric_limits<index_t>::max()))
    throw ValueError("arange(" + std::to_string(start) + ", " + std::to_string(stop) + ", " +
                     std::to_string(step) + ") would have " + std::to_string(n) +
                     " elements, more than int64 can count");
  return static_cast<index_t>(n);
}

double arange_delta(double start, double step, DType t, index_t length) {
  if (length <= 1)
    return 0;
  if (t == DType::float32) {
    const auto first = static_cast<float>(start);
    return static_cast<double>(static_cast<float>(start + step) - first);
  }
  return (start + step) - start;
}

} // namespace chunked::detail
