// SPDX-License-Identifier: Apache-2.0
// Normal, uniform and integer samples from Philox blocks: the element-wise spec of random arrays.
#pragma once

#include "chunked/core/host_device.hpp"
#include "chunked/random/philox.hpp"

#if !CHUNKED_RTC
#include <cmath>

#include "chunked/random/cuda_math.hpp"
#endif

/// @file
/// Every element of a random array is a pure function of (seed, stream, flat index e), so any
/// element can be computed alone, on any backend, in any order. Element `e` uses the Philox block
/// `e >> 1` (see `philox_words`); the block's four words give two values, the first for the even
/// element 2b and the second for the odd element 2b + 1:
///
/// - normal: cuRAND's double Box-Muller, u = (w0 ^ w1 << 21) 2^-53 + 2^-54,
///   v = (w2 ^ w3 << 21) 2^-52 + 2^-53, z_even = sqrt(-2 log u) sinpi(v),
///   z_odd = sqrt(-2 log u) cospi(v); the sample is fma(stddev, z, mean).
/// - uniform on [low, high) (finite low <= high): u = (w0 ^ w1 << 21) 2^-53 + 2^-54 for the even
///   element, the same of (w2, w3) for the odd one, in (0, 1] (1 for one word pair in 2^53). With
///   w = (high - low) / 2 rounded (finite even where high - low overflows), the value is
///   fma(w, 2u, low), low + (high - low) u rounded once: the bits of fma(high - low, u, low)
///   wherever high - low is finite and at least 2^-1021. A value that reaches high (u = 1, a
///   rounding up, or the rounding of a float array) becomes `last`, the largest value of the
///   array's type below high, so every sample lies in [low, high) (all are low when low == high).
///   `uniform_form` computes w and `last` once per array: no element takes a branch.
/// - integers in [low, high): with w = w0 | w1 << 32 (even) or w2 | w3 << 32 (odd) and
///   n = high - low as uint64 (so the whole int64 range works), low + floor(w n / 2^64) (Lemire's
///   multiply-shift, no rejection).
///
/// float samples are the double samples rounded (a uniform one after its `last` of float); int32
/// samples are the int64 samples of the same [low, high), which lie in int32's range. On the
/// device the math is CUDA's own (`sincospi`, `log`, `sqrt`), so words and normals are those of
/// cuRAND's `curand_normal2_double` on `curandStatePhilox4_32_10_t`; on the host `sincospi` and
/// `cuda_log` reproduce CUDA's algorithms.
///
/// @code
/// using namespace chunked::random;
/// double x = normal_at(42, 0, 12345, 10.0, 1.0);        // element 12345 of stream 0 of seed 42
/// Pair<double> p = normal_pair(42, 0, 12345 >> 1, 10.0, 1.0);  // elements 12344 and 12345
/// @endcode

namespace chunked::random {

/// The two values one Philox block gives: for elements 2b (`even`) and 2b + 1 (`odd`).
template <class T> struct Pair {
  T even;
  T odd;
};

namespace detail {

// fma keeps `mean + stddev * z` a single rounding whatever contraction a compiler applies, so the
// CPU and GPU results cannot drift apart on -ffp-contract or --fmad settings.
CHUNKED_HD CHUNKED_FORCEINLINE double fused_mul_add(double a, double b, double c) {
#if CHUNKED_DEVICE_CODE
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

CHUNKED_HD CHUNKED_FORCEINLINE double log_of(double x) {
#if CHUNKED_DEVICE_CODE
  return ::log(x);
#else
  return ::chunked::random::cuda_log(x);
#endif
}

CHUNKED_HD CHUNKED_FORCEINLINE double sqrt_of(double x) {
#if CHUNKED_DEVICE_CODE
  return ::sqrt(x);
#else
  return std::sqrt(x);
#endif
}

CHUNKED_HD CHUNKED_FORCEINLINE void sincospi_of(double x, double* s, double* c) {
#if CHUNKED_DEVICE_CODE
  ::sincospi(x, s, c);
#else
  ::chunked::random::sincospi(x, s, c);
#endif
}

/// sinpi(x) when `odd` is false, cospi(x) when true: the half of sincospi(x) an element takes.
/// On the device, a warp whose lanes all take the same half computes only that half (the
/// separate functions return the same bits as sincospi's halves; the device tests compare them
/// with cuRAND), which halves the trigonometry of a strided slice of a normal array.
CHUNKED_HD CHUNKED_FORCEINLINE double sincospi_half(double x, bool odd) {
#if CHUNKED_DEVICE_CODE
  const unsigned lanes = __activemask();
  if (__all_sync(lanes, !odd))
    return ::sinpi(x);
  if (__all_sync(lanes, odd))
    return ::cospi(x);
#endif
  double s = 0.0;
  double c = 0.0;
  sincospi_of(x, &s, &c);
  return odd ? c : s;
}

CHUNKED_HD CHUNKED_FORCEINLINE u64_t mul_high64(u64_t a, u64_t b) {
#if CHUNKED_DEVICE_CODE
  return __umul64hi(a, b);
#elif defined(__SIZEOF_INT128__)
  __extension__ using u128_t = unsigned __int128; // GCC and Clang; __extension__ for -Wpedantic
  return static_cast<u64_t>((static_cast<u128_t>(a) * b) >> 64);
#else
  const u64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
  const u64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
  const u64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  const u64_t middle = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
  return hi_hi + (hi_lo >> 32) + (middle >> 32);
#endif
}

// 53 random bits, as cuRAND's `_curand_uniform_double_hq`: both the conversion and the product
// are exact, so the one rounding is in the final addition.
CHUNKED_HD CHUNKED_FORCEINLINE u64_t bits53(u32_t lo, u32_t hi) {
  return static_cast<u64_t>(lo) ^ (static_cast<u64_t>(hi) << 21);
}

} // namespace detail

/// (lo ^ hi << 21) 2^-53 + 2^-54: a uniform double in (0, 1] from two words.
CHUNKED_HD CHUNKED_FORCEINLINE double unit_uniform(u32_t lo, u32_t hi) {
  return static_cast<double>(detail::bits53(lo, hi)) * 0x1p-53 + 0x1p-54;
}

/// (lo ^ hi << 21) 2^-52 + 2^-53: exactly 2 unit_uniform(lo, hi), in (0, 2] (scaling by 2 commutes
/// with the one rounding). Box-Muller's angle, and the factor of a uniform's half width.
CHUNKED_HD CHUNKED_FORCEINLINE double twice_unit_uniform(u32_t lo, u32_t hi) {
  return static_cast<double>(detail::bits53(lo, hi)) * 0x1p-52 + 0x1p-53;
}

/// The constants of a uniform array of element type T (float or double) on [low, high), which
/// every element's value takes (uniform_value): computed once per array, off the element loops.
struct UniformForm {
  double low;        ///< the array's low
  double half_width; ///< (high - low) / 2, rounded; finite where high - low overflows
  double last;       ///< the largest T below high (high when low == high), as a double
};

namespace detail {

/// std::nextafter(x, to) in T's precision, as a double.
template <class T> CHUNKED_HD CHUNKED_FORCEINLINE double next_toward(double x, double to) {
#if CHUNKED_DEVICE_CODE
  if constexpr (sizeof(T) == sizeof(float))
    return static_cast<double>(::nextafterf(static_cast<float>(x), static_cast<float>(to)));
  else
    return ::nextafter(x, to);
#else
  if constexpr (sizeof(T) == sizeof(float))
    return static_cast<double>(std::nextafter(static_cast<float>(x), static_cast<float>(to)));
  else
    return std::nextafter(x, to);
#endif
}

} // namespace detail

/// The form of `Generator::uniform<T>(..., low, high)`, whose low and high are finite with
/// low <= high (of T). The half width is 0.5 (high - low) when that difference is finite (an
/// exact halving unless it is below 2^-1021), else 0.5 high - 0.5 low, which cannot overflow.
/// A reversed range, which Generator rejects but a hand-made plan::Leaf may hold, is not clamped:
/// its values lie in [high, low].
template <class T>
CHUNKED_HD CHUNKED_FORCEINLINE UniformForm uniform_form(double low, double high) {
  static_assert(sizeof(T) == sizeof(float) || sizeof(T) == sizeof(double),
                "uniform_form needs float or double");
  const double width = high - low;
  const double half = width - width == 0.0 ? 0.5 * width : 0.5 * high - 0.5 * low;
  const double no_clamp = 0x1.fffffffffffffp+1023; // the largest double
  return {low, half, low <= high ? detail::next_toward<T>(high, low) : no_clamp};
}

/// The value of `f` from twice_u = 2u in (0, 2]: low + (high - low) u rounded once, as
/// fma(half_width, 2u, low), then `last` where it reaches high. Casting it to T is exact where
/// it is `last`, so the sample of a float array is this value rounded, never high.
CHUNKED_HD CHUNKED_FORCEINLINE double uniform_value(const UniformForm& f, double twice_u) {
  const double v = detail::fused_mul_add(f.half_width, twice_u, f.low);
  return v < f.last ? v : f.last;
}

/// Two uniform doubles in (0, 1] from one block: (w0, w1) and (w2, w3).
CHUNKED_HD CHUNKED_FORCEINLINE Pair<double> unit_uniform_pair(Words4x32 w) {
  return {unit_uniform(w.w0, w.w1), unit_uniform(w.w2, w.w3)};
}

/// Two standard normals from one block by cuRAND's double Box-Muller transform.
CHUNKED_HD CHUNKED_FORCEINLINE Pair<double> standard_normal_pair(Words4x32 w) {
  const double u = unit_uniform(w.w0, w.w1);
  const double v = twice_unit_uniform(w.w2, w.w3);
  const double radius = detail::sqrt_of(-2.0 * detail::log_of(u));
  double s = 0.0;
  double c = 0.0;
  detail::sincospi_of(v, &s, &c);
  return {s * radius, c * radius};
}

/// low + floor(w n / 2^64) with n = high - low: an integer in [low, high) from a 64-bit word.
/// Requires low < high; n is taken modulo 2^64, so the whole int64 range works.
CHUNKED_HD CHUNKED_FORCEINLINE i64_t integer_in(u64_t w, i64_t low, i64_t high) {
  const u64_t n = static_cast<u64_t>(high) - static_cast<u64_t>(low);
  return static_cast<i64_t>(static_cast<u64_t>(low) + detail::mul_high64(w, n));
}

/// Two integers in [low, high) from one block: words w0 | w1 << 32 and w2 | w3 << 32.
CHUNKED_HD CHUNKED_FORCEINLINE Pair<i64_t> integer_pair(Words4x32 w, i64_t low, i64_t high) {
  const u64_t even = static_cast<u64_t>(w.w0) | (static_cast<u64_t>(w.w1) << 32);
  const u64_t odd = static_cast<u64_t>(w.w2) | (static_cast<u64_t>(w.w3) << 32);
  return {integer_in(even, low, high), integer_in(odd, low, high)};
}

/// Elements 2 `block` and 2 `block` + 1 of a normal array (one Philox call for both).
CHUNKED_HD CHUNKED_FORCEINLINE Pair<double> normal_pair(u64_t seed, u64_t stream, u64_t block,
                                                        double mean, double stddev) {
  const Pair<double> z = standard_normal_pair(philox_words(seed, stream, block));
  return {detail::fused_mul_add(stddev, z.even, mean), detail::fused_mul_add(stddev, z.odd, mean)};
}

/// Elements 2 `block` and 2 `block` + 1 of a uniform array of form `f` (see uniform_form), as
/// doubles (a float array rounds them).
CHUNKED_HD CHUNKED_FORCEINLINE Pair<double> uniform_pair(u64_t seed, u64_t stream, u64_t block,
                                                         const UniformForm& f) {
  const Words4x32 w = philox_words(seed, stream, block);
  return {uniform_value(f, twice_unit_uniform(w.w0, w.w1)),
          uniform_value(f, twice_unit_uniform(w.w2, w.w3))};
}

/// Elements 2 `block` and 2 `block` + 1 of `Generator(seed).uniform<double>(..., low, high)`.
CHUNKED_HD CHUNKED_FORCEINLINE Pair<double> uniform_pair(u64_t seed, u64_t stream, u64_t block,
                                                         double low, double high) {
  return uniform_pair(seed, stream, block, uniform_form<double>(low, high));
}

/// Elements 2 `block` and 2 `block` + 1 of an integer array on [low, high).
CHUNKED_HD CHUNKED_FORCEINLINE Pair<i64_t> integers_pair(u64_t seed, u64_t stream, u64_t block,
                                                         i64_t low, i64_t high) {
  return integer_pair(philox_words(seed, stream, block), low, high);
}

/// The standard normal of an element whose block gave `w`: z0 (sinpi) for even elements, z1
/// (cospi) for odd ones; the same bits as the matching half of standard_normal_pair.
CHUNKED_HD CHUNKED_FORCEINLINE double standard_normal_of(Words4x32 w, bool odd) {
  const double u = unit_uniform(w.w0, w.w1);
  const double v = twice_unit_uniform(w.w2, w.w3);
  const double radius = detail::sqrt_of(-2.0 * detail::log_of(u));
  return detail::sincospi_half(v, odd) * radius;
}

/// Element `e` (C-order flat index) of stream `stream` of `Generator(seed).normal(..., mean,
/// stddev)`.
CHUNKED_HD CHUNKED_FORCEINLINE double normal_at(u64_t seed, u64_t stream, u64_t e, double mean,
                                                double stddev) {
  const double z = standard_normal_of(philox_words(seed, stream, block_of(e)), (e & 1u) != 0);
  return detail::fused_mul_add(stddev, z, mean);
}

/// Element `e` of stream `stream` of a uniform array of form `f`, as a double (a float array
/// rounds it): `static_cast<float>(uniform_at(seed, s, e, uniform_form<float>(low, high)))` is
/// element e of `Generator(seed).uniform<float>(..., low, high)` of stream s.
CHUNKED_HD CHUNKED_FORCEINLINE double uniform_at(u64_t seed, u64_t stream, u64_t e,
                                                 const UniformForm& f) {
  const Words4x32 w = philox_words(seed, stream, block_of(e));
  const double twice_u =
      (e & 1u) != 0 ? twice_unit_uniform(w.w2, w.w3) : twice_unit_uniform(w.w0, w.w1);
  return uniform_value(f, twice_u);
}

/// Element `e` of stream `stream` of `Generator(seed).uniform<double>(..., low, high)`.
CHUNKED_HD CHUNKED_FORCEINLINE double uniform_at(u64_t seed, u64_t stream, u64_t e, double low,
                                                 double high) {
  return uniform_at(seed, stream, e, uniform_form<double>(low, high));
}

/// Element `e` of stream `stream` of `Generator(seed).integers(..., low, high)`; requires low <
/// high.
CHUNKED_HD CHUNKED_FORCEINLINE i64_t integers_at(u64_t seed, u64_t stream, u64_t e, i64_t low,
                                                 i64_t high) {
  const Words4x32 w = philox_words(seed, stream, block_of(e));
  const u64_t word = (e & 1u) != 0 ? (static_cast<u64_t>(w.w2) | (static_cast<u64_t>(w.w3) << 32))
                                   : (static_cast<u64_t>(w.w0) | (static_cast<u64_t>(w.w1) << 32));
  return integer_in(word, low, high);
}

} // namespace chunked::random
