// SPDX-License-Identifier: Apache-2.0
// Comparing a computed value with NumPy's, within the tolerance its check names.
#include "values.hpp"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <type_traits>

namespace chunked::differential {

namespace {

/// Floats mapped onto integers in order, so that the distance of two finite floats of the same
/// type is their distance in units in the last place (+0 and -0 both map to 0).
template <class T> std::int64_t ordered(T x) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
  const auto bits = static_cast<std::int64_t>(std::bit_cast<Bits>(x));
  constexpr std::int64_t sign = sizeof(T) == 4 ? std::int64_t{0x7fffffff} : INT64_MAX;
  return bits < 0 ? -(bits & sign) : bits;
}

template <class T>
bool within(T got, T want, const Check& c, std::size_t i, std::int64_t extra_ulps) {
  if constexpr (!std::is_floating_point_v<T>) {
    return got == want;
  } else {
    if (std::isnan(want) || std::isnan(got))
      return std::isnan(want) && std::isnan(got);
    if (got == want) // -0.0 == 0.0: the sign of a zero is not compared
      return true;
    if (std::isinf(want) || std::isinf(got))
      return false;
    switch (c.mode) {
    case Tolerance::exact:
      return false;
    case Tolerance::ulp: {
      // Both are finite: the distance fits an int64 (it is below 2^64 / 2 for doubles of the
      // same sign, and crossing zero adds two magnitudes that are each below 2^63).
      const auto a = ordered(got), b = ordered(want);
      const auto d = a > b ? static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b)
                           : static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
      return d <= static_cast<std::uint64_t>(c.ulps + extra_ulps);
    }
    case Tolerance::abs:
      return std::abs(static_cast<double>(got) - static_cast<double>(want)) <= c.tolerance[i];
    }
    return false;
  }
}

template <class T> std::string show(T v) {
  std::ostringstream out;
  out.precision(std::is_same_v<T, float> ? 9 : 17);
  if constexpr (std::is_same_v<T, bool>)
    out << (v ? "true" : "false");
  else
    out << v;
  return out.str();
}

template <class T>
std::string compare_array(const NDArray<T>& got, const Check& c, std::int64_t extra_ulps) {
  const auto& shape = got.shape().extents();
  if (shape != c.shape)
    return "shape " + got.shape().to_string() + ", NumPy's " + Shape(c.shape).to_string();
  const auto n = static_cast<std::size_t>(got.size());
  if (c.values.size() != n || (c.mode == Tolerance::abs && c.tolerance.size() != n))
    throw ProgramError("check of " + c.name + " lists the wrong number of values");
  std::ostringstream diff;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const T want = parse_number<T>(c.values[i]);
    if (within(got.data()[i], want, c, i, extra_ulps))
      continue;
    if (++wrong <= 5) {
      diff << "\n    [" << i << "] chunked " << show(got.data()[i]) << ", NumPy " << show(want);
      if (c.mode == Tolerance::abs)
        diff << " (tolerance " << c.tolerance[i] << ")";
    }
  }
  if (wrong == 0)
    return {};
  return std::to_string(wrong) + " of " + std::to_string(n) + " elements differ" + diff.str();
}

} // namespace

template <class B>
std::string compare(const Value<B>& value, const Check& check, const ComputeOptions& options,
                    std::int64_t extra_ulps) {
  return std::visit(
      [&](const auto& x) -> std::string {
        const std::string dtype(dtype_name(x.dtype()));
        if (dtype != check.dtype)
          return "dtype " + dtype + ", NumPy's " + check.dtype;
        return compare_array(x.compute(options), check, extra_ulps);
      },
      value);
}

template std::string compare<Cpu>(const Value<Cpu>&, const Check&, const ComputeOptions&,
                                  std::int64_t);
template std::string compare<Auto>(const Value<Auto>&, const Check&, const ComputeOptions&,
                                   std::int64_t);

} // namespace chunked::differential
