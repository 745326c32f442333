// SPDX-License-Identifier: Apache-2.0
// Creation helpers: constants and arange lengths.
#include <chunked/creation.hpp>

#include <cmath>
#include <string>

namespace chunked::detail {

graph::NodePtr constant(const Shape& shape, const Chunks& chunks, DType t, double f, std::int64_t i) {
  ops::Scalar s;
  if (is_floating(t)) s.f = f;
  else s.i = i;
  return graph::make_constant(shape, chunks.resolve(shape, dtype_size(t)), t, s);
}

graph::NodePtr empty_array(DType dtype) { return constant(Shape{0}, Chunks{1}, dtype, 0.0, 0); }

index_t arange_length(double start, double stop, double step) {
  if (step == 0 || !std::isfinite(step) || !std::isfinite(start) || !std::isfinite(stop))
    throw ValueError("arange: start, stop and step must be finite and step non-zero (got start " +
                     std::to_string(start) + ", stop " + std::to_string(stop) + ", step " + std::to_string(step) + ")");
  const double n = std::ceil((stop - start) / step);
  return n > 0 ? static_cast<index_t>(n) : 0;
}

index_t arange_length(std::int64_t start, std::int64_t stop, std::int64_t step) {
  if (step == 0) throw ValueError("arange: step must be non-zero");
  if (step > 0) return stop > start ? (stop - start + step - 1) / step : 0;
  return start > stop ? (start - stop + (-step) - 1) / (-step) : 0;
}

} // namespace chunked::detail
