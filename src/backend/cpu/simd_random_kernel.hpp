// SPDX-License-Identifier: Apache-2.0
// Vectorised Philox sampling written once over a small vector interface, included per instruction
// set.
#pragma once

// Each instruction-set translation unit defines CHUNKED_ISA_NAMESPACE and a struct of vector
// operations, then includes this file (the mechanism isa.hpp describes): the kernels land in that
// namespace, so the copies compiled with different -m flags never share a symbol. For the same
// reason this file calls no inline function of another header: a copy compiled for AVX-512 could be
// the one the linker keeps for code that runs on any CPU. It only reads constants from the random
// headers.
#ifndef CHUNKED_ISA_NAMESPACE
#error "define CHUNKED_ISA_NAMESPACE before including simd_random_kernel.hpp"
#endif

#include <cstdint>

#include "backend/cpu/isa.hpp"
#include "backend/cpu/random_kernels.hpp"
#include "backend/cpu/simd_random.hpp"
#include "chunked/random/cuda_math.hpp"
#include "chunked/random/philox.hpp"

namespace chunked::cpu::CHUNKED_ISA_NAMESPACE {

namespace rd = ::chunked::random::detail;

/// The kernels over a vector interface V: lanes of 64-bit integers (V::U) and doubles (V::D),
/// lane masks (V::M) and the operations below. Every floating-point step is the one of the
/// scalar code in chunked/random (same constants, same fused multiply-adds in the same order), so
/// each lane is bit-identical to `normal_at`, `uniform_at` and `integers_at`.
template <class V> struct RandomSimd {
  using U = typename V::U;
  using D = typename V::D;
  using M = typename V::M;
  static constexpr int width = V::width;
  static constexpr int rounds = 10;

  // The round keys of Philox4x32-10 and the stream words, broadcast once per call.
  struct Philox {
    U k0[rounds];
    U k1[rounds];
    U stream_lo;
    U stream_hi;
  };

  // Words in the low halves of 64-bit lanes; the high halves may hold garbage (see philox).
  struct Words {
    U w0, w1, w2, w3;
  };

  static Philox make_philox(const RandomSource& src) {
    Philox p;
    auto k0 = static_cast<std::uint32_t>(src.seed);
    auto k1 = static_cast<std::uint32_t>(src.seed >> 32);
    for (int r = 0; r < rounds; ++r) {
      p.k0[r] = V::set_u(k0);
      p.k1[r] = V::set_u(k1);
      k0 += rd::philox_w0;
      k1 += rd::philox_w1;
    }
    p.stream_lo = V::set_u(src.stream & 0xffffffffu);
    p.stream_hi = V::set_u(src.stream >> 32);
    return p;
  }

  // Philox4x32-10 on the blocks in `block`. The 32x32->64 products are vpmuludq, which reads
  // only the low half of each lane; the low products (words 1 and 3) are kept unmasked, so high
  // halves carry garbage that only ever reaches other high halves. Callers mask the outputs.
  static Words philox(const Philox& p, U block) {
    const U m0 = V::set_u(rd::philox_m0);
    const U m1 = V::set_u(rd::philox_m1);
    U c0 = block;
    U c1 = V::template shr<32>(block);
    U c2 = p.stream_lo;
    U c3 = p.stream_hi;
    for (int r = 0; r < rounds; ++r) {
      const U p0 = V::mul32(m0, c0);
      const U p1 = V::mul32(m1, c2);
      c0 = V::xor3(V::template shr<32>(p1), c1, p.k0[r]);
      c2 = V::xor3(V::template shr<32>(p0), c3, p.k1[r]);
      c1 = p1;
      c3 = p0;
    }
    return {c0, c1, c2, c3};
  }

  static U low32(U x) { return V::band(x, V::set_u(0xffffffffu)); }

  // lo ^ hi << 21 as a double: 53 random bits, converted exactly.
  static D bits53(U lo, U hi) {
    const U h = V::band(V::template shl<21>(hi), V::set_u(0xffffffffull << 21));
    return V::to_double_53(V::bxor(low32(lo), h));
  }

  // The scalar `unit_uniform`: the product is exact, the sum rounds once.
  static D unit_uniform(U lo, U hi) {
    return V::add(V::mul(bits53(lo, hi), V::set_d(0x1p-53)), V::set_d(0x1p-54));
  }

  // The scalar `twice_unit_uniform`, likewise.
  static D twice_unit_uniform(U lo, U hi) {
    return V::add(V::mul(bits53(lo, hi), V::set_d(0x1p-52)), V::set_d(0x1p-53));
  }

  // CUDA's log for positive normal finite x (every u of Box-Muller is in [2^-54, 1]), step by
  // step as `chunked::random::cuda_log`.
  static D log(D x) {
    const U bits = V::bits(x);
    const U biased = V::template shr<52>(bits);
    const U mantissa = V::band(bits, V::set_u(0x000fffffffffffffull));
    // The scalar code tests the high word of m against 0x3ff6a09e (m >= ~sqrt(2)).
    const M upper = V::gt(mantissa, V::set_u(0x0006a09effffffffull));
    const U m_bits = V::bor(mantissa, V::set_u(0x3ff0000000000000ull));
    const D m = V::from_bits(V::select(upper, V::sub(m_bits, V::set_u(1ull << 52)), m_bits));
    // The exponent biased - 1023 (+1 in the upper half) as an exact double: 2^52 + k, less
    // 2^52 + 1023.
    const U e_bits = V::add(V::set_u(0x4330000000000000ull), biased);
    const D e_big = V::from_bits(V::select(upper, V::add(e_bits, V::set_u(1)), e_bits));
    const D e = V::sub(e_big, V::set_d(0x1p52 + 1023.0));

    const D f = V::sub(m, V::set_d(1.0));
    const D g = V::add(m, V::set_d(1.0));
    D recip = V::div(V::set_d(1.0), g);
    D err = V::fnmadd(g, recip, V::set_d(1.0));
    err = V::fmadd(err, err, err);
    recip = V::fmadd(err, recip, recip);
    D s = V::mul(f, recip);
    s = V::add(s, s);
    const D s2 = V::mul(s, s);
    D p = V::fmadd(V::set_d(rd::log_coef[0]), s2, V::set_d(rd::log_coef[1]));
    for (int i = 2; i < 8; ++i) {
      p = V::fmadd(p, s2, V::set_d(rd::log_coef[i]));
    }
    D tail = V::mul(V::set_d(2.0), V::sub(f, s));
    tail = V::fnmadd(s, f, tail);
    tail = V::mul(recip, tail);
    tail = V::fmadd(V::mul(p, s2), s, tail);
    const D head = V::fmadd(e, V::set_d(rd::ln2_hi), s);
    D lost = V::fnmadd(e, V::set_d(rd::ln2_hi), head);
    lost = V::sub(lost, s);
    tail = V::sub(tail, lost);
    tail = V::fmadd(e, V::set_d(rd::ln2_lo), tail);
    return V::add(head, tail);
  }

  // CUDA's sincospi for finite x with |x| < 2^50 (Box-Muller's v is in (0, 2]), step by step as
  // `chunked::random::sincospi`.
  static void sincospi(D x, D& sin_out, D& cos_out) {
    const U x_bits = V::bits(x);
    const D twice = V::from_bits(V::add(x_bits, V::set_u(1ull << 52)));
    const D q = V::round_even(twice);
    const D r = V::fnmadd(q, V::set_d(0.5), x);
    const D a = V::fmadd(r, V::set_d(rd::pi_hi), V::mul(r, V::set_d(rd::pi_lo)));
    const D a2 = V::mul(a, a);

    D c = V::fmadd(V::set_d(rd::cospi_coef[0]), a2, V::set_d(rd::cospi_coef[1]));
    for (int i = 2; i < 6; ++i) {
      c = V::fmadd(c, a2, V::set_d(rd::cospi_coef[i]));
    }
    c = V::fmadd(c, a2, V::set_d(-0.5));
    c = V::fmadd(c, a2, V::set_d(1.0));

    D s = V::fmadd(V::set_d(rd::sinpi_coef[0]), a2, V::set_d(rd::sinpi_coef[1]));
    for (int i = 2; i < 6; ++i) {
      s = V::fmadd(s, a2, V::set_d(rd::sinpi_coef[i]));
    }
    s = V::fmadd(s, a2, V::set_d(0.0));
    s = V::fmadd(s, a, a);

    // The quadrant's low bits: 1.5 * 2^52 + q holds q (mod 4) in its lowest mantissa bits.
    const U quadrant = V::bits(V::add(q, V::set_d(0x1.8p52)));
    const M odd = V::odd(quadrant);
    // Quadrant 1 gives (c, -s), 2 gives (-s, -c), 3 gives (-c, s): sin flips sign in quadrants
    // 2 and 3, cos in 1 and 2; a sign flip is the exact negation of the scalar code.
    const U sin_flip = V::template shl<62>(V::band(quadrant, V::set_u(2)));
    const U cos_flip = V::template shl<62>(V::band(V::add(quadrant, V::set_u(1)), V::set_u(2)));
    D sin_q = V::from_bits(V::bxor(V::bits(V::select(odd, c, s)), sin_flip));
    D cos_q = V::from_bits(V::bxor(V::bits(V::select(odd, s, c)), cos_flip));
    cos_q = V::add(cos_q, V::set_d(0.0)); // cospi never returns -0
    const M integral = V::eq(x, V::trunc(x));
    sin_q = V::select(integral, V::mul(x, V::set_d(0.0)), sin_q);
    sin_out = sin_q;
    cos_out = cos_q;
  }

  // Box-Muller of one block per lane: z for the even element and for the odd one.
  static void standard_normal(const Words& w, D& even, D& odd) {
    const D u = unit_uniform(w.w0, w.w1);
    const D v = twice_unit_uniform(w.w2, w.w3);
    const D radius = V::sqrt(V::mul(V::set_d(-2.0), log(u)));
    D s;
    D c;
    sincospi(v, s, c);
    even = V::mul(s, radius);
    odd = V::mul(c, radius);
  }

  // ---- Distributions: `one` gives the elements at flat indices e, `pair` both elements of
  // the blocks in `block`.

  struct Normal {
    using Out = D;
    D mean;
    D stddev;
    Normal(double m, double s) : mean(V::set_d(m)), stddev(V::set_d(s)) {}
    void pair(const Philox& p, U block, D& even, D& odd) const {
      standard_normal(philox(p, block), even, odd);
      even = V::fmadd(stddev, even, mean);
      odd = V::fmadd(stddev, odd, mean);
    }
    D one(const Philox& p, U e) const {
      D even;
      D odd;
      standard_normal(philox(p, V::template shr<1>(e)), even, odd);
      return V::fmadd(stddev, V::select(V::odd(e), odd, even), mean);
    }
  };

  // The scalar `uniform_value`: min(v, last) is `v < last ? v : last` (no NaN can occur).
  struct Uniform {
    using Out = D;
    D low;
    D half_width;
    D last;
    explicit Uniform(const random::UniformForm& f)
        : low(V::set_d(f.low)), half_width(V::set_d(f.half_width)), last(V::set_d(f.last)) {}
    D value(D twice_u) const { return V::min(V::fmadd(half_width, twice_u, low), last); }
    void pair(const Philox& p, U block, D& even, D& odd) const {
      const Words w = philox(p, block);
      even = value(twice_unit_uniform(w.w0, w.w1));
      odd = value(twice_unit_uniform(w.w2, w.w3));
    }
    D one(const Philox& p, U e) const {
      const Words w = philox(p, V::template shr<1>(e));
      const M odd = V::odd(e);
      return value(twice_unit_uniform(V::select(odd, w.w2, w.w0), V::select(odd, w.w3, w.w1)));
    }
  };

  struct Integers {
    using Out = U;
    U low;
    U n;
    U n_hi;
    Integers(std::int64_t lo, std::int64_t hi)
        : low(V::set_u(static_cast<std::uint64_t>(lo))),
          n(V::set_u(static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo))),
          n_hi(V::template shr<32>(n)) {}
    // low + floor(w n / 2^64) from four 32x32 products, as the portable `mul_high64`; the middle
    // sum cannot overflow (at most 2^64 - 1).
    U integer_in(U w) const {
      const U w_hi = V::template shr<32>(w);
      const U lo_lo = V::mul32(w, n);
      const U hi_lo = V::mul32(w_hi, n);
      const U lo_hi = V::mul32(w, n_hi);
      const U hi_hi = V::mul32(w_hi, n_hi);
      const U middle = V::add(V::add(V::template shr<32>(lo_lo), low32(hi_lo)), lo_hi);
      const U high = V::add(V::add(hi_hi, V::template shr<32>(hi_lo)), V::template shr<32>(middle));
      return V::add(low, high);
    }
    static U word(U lo, U hi) { return V::bor(low32(lo), V::template shl<32>(hi)); }
    void pair(const Philox& p, U block, U& even, U& odd) const {
      const Words w = philox(p, block);
      even = integer_in(word(w.w0, w.w1));
      odd = integer_in(word(w.w2, w.w3));
    }
    U one(const Philox& p, U e) const {
      const Words w = philox(p, V::template shr<1>(e));
      const M odd = V::odd(e);
      return integer_in(word(V::select(odd, w.w2, w.w0), V::select(odd, w.w3, w.w1)));
    }
  };

  // ---- Drivers over index runs and lists. Partial vectors go through a small buffer, so the
  // lanes past the end compute harmless values that are never stored.

  template <class T> static void copy_n(const T* from, index_t n, T* to) {
    for (index_t i = 0; i < n; ++i) {
      to[i] = from[i];
    }
  }

  template <class Dist, class T>
  static void run_strided(const Philox& p, const Dist& dist, IndexRun idx, T* out) {
    alignas(64) std::int64_t first[width];
    auto e0 = static_cast<std::uint64_t>(idx.first);
    const auto step = static_cast<std::uint64_t>(idx.step); // wraps for negative steps
    for (int i = 0; i < width; ++i) {
      first[i] = static_cast<std::int64_t>(e0 + step * static_cast<std::uint64_t>(i));
    }
    U e = V::load(first);
    const U advance = V::set_u(step * width);
    index_t i = 0;
    for (; i + width <= idx.count; i += width, e = V::add(e, advance)) {
      V::store(out + i, dist.one(p, e));
    }
    if (i < idx.count) {
      alignas(64) T rest[width];
      V::store(rest, dist.one(p, e));
      copy_n(rest, idx.count - i, out + i);
    }
  }

  template <class Dist, class T>
  static void run_list(const Philox& p, const Dist& dist, IndexList idx, T* out) {
    index_t i = 0;
    for (; i + width <= idx.count; i += width) {
      V::store(out + i, dist.one(p, V::load(idx.data + i)));
    }
    if (i < idx.count) {
      alignas(64) std::int64_t indices[width] = {};
      copy_n(idx.data + i, idx.count - i, indices);
      alignas(64) T rest[width];
      V::store(rest, dist.one(p, V::load(indices)));
      copy_n(rest, idx.count - i, out + i);
    }
  }

  // Step 1: one Philox block per two elements. Groups of `width` blocks cover 2 * width
  // elements; groups that straddle either end of the run go through a buffer.
  template <class Dist, class T>
  static void run_contiguous(const Philox& p, const Dist& dist, IndexRun idx, T* out) {
    const auto first = static_cast<std::uint64_t>(idx.first);
    const std::uint64_t end = first + static_cast<std::uint64_t>(idx.count);
    std::uint64_t block = first >> 1;
    const std::uint64_t block_end = (end + 1) >> 1;
    constexpr std::uint64_t group = std::uint64_t{2} * width; // elements per group of blocks
    U blocks = V::add(V::lanes(), V::set_u(block));
    for (; block < block_end; block += width, blocks = V::add(blocks, V::set_u(width))) {
      typename Dist::Out even;
      typename Dist::Out odd;
      dist.pair(p, blocks, even, odd);
      typename Dist::Out lo;
      typename Dist::Out hi;
      V::interleave(even, odd, lo, hi);
      const std::uint64_t e = 2 * block;
      if (e >= first && e + group <= end) {
        V::store(out + (e - first), lo);
        V::store(out + (e - first) + width, hi);
      } else {
        alignas(64) T both[2 * width];
        V::store(both, lo);
        V::store(both + width, hi);
        const std::uint64_t from = e > first ? e : first;
        const std::uint64_t to = e + group < end ? e + group : end;
        for (std::uint64_t j = from; j < to; ++j) {
          out[j - first] = both[j - e];
        }
      }
    }
  }

  template <class Dist, class T>
  static void run(const RandomSource& src, const Dist& dist, IndexRun idx, T* out) {
    if (idx.count <= 0) {
      return;
    }
    const Philox p = make_philox(src);
    if (idx.step == 1) {
      run_contiguous(p, dist, idx, out);
    } else {
      run_strided(p, dist, idx, out);
    }
  }

  template <class Dist, class T>
  static void run(const RandomSource& src, const Dist& dist, IndexList idx, T* out) {
    if (idx.count <= 0) {
      return;
    }
    run_list(make_philox(src), dist, idx, out);
  }

  template <class Idx, class T>
  static void normal(const RandomSource& src, double mean, double stddev, Idx idx, T* out) {
    run(src, Normal(mean, stddev), idx, out);
  }
  template <class Idx, class T>
  static void uniform(const RandomSource& src, const random::UniformForm& form, Idx idx, T* out) {
    run(src, Uniform(form), idx, out);
  }
  template <class Idx, class T>
  static void integers(const RandomSource& src, std::int64_t low, std::int64_t high, Idx idx,
                       T* out) {
    run(src, Integers(low, high), idx, out);
  }

  static void normal_blocks(const random::Words4x32* words, index_t n, double* even, double* odd) {
    for (index_t i = 0; i < n; i += width) {
      const index_t m = n - i < width ? n - i : width;
      alignas(64) std::int64_t w[4][width] = {};
      for (index_t j = 0; j < m; ++j) {
        w[0][j] = words[i + j].w0;
        w[1][j] = words[i + j].w1;
        w[2][j] = words[i + j].w2;
        w[3][j] = words[i + j].w3;
      }
      D z_even;
      D z_odd;
      standard_normal(Words{V::load(w[0]), V::load(w[1]), V::load(w[2]), V::load(w[3])}, z_even,
                      z_odd);
      alignas(64) double e[width];
      alignas(64) double o[width];
      V::store(e, z_even);
      V::store(o, z_odd);
      copy_n(e, m, even + i);
      copy_n(o, m, odd + i);
    }
  }

  static constexpr simd::RandomKernelTable table{
      &normal<IndexRun, double>,
      &normal<IndexRun, float>,
      &normal<IndexList, double>,
      &normal<IndexList, float>,
      &uniform<IndexRun, double>,
      &uniform<IndexRun, float>,
      &uniform<IndexList, double>,
      &uniform<IndexList, float>,
      &integers<IndexRun, std::int64_t>,
      &integers<IndexRun, std::int32_t>,
      &integers<IndexList, std::int64_t>,
      &integers<IndexList, std::int32_t>,
      &normal_blocks,
  };
};

} // namespace chunked::cpu::CHUNKED_ISA_NAMESPACE
