// SPDX-License-Identifier: Apache-2.0
// Filling a tile run of a random leaf (normal, uniform, integers) with the CPU random kernels.
#pragma once

#include "backend/cpu/elementwise.hpp"
#include "backend/cpu/random_kernels.hpp"
#include "plan/block_program.hpp"
#include <chunked/core/types.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace chunked::cpu {

namespace detail {

/// Runs `generate(run, S*)` for a type S the random kernels produce, then casts into T. When T is
/// S no copy is made; otherwise the run goes through a small stack buffer.
template <class S, class T, class Generate>
void generate_as(IndexRun run, T* out, const Generate& generate) {
  if constexpr (std::is_same_v<S, T>) {
    generate(run, out);
  } else {
    constexpr index_t piece = 256;
    S buffer[piece];
    for (index_t k = 0; k < run.count; k += piece) {
      const index_t n = std::min(piece, run.count - k);
      generate(IndexRun{run.first + k * run.step, run.step, n}, buffer);
      for (index_t j = 0; j < n; ++j)
        out[k + j] = cast_value<T>(buffer[j]);
    }
  }
}

} // namespace detail

/// Fills out[k] with the leaf's sample at flat index offset + k * step for k < len, cast to T
/// (normal and uniform from the double sample, integers from the int64 one).
template <class T>
void fill_random_leaf(const plan::Leaf& leaf, index_t offset, index_t step, index_t len, T* out) {
  const RandomSource src{leaf.seed, leaf.stream};
  const IndexRun run{offset, step, len};
  using F = std::conditional_t<std::is_same_v<T, float>, float, double>;
  switch (leaf.kind) {
  case plan::LeafKind::normal:
    detail::generate_as<F>(run, out,
                           [&](IndexRun r, F* o) { random_normal(src, leaf.a.f, leaf.b.f, r, o); });
    return;
  case plan::LeafKind::uniform:
    detail::generate_as<F>(
        run, out, [&](IndexRun r, F* o) { random_uniform(src, leaf.a.f, leaf.b.f, r, o); });
    return;
  case plan::LeafKind::integers: {
    constexpr auto i32_min = std::numeric_limits<std::int32_t>::min();
    constexpr auto i32_max = std::numeric_limits<std::int32_t>::max();
    if constexpr (std::is_same_v<T, std::int32_t>) {
      if (leaf.a.i >= i32_min && leaf.b.i <= i32_max) {
        random_integers(src, static_cast<std::int32_t>(leaf.a.i),
                        static_cast<std::int32_t>(leaf.b.i), run, out);
        return;
      }
    }
    detail::generate_as<std::int64_t>(run, out, [&](IndexRun r, std::int64_t* o) {
      random_integers(src, leaf.a.i, leaf.b.i, r, o);
    });
    return;
  }
  default:
    return;
  }
}

} // namespace chunked::cpu
