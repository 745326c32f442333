// SPDX-License-Identifier: Apache-2.0
// The table of vectorised random kernels that each instruction-set translation unit provides.
#pragma once

#include <cstdint>

#include "backend/cpu/random_kernels.hpp"
#include "chunked/random/distributions.hpp"

namespace chunked::cpu::simd {

/// One instruction set's random kernels, with the contracts of the public `random_*` functions,
/// except that runs must have a nonzero step (broadcasts stay with the scalar code).
struct RandomKernelTable {
  void (*normal_run_f64)(const RandomSource&, double, double, IndexRun, double*);
  void (*normal_run_f32)(const RandomSource&, double, double, IndexRun, float*);
  void (*normal_list_f64)(const RandomSource&, double, double, IndexList, double*);
  void (*normal_list_f32)(const RandomSource&, double, double, IndexList, float*);
  // Uniform kernels take the array's form (random::uniform_form), computed by the caller.
  void (*uniform_run_f64)(const RandomSource&, const random::UniformForm&, IndexRun, double*);
  void (*uniform_run_f32)(const RandomSource&, const random::UniformForm&, IndexRun, float*);
  void (*uniform_list_f64)(const RandomSource&, const random::UniformForm&, IndexList, double*);
  void (*uniform_list_f32)(const RandomSource&, const random::UniformForm&, IndexList, float*);
  void (*integers_run_i64)(const RandomSource&, std::int64_t, std::int64_t, IndexRun,
                           std::int64_t*);
  void (*integers_run_i32)(const RandomSource&, std::int64_t, std::int64_t, IndexRun,
                           std::int32_t*);
  void (*integers_list_i64)(const RandomSource&, std::int64_t, std::int64_t, IndexList,
                            std::int64_t*);
  void (*integers_list_i32)(const RandomSource&, std::int64_t, std::int64_t, IndexList,
                            std::int32_t*);
  void (*standard_normal_blocks)(const random::Words4x32*, index_t, double*, double*);
};

} // namespace chunked::cpu::simd
