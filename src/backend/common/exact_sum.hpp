// SPDX-License-Identifier: Apache-2.0
// The exact accumulator of ComputeOptions::exact_sums: a sum of doubles held without rounding,
// combined exactly, rounded once at the end.
#pragma once

// Compiled by the host compiler, by nvcc and by NVRTC, like partial_ops.hpp.
#include <chunked/ops/scalar.hpp>

/// @file
/// An entry is `words` int64 words:
///
///   [0] flags (any element, an element other than -0.0, NaN, +inf, -inf)
///   [1] deposits into the digits since they were last normalized
///   [2] the anchor A of the window (below), or `no_anchor`
///   [3] values added to the window's bins since it was last settled
///   [4, 7) the window's bins, doubles
///   [7, 7 + digits) the digits: digit i holds an integer multiple of 2^(base + 32 i), so that
///       the entry's finite value is exactly the sum of the digits times their weights plus the
///       bins. Every finite double is a 53-bit integer times a power of two from 2^-1074 up, so
///       every sum of up to 2^63 of them is such a number, and no addition here rounds.
///
/// A deposit splits a double's integer significand over three consecutive digits (a 32-bit piece
/// each) and adds it; digits are int64 so that about 2^31 deposits fit before the carries must be
/// propagated (normalize). The window is the fast path for values of similar size: with the
/// anchor A (every value it takes has |x| < 2^A), a value splits without error into three parts,
/// multiples of 2^(A-32), 2^(A-64) and 2^(A-96), each added to its own double bin; 2^20 such
/// additions stay exact in a double, after which the bins are settled into the digits. What the
/// three parts leave (nonzero only for a value more than 44 binades below 2^A) is deposited.
///
/// Because every step is exact, the value of an entry is the exact sum of what it took, whatever
/// the order, grouping or path: combining entries in any tree, on any backend, gives the same
/// number, and rounding it once (to_double, to_float) gives the correctly rounded sum, round half
/// to even. Special values follow IEEE and NumPy: a NaN, or +inf with -inf, gives NaN; one kind
/// of infinity gives it; a finite sum beyond the largest double gives an infinity; a zero sum is
/// -0.0 only when every element was -0.0 (an empty sum is +0.0).
///
/// The words are int64; functions over an entry take `W*` for whichever spelling of int64 the
/// caller's memory has (long on LP64 hosts, long long in kernels).

namespace chunked::scalar::exact {

using u64 = unsigned long long;

inline constexpr int digits = 68;
inline constexpr int base = -1088; ///< the weight of digit 0 is 2^base
inline constexpr int bins = 3;
inline constexpr int words = 7 + digits;

// Word indices.
inline constexpr int flags_word = 0, deposits_word = 1, anchor_word = 2, added_word = 3,
                     bins_word = 4, digits_word = 7;

/// Bits of the flags word.
inline constexpr i64 flag_any = 1, flag_not_negative_zero = 2, flag_nan = 4, flag_pos_inf = 8,
                     flag_neg_inf = 16;

/// Digits stay within int64 while fewer than this many deposits (or combines) separate
/// normalizations: each adds less than 2^32 in magnitude to a digit.
inline constexpr i64 normalize_after = i64{1} << 29;
/// The window's bins stay exact while fewer than this many values were added.
inline constexpr i64 settle_after = i64{1} << 20;
/// Anchor word of an entry without a window.
inline constexpr i64 no_anchor = -(i64{1} << 62);
/// Anchors the window can take: its constants and parts must be normal doubles.
inline constexpr int min_anchor = -970, max_anchor = 1000;

// ---- Bits -------------------------------------------------------------------------------------

CHUNKED_HD CHUNKED_FORCEINLINE u64 bits_of(double x) {
#if CHUNKED_DEVICE_CODE
  return static_cast<u64>(__double_as_longlong(x));
#else
  return __builtin_bit_cast(u64, x);
#endif
}
CHUNKED_HD CHUNKED_FORCEINLINE double double_of(u64 b) {
#if CHUNKED_DEVICE_CODE
  return __longlong_as_double(static_cast<long long>(b));
#else
  return __builtin_bit_cast(double, b);
#endif
}
CHUNKED_HD CHUNKED_FORCEINLINE float float_of(unsigned b) {
#if CHUNKED_DEVICE_CODE
  return __int_as_float(static_cast<int>(b));
#else
  return __builtin_bit_cast(float, b);
#endif
}
/// Leading zero bits of a nonzero 32-bit value.
CHUNKED_HD CHUNKED_FORCEINLINE int leading_zeros(unsigned v) {
#if CHUNKED_DEVICE_CODE
  return __clz(static_cast<int>(v));
#else
  return __builtin_clz(v);
#endif
}

/// The power of two 2^e as a double, for -1022 <= e <= 1023.
CHUNKED_HD CHUNKED_FORCEINLINE double pow2(int e) {
  return double_of(static_cast<u64>(e + 1023) << 52);
}

/// The anchor of a window that takes values of magnitude up to |x| (x finite, nonzero): the
/// exponent A with |x| < 2^A.
CHUNKED_HD CHUNKED_FORCEINLINE int anchor_for(double x) {
  const int e = static_cast<int>((bits_of(x) >> 52) & 0x7ff);
  return e == 0 ? -1022 : e - 1022;
}

/// The constants that split values below 2^A into the window's parts: (s + x) - s rounds x to a
/// multiple of ulp(s) without error, since |x| is far below s.
struct Splitters {
  double s[bins];
};
CHUNKED_HD CHUNKED_FORCEINLINE Splitters splitters(int anchor) {
  Splitters c{};
  for (int j = 0; j < bins; ++j)
    c.s[j] = 1.5 * pow2(anchor + 20 - 32 * j);
  return c;
}

/// The window's three parts of x (|x| < 2^A for the splitters' anchor A), each rounded without
/// error, and what they leave (nonzero only for bits below the third part's unit). V is double,
/// or a vector of doubles (GCC's vector extensions: the CPU's lanes), lane by lane.
template <class V> struct Parts { V q0, q1, q2, rest; };
template <class V> CHUNKED_HD CHUNKED_FORCEINLINE Parts<V> split(V x, V s0, V s1, V s2) {
  const V q0 = (s0 + x) - s0;
  V r = x - q0;
  const V q1 = (s1 + r) - s1;
  r -= q1;
  const V q2 = (s2 + r) - s2;
  r -= q2;
  return {q0, q1, q2, r};
}

// ---- Digits -----------------------------------------------------------------------------------

/// Calls add(i, v) for the three digits i of the finite double x and the signed amounts v (each
/// of magnitude below 2^32) that add x to them; nothing for a zero. Every way of adding to digits
/// (deposit_finite below, and the atomic additions of the CUDA kernels) goes through it.
template <class Add> CHUNKED_HD CHUNKED_FORCEINLINE void digit_pieces(double x, Add&& add) {
  const u64 b = bits_of(x);
  const int e = static_cast<int>((b >> 52) & 0x7ff);
  const u64 f = b & ((u64{1} << 52) - 1);
  if (e == 0 && f == 0)
    return;
  const u64 m = e == 0 ? f : (f | (u64{1} << 52));
  // x = m * 2^(max(e, 1) - 1075) = m * 2^(base + p), 0 <= p < 32 * (digits - 3)
  const int p = (e == 0 ? 1 : e) - 1075 - base;
  const int i = p >> 5;
  const int s = p & 31;
  const u64 mask = 0xffffffffull;
  const auto lo = static_cast<i64>((m << s) & mask);
  const auto mid = static_cast<i64>((m >> (32 - s)) & mask);
  const i64 hi = s == 0 ? 0 : static_cast<i64>(m >> (64 - s));
  const bool negative = (b >> 63) != 0;
  add(i, negative ? -lo : lo);
  add(i + 1, negative ? -mid : mid);
  if (hi != 0)
    add(i + 2, negative ? -hi : hi);
}

/// Adds the finite double x to the digits d.
template <class W> CHUNKED_HD CHUNKED_FORCEINLINE void add_to_digits(W* d, double x) {
  digit_pieces(x, [d](int i, i64 v) { d[i] += static_cast<W>(v); });
}

/// Propagates the carries of the digits d: afterwards every digit but the last is in [0, 2^32)
/// and the last holds the sign.
template <class W> CHUNKED_HD CHUNKED_FORCEINLINE void carry(W* d) {
  for (int i = 0; i < digits - 1; ++i) {
    const W c = d[i] >> 32; // floor(d[i] / 2^32)
    d[i] -= c * (W{1} << 32);
    d[i + 1] += c;
  }
}

template <class W> CHUNKED_HD CHUNKED_FORCEINLINE void normalize(W* w) {
  carry(w + digits_word);
  w[deposits_word] = 0;
}

/// Counts one more deposit (or combine) into w's digits, normalizing when due.
template <class W> CHUNKED_HD CHUNKED_FORCEINLINE void count_deposit(W* w) {
  if (++w[deposits_word] >= normalize_after)
    normalize(w);
}

/// Adds a finite double to the digits of w (not its flags).
template <class W> CHUNKED_HD CHUNKED_FORCEINLINE void deposit_finite(W* w, double x) {
  if (x == 0.0)
    return;
  add_to_digits(w + digits_word, x);
  count_deposit(w);
}

/// The flags one element sets.
CHUNKED_HD CHUNKED_FORCEINLINE i64 flags_of(double x) {
  const u64 b = bits_of(x);
  i64 f = flag_any;
  if (b != (u64{1} << 63))
    f |= flag_not_negative_zero;
  if (((b >> 52) & 0x7ff) == 0x7ff)
    f |=
        (b & ((u64{1} << 52) - 1)) != 0 ? flag_nan : ((b >> 63) != 0 ? flag_neg_inf : flag_pos_inf);
  return f;
}

CHUNKED_HD CHUNKED_FORCEINLINE bool is_finite(double x) {
  return ((bits_of(x) >> 52) & 0x7ff) != 0x7ff;
}

/// Adds one element of any value to the entry w.
template <class W> CHUNKED_HD CHUNKED_FORCEINLINE void deposit(W* w, double x) {
  w[flags_word] |= flags_of(x);
  if (is_finite(x))
    deposit_finite(w, x);
}

// ---- The window -------------------------------------------------------------------------------

template <class W> CHUNKED_HD CHUNKED_FORCEINLINE double bin(const W* w, int j) {
  return double_of(static_cast<u64>(w[bins_word + j]));
}
template <class W> CHUNKED_HD CHUNKED_FORCEINLINE void set_bin(W* w, int j, double v) {
  w[bins_word + j] = static_cast<W>(bits_of(v));
}

/// Moves the window's bins into the digits (exactly: each is a multiple of its part's unit and
/// below 2^53 of them) and empties them; the anchor stays.
template <class W> CHUNKED_HD inline void settle(W* w) {
  for (int j = 0; j < bins; ++j) {
    deposit_finite(w, bin(w, j));
    set_bin(w, j, 0.0);
  }
  w[added_word] = 0;
}

/// Adds one element to w through its window, anchoring (or re-anchoring) the window when x is
/// too large for it; values the window cannot take go to the digits.
template <class W> CHUNKED_HD inline void add(W* w, double x) {
  w[flags_word] |= flags_of(x);
  if (!is_finite(x) || x == 0.0)
    return;
  const double ax = x < 0 ? -x : x;
  if (w[anchor_word] == no_anchor || !(ax < pow2(static_cast<int>(w[anchor_word])))) {
    // A little above x's own binade, so that values a few times larger keep the same window.
    const int a = anchor_for(x) + 4;
    if (a < min_anchor || a > max_anchor) {
      deposit_finite(w, x);
      return;
    }
    settle(w);
    w[anchor_word] = a;
  }
  const Splitters c = splitters(static_cast<int>(w[anchor_word]));
  const Parts<double> p = split(x, c.s[0], c.s[1], c.s[2]);
  set_bin(w, 0, bin(w, 0) + p.q0);
  set_bin(w, 1, bin(w, 1) + p.q1);
  set_bin(w, 2, bin(w, 2) + p.q2);
  if (p.rest != 0.0)
    deposit_finite(w, p.rest);
  if (++w[added_word] >= settle_after)
    settle(w);
}

// ---- Entries ----------------------------------------------------------------------------------

/// The identity: no element.
template <class W> CHUNKED_HD inline void clear(W* w) {
  for (int i = 0; i < words; ++i)
    w[i] = 0;
  w[anchor_word] = no_anchor;
}

/// a absorbs b (a and b may not alias; a's window stays, b's is added to a's digits).
template <class W> CHUNKED_HD inline void combine(W* a, const W* b) {
  a[flags_word] |= b[flags_word];
  for (int j = 0; j < bins; ++j)
    deposit_finite(a, bin(b, j));
  if (a[deposits_word] + b[deposits_word] + 1 >= normalize_after) {
    normalize(a);
    i64 d[digits];
    for (int i = 0; i < digits; ++i)
      d[i] = b[digits_word + i];
    carry(d);
    for (int i = 0; i < digits; ++i)
      a[digits_word + i] += d[i];
    count_deposit(a);
    return;
  }
  for (int i = 0; i < digits; ++i)
    a[digits_word + i] += b[digits_word + i];
  a[deposits_word] += b[deposits_word];
  count_deposit(a);
}

// ---- Rounding ---------------------------------------------------------------------------------

/// A sum rounded to `precision` significant bits: m * 2^lsb, negated when `negative`.
struct Rounded {
  enum Kind : int { zero, finite, overflow } kind = zero;
  bool negative = false;
  u64 m = 0;
  int lsb = 0;
};

/// Digit k of nonnegative normalized digits d of which only [lo, hi] may be nonzero.
CHUNKED_HD CHUNKED_FORCEINLINE u64 digit_at(const i64* d, int lo, int hi, int k) {
  return k >= lo && k <= hi ? static_cast<u64>(d[k]) : u64{0};
}

/// Bits [pos, pos + count) of such digits (count <= 64 - 31).
CHUNKED_HD CHUNKED_FORCEINLINE u64 bits_at(const i64* d, int lo, int hi, int pos, int count) {
  const int i = pos >> 5;
  const int s = pos & 31;
  const u64 low = digit_at(d, lo, hi, i) | digit_at(d, lo, hi, i + 1) << 32;
  const u64 high = digit_at(d, lo, hi, i + 2);
  const u64 r = (low >> s) | (s == 0 ? u64{0} : high << (64 - s));
  return count >= 64 ? r : r & ((u64{1} << count) - 1);
}

/// Whether any bit of such digits below position pos is set.
CHUNKED_HD CHUNKED_FORCEINLINE bool any_below(const i64* d, int lo, int hi, int pos) {
  const int i = pos >> 5;
  for (int k = lo; k < i && k <= hi; ++k)
    if (d[k] != 0)
      return true;
  return (digit_at(d, lo, hi, i) & ((u64{1} << (pos & 31)) - 1)) != 0;
}

/// The magnitude held by nonnegative normalized digits d, of which only [lo, h] may be nonzero and
/// d[h] is not, rounded to nearest, ties to even, to `precision` bits, with results below
/// 2^(min_lsb + precision - 1) subnormal (multiples of 2^min_lsb) and results of 2^(max_exp + 1)
/// or more an overflow.
CHUNKED_HD inline Rounded round_digits(const i64* d, int lo, int h, bool negative, int precision,
                                       int min_lsb, int max_exp) {
  Rounded r;
  r.negative = negative;
  const int top = 32 * h + 31 - leading_zeros(static_cast<unsigned>(d[h])); // from base
  int lsb = top + base - (precision - 1);
  if (lsb < min_lsb)
    lsb = min_lsb;
  const int rel = lsb - base;
  u64 m = bits_at(d, lo, h, rel, top - rel + 1);
  const bool half = ((digit_at(d, lo, h, (rel - 1) >> 5) >> ((rel - 1) & 31)) & 1) != 0;
  if (half && ((m & 1) != 0 || any_below(d, lo, h, rel - 1))) {
    ++m;
    if ((m >> precision) != 0) {
      m >>= 1;
      ++lsb;
    }
  }
  r.kind = lsb + precision - 1 > max_exp ? Rounded::overflow : Rounded::finite;
  r.m = m;
  r.lsb = lsb;
  return r;
}

/// The finite value of w (digits and bins) rounded as round_digits says.
template <class W>
CHUNKED_HD inline Rounded round_value(const W* w, int precision, int min_lsb, int max_exp) {
  i64 d[digits];
  for (int i = 0; i < digits; ++i)
    d[i] = w[digits_word + i];
  for (int j = 0; j < bins; ++j) // the bins, as settle() would add them
    add_to_digits(d, bin(w, j));
  carry(d);
  const bool negative = d[digits - 1] < 0;
  if (negative) {
    for (int i = 0; i < digits; ++i)
      d[i] = -d[i];
    carry(d);
  }
  int h = digits - 1;
  while (h >= 0 && d[h] == 0)
    --h;
  if (h < 0)
    return Rounded{};
  return round_digits(d, 0, h, negative, precision, min_lsb, max_exp);
}

/// Whether the flags f of a sum make it NaN or an infinity, and which (as a double).
CHUNKED_HD CHUNKED_FORCEINLINE bool special_value(i64 f, double& out) {
  if ((f & flag_nan) != 0 || ((f & flag_pos_inf) != 0 && (f & flag_neg_inf) != 0)) {
    out = quiet_nan<double>();
    return true;
  }
  if ((f & (flag_pos_inf | flag_neg_inf)) != 0) {
    out = (f & flag_pos_inf) != 0 ? infinity() : -infinity();
    return true;
  }
  return false;
}

/// Whether a zero sum with flags f is -0.0: it took elements, all of them -0.0.
CHUNKED_HD CHUNKED_FORCEINLINE bool negative_zero(i64 f) {
  return (f & (flag_any | flag_not_negative_zero)) == flag_any;
}

/// Rounding to T (double or float): its precision, least exponent of a subnormal's unit, largest
/// exponent, and its bits.
template <class T> struct Format;
template <> struct Format<double> {
  using Bits = u64;
  static constexpr int precision = 53, min_lsb = -1074, max_exp = 1023;
  CHUNKED_HD static double from_bits(u64 b) { return double_of(b); }
};
template <> struct Format<float> {
  using Bits = unsigned;
  static constexpr int precision = 24, min_lsb = -149, max_exp = 127;
  CHUNKED_HD static float from_bits(unsigned b) { return float_of(b); }
};

/// The T of a sum with flags f whose finite value rounds (as Format<T> says) to r.
template <class T> CHUNKED_HD inline T value_of_sum(const Rounded& r, i64 f) {
  using F = Format<T>;
  using B = typename F::Bits;
  double special = 0;
  if (special_value(f, special))
    return static_cast<T>(special);
  switch (r.kind) {
  case Rounded::zero:
    return negative_zero(f) ? T(-0.0) : T(0.0);
  case Rounded::overflow:
    return static_cast<T>(r.negative ? -infinity() : infinity());
  default:
    break;
  }
  constexpr int width = F::precision - 1; // stored significand bits
  const B sign = r.negative ? static_cast<B>(B{1} << (8 * sizeof(B) - 1)) : B{0};
  const auto m = static_cast<B>(r.m);
  if ((m >> width) == 0) // subnormal: r.lsb == F::min_lsb
    return F::from_bits(sign | m);
  return F::from_bits(sign | (static_cast<B>(r.lsb - F::min_lsb + 1) << width) |
                      (m - (B{1} << width)));
}

/// The correctly rounded T (double or float) of w's sum: rounded once from the exact value (a
/// float not through a double).
template <class T, class W> CHUNKED_HD inline T rounded_sum(const W* w) {
  using F = Format<T>;
  return value_of_sum<T>(round_value(w, F::precision, F::min_lsb, F::max_exp),
                         static_cast<i64>(w[flags_word]));
}

/// The correctly rounded double of w's sum.
template <class W> CHUNKED_HD inline double to_double(const W* w) { return rounded_sum<double>(w); }

/// The correctly rounded float of w's sum.
template <class W> CHUNKED_HD inline float to_float(const W* w) { return rounded_sum<float>(w); }

} // namespace chunked::scalar::exact
