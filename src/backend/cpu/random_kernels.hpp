// SPDX-License-Identifier: Apache-2.0
// CPU kernels that fill a buffer with the random elements at given flat indices.
#pragma once

#include <cstdint>

#include "chunked/core/types.hpp"
#include "chunked/random/philox.hpp"

namespace chunked::cpu {

/// One random array: the generator seed and the stream number of the call that made it.
struct RandomSource {
  std::uint64_t seed;
  std::uint64_t stream;
};

/// Flat indices `first, first + step, ..., first + (count - 1) * step` (step may be 0 or negative,
/// all indices must be >= 0): one row of a tile read through an affine index map.
struct IndexRun {
  index_t first;
  index_t step;
  index_t count;
};

/// Flat indices given one by one (gathers), `count` of them at `data`.
struct IndexList {
  const index_t* data;
  index_t count;
};

/// Instruction sets the random kernels have a vectorised path for.
enum class SimdIsa {
  scalar, ///< one element at a time, on any CPU
  avx2,   ///< AVX2 + FMA, 4 lanes
  avx512, ///< AVX-512 F + DQ, 8 lanes
};

/// "scalar", "avx2" or "avx512".
const char* simd_isa_name(SimdIsa isa) noexcept;

/// Whether this build has the kernels of `isa` and this CPU can run them (scalar: always).
bool simd_isa_supported(SimdIsa isa) noexcept;

/// The instruction set the random kernels use: the best supported one, unless the environment
/// variable `CHUNKED_SIMD` (`scalar`, `avx2` or `avx512`, read once) or `set_simd_isa` chose
/// another. Every choice gives bit-identical results; only the speed differs.
SimdIsa simd_isa() noexcept;

/// Makes the random kernels use `isa` from now on, in the whole process (for tests and
/// benchmarks). Returns false and changes nothing when `isa` is not supported.
bool set_simd_isa(SimdIsa isa) noexcept;

/// @name Random kernels
/// `out[i]` = the element with the i-th flat index of `idx`, exactly as
/// `chunked::random::normal_at` / `uniform_at` / `integers_at` give it (float: the double rounded,
/// int32: the int64 value, which lies in [low, high)), whatever `simd_isa()` is. Runs with step 1
/// compute one Philox block per two elements; other runs and lists compute the blocks of `W`
/// elements at once in SIMD lanes. `out` must hold `idx.count` values; integers require
/// low < high.
///
/// @code
/// double out[1000];  // elements 0, 2, 4, ... of stream 0 of a normal(10, 1) array of seed 42
/// chunked::cpu::random_normal({42, 0}, 10.0, 1.0, chunked::cpu::IndexRun{0, 2, 1000}, out);
/// @endcode
/// @{
void random_normal(const RandomSource& src, double mean, double stddev, IndexRun idx, double* out);
void random_normal(const RandomSource& src, double mean, double stddev, IndexRun idx, float* out);
void random_normal(const RandomSource& src, double mean, double stddev, IndexList idx, double* out);
void random_normal(const RandomSource& src, double mean, double stddev, IndexList idx, float* out);

void random_uniform(const RandomSource& src, double low, double high, IndexRun idx, double* out);
void random_uniform(const RandomSource& src, double low, double high, IndexRun idx, float* out);
void random_uniform(const RandomSource& src, double low, double high, IndexList idx, double* out);
void random_uniform(const RandomSource& src, double low, double high, IndexList idx, float* out);

void random_integers(const RandomSource& src, std::int64_t low, std::int64_t high, IndexRun idx,
                     std::int64_t* out);
void random_integers(const RandomSource& src, std::int32_t low, std::int32_t high, IndexRun idx,
                     std::int32_t* out);
void random_integers(const RandomSource& src, std::int64_t low, std::int64_t high, IndexList idx,
                     std::int64_t* out);
void random_integers(const RandomSource& src, std::int32_t low, std::int32_t high, IndexList idx,
                     std::int32_t* out);
/// @}

/// Box-Muller of given Philox blocks with the active instruction set: `even[i]` and `odd[i]` are
/// `chunked::random::standard_normal_pair(words[i])`, bit for bit. Lets tests feed chosen words
/// (the extremes of u and v) that no counter is known to produce.
void standard_normal_blocks(const random::Words4x32* words, index_t n, double* even, double* odd);

} // namespace chunked::cpu
