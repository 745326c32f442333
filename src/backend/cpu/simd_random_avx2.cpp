// SPDX-License-Identifier: Apache-2.0
// The random kernels for AVX2 + FMA: four 64-bit lanes per vector.

// The build compiles this file with -mavx2 -mfma where the compiler targets x86-64; elsewhere it
// provides no kernels.
#if defined(__AVX2__) && defined(__FMA__)

#include <immintrin.h>

#define CHUNKED_ISA_NAMESPACE isa_avx2
#include "backend/cpu/simd_random_kernel.hpp"

namespace chunked::cpu::isa_avx2 {

namespace {

#define CHUNKED_SIMD_OP static inline __attribute__((always_inline))

struct Avx2 {
  static constexpr int width = 4;
  using U = __m256i;
  using D = __m256d;
  using M = __m256i; // all ones in selected lanes

  CHUNKED_SIMD_OP U set_u(std::uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  CHUNKED_SIMD_OP D set_d(double x) { return _mm256_set1_pd(x); }
  CHUNKED_SIMD_OP U lanes() { return _mm256_set_epi64x(3, 2, 1, 0); }
  CHUNKED_SIMD_OP U load(const std::int64_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }

  CHUNKED_SIMD_OP U add(U a, U b) { return _mm256_add_epi64(a, b); }
  CHUNKED_SIMD_OP U sub(U a, U b) { return _mm256_sub_epi64(a, b); }
  CHUNKED_SIMD_OP U band(U a, U b) { return _mm256_and_si256(a, b); }
  CHUNKED_SIMD_OP U bor(U a, U b) { return _mm256_or_si256(a, b); }
  CHUNKED_SIMD_OP U bxor(U a, U b) { return _mm256_xor_si256(a, b); }
  CHUNKED_SIMD_OP U xor3(U a, U b, U c) { return _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
  template <int n> CHUNKED_SIMD_OP U shr(U a) { return _mm256_srli_epi64(a, n); }
  template <int n> CHUNKED_SIMD_OP U shl(U a) { return _mm256_slli_epi64(a, n); }
  CHUNKED_SIMD_OP U mul32(U a, U b) { return _mm256_mul_epu32(a, b); }
  CHUNKED_SIMD_OP M odd(U a) {
    const U one = _mm256_set1_epi64x(1);
    return _mm256_cmpeq_epi64(_mm256_and_si256(a, one), one);
  }
  // Signed compare; callers compare values below 2^63.
  CHUNKED_SIMD_OP M gt(U a, U b) { return _mm256_cmpgt_epi64(a, b); }
  CHUNKED_SIMD_OP U select(M m, U if_set, U if_clear) {
    return _mm256_blendv_epi8(if_clear, if_set, m);
  }

  CHUNKED_SIMD_OP D add(D a, D b) { return _mm256_add_pd(a, b); }
  CHUNKED_SIMD_OP D sub(D a, D b) { return _mm256_sub_pd(a, b); }
  CHUNKED_SIMD_OP D mul(D a, D b) { return _mm256_mul_pd(a, b); }
  CHUNKED_SIMD_OP D div(D a, D b) { return _mm256_div_pd(a, b); }
  CHUNKED_SIMD_OP D sqrt(D a) { return _mm256_sqrt_pd(a); }
  // a < b ? a : b per lane (MINPD), as the scalar code's select.
  CHUNKED_SIMD_OP D min(D a, D b) { return _mm256_min_pd(a, b); }
  CHUNKED_SIMD_OP D fmadd(D a, D b, D c) { return _mm256_fmadd_pd(a, b, c); }
  CHUNKED_SIMD_OP D fnmadd(D a, D b, D c) { return _mm256_fnmadd_pd(a, b, c); }
  CHUNKED_SIMD_OP D round_even(D a) {
    return _mm256_round_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  CHUNKED_SIMD_OP D trunc(D a) {
    return _mm256_round_pd(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  }
  CHUNKED_SIMD_OP M eq(D a, D b) { return _mm256_castpd_si256(_mm256_cmp_pd(a, b, _CMP_EQ_OQ)); }
  CHUNKED_SIMD_OP D select(M m, D if_set, D if_clear) {
    return _mm256_blendv_pd(if_clear, if_set, _mm256_castsi256_pd(m));
  }
  CHUNKED_SIMD_OP U bits(D a) { return _mm256_castpd_si256(a); }
  CHUNKED_SIMD_OP D from_bits(U a) { return _mm256_castsi256_pd(a); }
  // AVX2 has no 64-bit integer conversion: the high 21 and low 32 bits become 2^84 + hi 2^32
  // and 2^52 + lo by their bit patterns; both subtractions and the sum are exact below 2^53.
  CHUNKED_SIMD_OP D to_double_53(U a) {
    const U hi = _mm256_or_si256(_mm256_srli_epi64(a, 32), _mm256_set1_epi64x(0x4530000000000000));
    const U lo = _mm256_or_si256(_mm256_and_si256(a, _mm256_set1_epi64x(0xffffffff)),
                                 _mm256_set1_epi64x(0x4330000000000000));
    const D high = _mm256_sub_pd(_mm256_castsi256_pd(hi), _mm256_set1_pd(0x1p84 + 0x1p52));
    return _mm256_add_pd(high, _mm256_castsi256_pd(lo));
  }

  CHUNKED_SIMD_OP void store(double* p, D x) { _mm256_storeu_pd(p, x); }
  CHUNKED_SIMD_OP void store(float* p, D x) { _mm_storeu_ps(p, _mm256_cvtpd_ps(x)); }
  CHUNKED_SIMD_OP void store(std::int64_t* p, U x) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x);
  }
  CHUNKED_SIMD_OP void store(std::int32_t* p, U x) {
    const U packed = _mm256_permutevar8x32_epi32(x, _mm256_set_epi32(6, 4, 2, 0, 6, 4, 2, 0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
  }

  // (e0..e3), (o0..o3) -> (e0 o0 e1 o1), (e2 o2 e3 o3).
  CHUNKED_SIMD_OP void interleave(D even, D odd, D& lo, D& hi) {
    const D a = _mm256_unpacklo_pd(even, odd); // e0 o0 e2 o2
    const D b = _mm256_unpackhi_pd(even, odd); // e1 o1 e3 o3
    lo = _mm256_permute2f128_pd(a, b, 0x20);
    hi = _mm256_permute2f128_pd(a, b, 0x31);
  }
  CHUNKED_SIMD_OP void interleave(U even, U odd, U& lo, U& hi) {
    D l;
    D h;
    interleave(_mm256_castsi256_pd(even), _mm256_castsi256_pd(odd), l, h);
    lo = _mm256_castpd_si256(l);
    hi = _mm256_castpd_si256(h);
  }
};

#undef CHUNKED_SIMD_OP

} // namespace

} // namespace chunked::cpu::isa_avx2

namespace chunked::cpu::isa_avx2 {

const simd::RandomKernelTable* random_kernels() noexcept { return &RandomSimd<Avx2>::table; }

} // namespace chunked::cpu::isa_avx2

#else

#include "backend/cpu/isa.hpp"

namespace chunked::cpu::isa_avx2 {

const simd::RandomKernelTable* random_kernels() noexcept { return nullptr; }

} // namespace chunked::cpu::isa_avx2

#endif
