// SPDX-License-Identifier: Apache-2.0
// The random kernels for AVX-512 (F + DQ): eight 64-bit lanes per vector.

// The build compiles this file with -mavx512f -mavx512dq -mfma where the compiler targets x86-64;
// elsewhere it provides no kernels.
#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__FMA__)

// GCC 12's AVX-512 intrinsics pass `_mm512_undefined_*()` values as unused merge sources, which
// -Wmaybe-uninitialized and -Wuninitialized report inside the intrinsic headers once inlined (a
// false positive: the merge source is never read).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <immintrin.h>

#define CHUNKED_ISA_NAMESPACE isa_avx512
#include "backend/cpu/simd_random_kernel.hpp"

namespace chunked::cpu::isa_avx512 {

namespace {

#define CHUNKED_SIMD_OP static inline __attribute__((always_inline))

struct Avx512 {
  static constexpr int width = 8;
  using U = __m512i;
  using D = __m512d;
  using M = __mmask8;

  CHUNKED_SIMD_OP U set_u(std::uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  CHUNKED_SIMD_OP D set_d(double x) { return _mm512_set1_pd(x); }
  CHUNKED_SIMD_OP U lanes() { return _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0); }
  CHUNKED_SIMD_OP U load(const std::int64_t* p) { return _mm512_loadu_si512(p); }

  CHUNKED_SIMD_OP U add(U a, U b) { return _mm512_add_epi64(a, b); }
  CHUNKED_SIMD_OP U sub(U a, U b) { return _mm512_sub_epi64(a, b); }
  CHUNKED_SIMD_OP U band(U a, U b) { return _mm512_and_si512(a, b); }
  CHUNKED_SIMD_OP U bor(U a, U b) { return _mm512_or_si512(a, b); }
  CHUNKED_SIMD_OP U bxor(U a, U b) { return _mm512_xor_si512(a, b); }
  CHUNKED_SIMD_OP U xor3(U a, U b, U c) { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }
  template <int n> CHUNKED_SIMD_OP U shr(U a) { return _mm512_srli_epi64(a, n); }
  template <int n> CHUNKED_SIMD_OP U shl(U a) { return _mm512_slli_epi64(a, n); }
  CHUNKED_SIMD_OP U mul32(U a, U b) { return _mm512_mul_epu32(a, b); }
  CHUNKED_SIMD_OP M odd(U a) { return _mm512_test_epi64_mask(a, _mm512_set1_epi64(1)); }
  // Signed compare; callers compare values below 2^63.
  CHUNKED_SIMD_OP M gt(U a, U b) { return _mm512_cmpgt_epi64_mask(a, b); }
  CHUNKED_SIMD_OP U select(M m, U if_set, U if_clear) {
    return _mm512_mask_blend_epi64(m, if_clear, if_set);
  }

  CHUNKED_SIMD_OP D add(D a, D b) { return _mm512_add_pd(a, b); }
  CHUNKED_SIMD_OP D sub(D a, D b) { return _mm512_sub_pd(a, b); }
  CHUNKED_SIMD_OP D mul(D a, D b) { return _mm512_mul_pd(a, b); }
  CHUNKED_SIMD_OP D div(D a, D b) { return _mm512_div_pd(a, b); }
  CHUNKED_SIMD_OP D sqrt(D a) { return _mm512_sqrt_pd(a); }
  // a < b ? a : b per lane (MINPD), as the scalar code's select.
  CHUNKED_SIMD_OP D min(D a, D b) { return _mm512_min_pd(a, b); }
  CHUNKED_SIMD_OP D fmadd(D a, D b, D c) { return _mm512_fmadd_pd(a, b, c); }
  CHUNKED_SIMD_OP D fnmadd(D a, D b, D c) { return _mm512_fnmadd_pd(a, b, c); }
  CHUNKED_SIMD_OP D round_even(D a) {
    return _mm512_roundscale_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  CHUNKED_SIMD_OP D trunc(D a) {
    return _mm512_roundscale_pd(a, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  }
  CHUNKED_SIMD_OP M eq(D a, D b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
  CHUNKED_SIMD_OP D select(M m, D if_set, D if_clear) {
    return _mm512_mask_blend_pd(m, if_clear, if_set);
  }
  CHUNKED_SIMD_OP U bits(D a) { return _mm512_castpd_si512(a); }
  CHUNKED_SIMD_OP D from_bits(U a) { return _mm512_castsi512_pd(a); }
  // Exact for values below 2^53.
  CHUNKED_SIMD_OP D to_double_53(U a) { return _mm512_cvtepi64_pd(a); }

  CHUNKED_SIMD_OP void store(double* p, D x) { _mm512_storeu_pd(p, x); }
  CHUNKED_SIMD_OP void store(float* p, D x) { _mm256_storeu_ps(p, _mm512_cvtpd_ps(x)); }
  CHUNKED_SIMD_OP void store(std::int64_t* p, U x) { _mm512_storeu_si512(p, x); }
  CHUNKED_SIMD_OP void store(std::int32_t* p, U x) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi64_epi32(x));
  }

  // (e0..e7), (o0..o7) -> (e0 o0 e1 o1 .. e3 o3), (e4 o4 .. e7 o7).
  CHUNKED_SIMD_OP void interleave(U even, U odd, U& lo, U& hi) {
    lo = _mm512_permutex2var_epi64(even, _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), odd);
    hi = _mm512_permutex2var_epi64(even, _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), odd);
  }
  CHUNKED_SIMD_OP void interleave(D even, D odd, D& lo, D& hi) {
    lo = _mm512_permutex2var_pd(even, _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), odd);
    hi = _mm512_permutex2var_pd(even, _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), odd);
  }
};

#undef CHUNKED_SIMD_OP

} // namespace

} // namespace chunked::cpu::isa_avx512

namespace chunked::cpu::isa_avx512 {

const simd::RandomKernelTable* random_kernels() noexcept { return &RandomSimd<Avx512>::table; }

} // namespace chunked::cpu::isa_avx512

#else

#include "backend/cpu/isa.hpp"

namespace chunked::cpu::isa_avx512 {

const simd::RandomKernelTable* random_kernels() noexcept { return nullptr; }

} // namespace chunked::cpu::isa_avx512

#endif
