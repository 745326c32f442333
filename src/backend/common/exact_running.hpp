// SPDX-License-Identifier: Apache-2.0
// The running exact sum of an exact cumsum (ComputeOptions::exact_sums): the digits of an exact
// entry kept carried after every element, so that each prefix can be rounded in the time of the
// digits it spans.
#pragma once

// Compiled by the host compiler and by nvcc, like exact_sum.hpp.
#include "backend/common/exact_sum.hpp"

namespace chunked::scalar::exact {

/// A running sum: flags and digits as an entry's (exact_sum.hpp), the digits always carried (two's
/// complement: every digit but the last in [0, 2^32), the last signed), with a range [lo, hi]
/// outside which the digits are zero (below) or the sign's extension (above). Elements of similar
/// size keep the range a few digits wide, so adding and rounding cost a few digit operations each.
struct Running {
  i64 flags;
  int lo, hi;
  i64 d[digits];
};

/// The empty sum.
CHUNKED_HD inline void start(Running& r) {
  r.flags = 0;
  r.lo = digits - 1;
  r.hi = 0;
  for (int i = 0; i < digits; ++i)
    r.d[i] = 0;
}

/// Writes r as an entry (carried digits, no window) into w.
template <class W> CHUNKED_HD inline void store(const Running& r, W* w) {
  clear(w);
  w[flags_word] = static_cast<W>(r.flags);
  for (int i = 0; i < digits; ++i)
    w[digits_word + i] = static_cast<W>(r.d[i]);
}

/// Adds the sum held by the entry w to r.
template <class W> CHUNKED_HD inline void absorb(Running& r, const W* w) {
  r.flags |= static_cast<i64>(w[flags_word]);
  for (int i = 0; i < digits; ++i)
    r.d[i] += static_cast<i64>(w[digits_word + i]);
  for (int j = 0; j < bins; ++j)
    add_to_digits(r.d, bin(w, j));
  carry(r.d);
  r.lo = 0;
  r.hi = digits - 1;
}

/// The sum held by the entry w.
template <class W> CHUNKED_HD inline void load(Running& r, const W* w) {
  start(r);
  absorb(r, w);
}

/// Adds one element of any value to r.
CHUNKED_HD inline void add(Running& r, double x) {
  r.flags |= flags_of(x);
  if (!is_finite(x))
    return;
  int first = digits, last = -1;
  digit_pieces(x, [&](int i, i64 v) {
    r.d[i] += v;
    first = i < first ? i : first;
    last = i;
  });
  if (last < 0)
    return;
  // Carry from the lowest digit changed until past the highest with nothing left to carry.
  int k = first;
  for (; k < digits - 1; ++k) {
    const i64 c = r.d[k] >> 32; // floor(d[k] / 2^32)
    if (c == 0 && k >= last)
      break;
    r.d[k] -= c * (i64{1} << 32);
    r.d[k + 1] += c;
  }
  r.lo = first < r.lo ? first : r.lo;
  r.hi = k > r.hi ? k : r.hi;
}

/// The sum of r correctly rounded to T (double or float), exactly as to_double or to_float would
/// round the same sum held in an entry. Narrows r's range to the digits that are not zero or
/// the sign's extension.
template <class T> CHUNKED_HD inline T running_value(Running& r) {
  using F = Format<T>;
  double special = 0;
  if (special_value(r.flags, special)) // NaN or an infinity from here on: no rounding to do
    return static_cast<T>(special);
  constexpr i64 mask = 0xffffffffll;
  const bool negative = r.d[digits - 1] < 0;
  const i64 extension = negative ? mask : 0;
  while (r.hi > 0 && r.d[r.hi] == (r.hi == digits - 1 ? (negative ? -1 : 0) : extension))
    --r.hi;
  if (r.lo > r.hi)
    r.lo = r.hi;
  while (r.lo < r.hi && r.d[r.lo] == 0)
    ++r.lo;
  if (!negative) {
    if (r.d[r.hi] == 0)
      return value_of_sum<T>(Rounded{}, r.flags);
    return value_of_sum<T>(
        round_digits(r.d, r.lo, r.hi, false, F::precision, F::min_lsb, F::max_exp), r.flags);
  }
  // The magnitude, ~d + 1 over the range: digits below lo are zero, so the +1 enters at lo, and
  // the extension above hi turns into zeros but for what carries into hi + 1.
  i64 m[digits + 1];
  i64 c = 1;
  for (int k = r.lo; k <= r.hi; ++k) {
    const i64 v = (~r.d[k] & mask) + c;
    m[k] = v & mask;
    c = v >> 32;
  }
  m[r.hi + 1] = c;
  int h = r.hi + 1;
  while (h > r.lo && m[h] == 0)
    --h;
  return value_of_sum<T>(round_digits(m, r.lo, h, true, F::precision, F::min_lsb, F::max_exp),
                         r.flags);
}

} // namespace chunked::scalar::exact
