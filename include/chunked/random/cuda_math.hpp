// SPDX-License-Identifier: Apache-2.0
// Host versions of CUDA's double-precision sincospi and log, so CPU normals match cuRAND's bits.
#pragma once

#include "chunked/core/host_device.hpp"

// Host only: device code calls CUDA's own ::sincospi and ::log, which these functions reproduce.
#if !CHUNKED_RTC

#include <bit>
#include <cmath>
#include <cstdint>

namespace chunked::random {

namespace detail {

constexpr double from_bits(std::uint64_t bits) { return std::bit_cast<double>(bits); }

// The reduced argument r in [-1/4, 1/4] becomes x = pi * r through a two-term pi, so that x
// carries about 106 bits of pi and the polynomials see an accurate argument.
inline constexpr double pi_hi = from_bits(0x400921FB54442D18ull);
inline constexpr double pi_lo = from_bits(0x3CA1A62633145C07ull);

// Minimax coefficients of CUDA's double sincospi kernels (its libdevice `__nv_sincospi`). The same
// coefficients, evaluated with the same fused multiply-adds in the same order, are what makes the
// host result bit-identical to the device result rather than merely close to it.
inline constexpr double sinpi_coef[] = {
    from_bits(0x3DE5DB65F9785EBAull), from_bits(0xBE5AE5F12CB0D246ull),
    from_bits(0x3EC71DE369ACE392ull), from_bits(0xBF2A01A019DB62A1ull),
    from_bits(0x3F81111111110818ull), from_bits(0xBFC5555555555554ull)};
inline constexpr double cospi_coef[] = {
    from_bits(0xBDA8FF8320FD8164ull), from_bits(0x3E21EEA7C1EF8528ull),
    from_bits(0xBE927E4F8E06E6D9ull), from_bits(0x3EFA01A019DDBCE9ull),
    from_bits(0xBF56C16C16C15D47ull), from_bits(0x3FA5555555555551ull)};

// Coefficients of CUDA's double log (libdevice `__nv_log`): atanh series in s = 2 (m-1)/(m+1),
// and ln 2 split into a head with trailing zeros and a tail.
inline constexpr double log_coef[] = {
    from_bits(0x3EB1380B3AE80F1Eull), from_bits(0x3ED0EE258B7A8B04ull),
    from_bits(0x3EF3B2669F02676Full), from_bits(0x3F1745CBA9AB0956ull),
    from_bits(0x3F3C71C72D1B5154ull), from_bits(0x3F624924923BE72Dull),
    from_bits(0x3F8999999999A3C4ull), from_bits(0x3FB5555555555554ull)};
inline constexpr double ln2_hi = from_bits(0x3FE62E42FEFA39EFull);
inline constexpr double ln2_lo = from_bits(0x3C7ABC9E3B39803Full);

} // namespace detail

/// sin(pi x) and cos(pi x), computed exactly as CUDA's device `sincospi(double, double*, double*)`:
/// x is reduced exactly, x = q/2 + r with q = rint(2x) and |r| <= 1/4, then minimax polynomials for
/// sin(pi r) and cos(pi r) are combined by the quadrant q. Unlike `sin(pi * x)`, the result keeps
/// its relative accuracy near the zeros, and sinpi(n) = +-0, cospi(n + 1/2) = +0 exactly. Within 1
/// ulp of the exact values.
inline void sincospi(double x, double* sin_out, double* cos_out) {
  if (std::isnan(x) || std::isinf(x)) {
    *sin_out = *cos_out = x * 0.0; // NaN, as on the device
    return;
  }
  const auto high = static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(x) >> 32);
  if (high + high > 0x86800000u) {
    x = x * 0.0; // |x| > 2^53: an even integer, sinpi = +-0 and cospi = 1 (kept: signed zero)
  }
  // 2x by an exponent increment, as CUDA does; for zero and subnormal x this gives a tiny
  // number instead of 2x, which rounds to the same integer 0.
  const double twice = std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) + (1ull << 52));
  const double q_real = std::nearbyint(twice); // ties to even, like cvt.rni
  const auto quadrant = static_cast<int>(static_cast<long long>(q_real));
  const double r = std::fma(-q_real, 0.5, x); // exact
  const double a = std::fma(r, detail::pi_hi, r * detail::pi_lo);
  const double a2 = a * a;

  double c = std::fma(detail::cospi_coef[0], a2, detail::cospi_coef[1]);
  for (int i = 2; i < 6; ++i) {
    c = std::fma(c, a2, detail::cospi_coef[i]);
  }
  c = std::fma(c, a2, -0.5);
  c = std::fma(c, a2, 1.0);

  double s = std::fma(detail::sinpi_coef[0], a2, detail::sinpi_coef[1]);
  for (int i = 2; i < 6; ++i) {
    s = std::fma(s, a2, detail::sinpi_coef[i]);
  }
  s = std::fma(s, a2, 0.0);
  s = std::fma(s, a, a);

  if (quadrant & 1) {
    const double t = s;
    s = c;
    c = -t;
  }
  if (quadrant & 2) {
    s = -s;
    c = -c;
  }
  c = c + 0.0; // cospi never returns -0
  if (x == std::trunc(x)) {
    s = x * 0.0; // sinpi of an integer is a zero with the sign of x
  }
  *sin_out = s;
  *cos_out = c;
}

/// The natural logarithm computed exactly as CUDA's device `log(double)`: m * 2^e with
/// m in [sqrt(1/2), sqrt(2)), then an atanh series in s = 2 (m - 1) / (m + 1) with a
/// compensated tail. The device seeds 1 / (m + 1) with a hardware reciprocal approximation and
/// refines it by Newton steps; here the seed is the correctly rounded reciprocal, which the same
/// refinement turns into the same value except in rare near-tie cases. Within 1 ulp.
inline double cuda_log(double x) {
  auto bits = std::bit_cast<std::uint64_t>(x);
  auto high = static_cast<std::int32_t>(bits >> 32);
  int exponent = -1023;
  if (high < 0x00100000) { // subnormal, zero or negative: scale subnormals into the normal range
    x *= detail::from_bits(0x4350000000000000ull); // 2^54
    exponent -= 54;
    bits = std::bit_cast<std::uint64_t>(x);
    high = static_cast<std::int32_t>(bits >> 32);
  }
  if (high <= 0 || high >= 0x7ff00000) {
    if ((high & 0x7fffffff) == 0) {
      return -HUGE_VAL; // +-0
    }
    return std::fma(x, HUGE_VAL, HUGE_VAL); // +inf stays, NaN stays, negative gives NaN
  }
  exponent += static_cast<int>(static_cast<std::uint32_t>(high) >> 20);
  auto mant_high = static_cast<std::uint32_t>((high & 0x800fffff) | 0x3ff00000);
  if (mant_high > 0x3ff6a09eu) { // m >= ~sqrt(2): use m / 2 and e + 1
    mant_high -= 0x00100000u;
    exponent += 1;
  }
  const double m =
      std::bit_cast<double>((static_cast<std::uint64_t>(mant_high) << 32) | (bits & 0xffffffffull));
  const double f = m - 1.0; // exact
  const double g = m + 1.0;
  double recip = 1.0 / g;
  double err = std::fma(-g, recip, 1.0);
  err = std::fma(err, err, err);
  recip = std::fma(err, recip, recip);
  double s = f * recip;
  s = s + s;
  const double s2 = s * s;
  double p = std::fma(detail::log_coef[0], s2, detail::log_coef[1]);
  for (int i = 2; i < 8; ++i) {
    p = std::fma(p, s2, detail::log_coef[i]);
  }
  // s was rounded; the tail recovers 2 (f - s) - s f, the part of 2 f / (m + 1) that s lost.
  double tail = 2.0 * (f - s);
  tail = std::fma(-s, f, tail);
  tail = recip * tail;
  tail = std::fma(p * s2, s, tail);
  const auto e = static_cast<double>(exponent);
  const double head = std::fma(e, detail::ln2_hi, s);
  double lost = std::fma(-e, detail::ln2_hi, head);
  lost = lost - s;
  tail = tail - lost;
  tail = std::fma(e, detail::ln2_lo, tail);
  return head + tail;
}

} // namespace chunked::random

#endif // !CHUNKED_RTC
