// SPDX-License-Identifier: Apache-2.0
// The tile accumulator of exact partial states (ComputeOptions::exact_sums) on the CPU.
#pragma once

#include "backend/common/exact_sum.hpp"
#include "backend/cpu/exact_lanes.hpp"
#include "backend/cpu/interpreter_simd.hpp"
#include "plan/partial.hpp"
#include <chunked/core/types.hpp>

#include <cstdint>
#include <type_traits>

/// @file
/// ExactAcc<T> has the interface of the accumulators of tile_reduce.hpp over the exact entry of
/// backend/common/exact_sum.hpp. A run of values into one entry (`segment`) goes through the
/// lanes of exact_lanes.hpp, in the widest instruction set the CPU has; values per entry
/// (`element`, `row`) through the entry's own window. Every path adds exactly, so the entry
/// holds the same number whichever path its values took.

namespace chunked::cpu {

template <class T> struct ExactAcc {
  using value_type = T;
  static constexpr int words = scalar::exact::words;
  static void segment(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    const detail::InterpreterKernels* wide = detail::interpreter_kernels();
    if constexpr (std::is_same_v<T, double>) {
      if (wide != nullptr)
        return wide->exact_segment_f64(x, n, &e->i);
    } else if constexpr (std::is_same_v<T, float>) {
      if (wide != nullptr)
        return wide->exact_segment_f32(x, n, &e->i);
    }
    exact_segment_lanes(x, n, &e->i);
  }
  static void element(T x, index_t, plan::PartialWord* e) {
    scalar::exact::add(&e->i, static_cast<double>(x));
  }
  static void row(const T* x, const index_t*, index_t n, plan::PartialWord* e) {
    for (index_t k = 0; k < n; ++k)
      scalar::exact::add(&e[k * words].i, static_cast<double>(x[k]));
  }
};

} // namespace chunked::cpu
