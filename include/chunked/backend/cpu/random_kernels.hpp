// SPDX-License-Identifier: Apache-2.0
// CPU kernels that fill a buffer with the random elements at given flat indices.
#pragma once

#include <cstdint>

#include "chunked/core/types.hpp"

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

/// @name Random kernels
/// `out[i]` = the element with the i-th flat index of `idx`, exactly as
/// `chunked::random::normal_at` / `uniform_at` / `integers_at` give it (float: the double rounded,
/// int32: the int64 value, which lies in [low, high)). Runs with step 1 compute one Philox block
/// per two elements. `out` must hold `idx.count` values; integers require low < high.
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

} // namespace chunked::cpu
