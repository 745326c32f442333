// SPDX-License-Identifier: Apache-2.0
// Leaf fills of the CPU tile interpreter (see tile_leaves.hpp).
#include "backend/cpu/tile_leaves.hpp"

#include "backend/cpu/elementwise.hpp"
#include "backend/cpu/random_leaves.hpp"

#include "backend/cpu/interpreter_simd.hpp"
#include "backend/cpu/tile_geometry.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace chunked::cpu {

using plan::Leaf;
using plan::LeafKind;

namespace {

template <class T>
void fill_stored(const Leaf&, const void* input, index_t offset, index_t step, index_t len,
                 void* out) {
  if constexpr (sizeof(T) == 8)
    if (step == -1 || step == 2)
      if (const detail::InterpreterKernels* wide = detail::interpreter_kernels()) {
        wide->gather8[step == 2](static_cast<const T*>(input) + offset, out, len);
        return;
      }
  strided_copy(static_cast<const T*>(input) + offset, step, static_cast<T*>(out), 1, len);
}

template <class T>
void fill_arange(const Leaf& leaf, const void*, index_t offset, index_t step, index_t len,
                 void* out) {
  T* dst = static_cast<T*>(out);
  if constexpr (std::is_floating_point_v<T>) {
    // NumPy's fill: start + i * delta in T, rounded twice (this file is never built with fma).
    const T start = static_cast<T>(leaf.a.f), delta = static_cast<T>(leaf.b.f);
    for (index_t k = 0; k < len; ++k)
      dst[k] = start + static_cast<T>(offset + k * step) * delta;
  } else {
    for (index_t k = 0; k < len; ++k)
      dst[k] = cast_value<T>(wrap_add(leaf.a.i, wrap_mul(offset + k * step, leaf.b.i)));
  }
}

template <class T>
void fill_random(const Leaf& leaf, const void*, index_t offset, index_t step, index_t len,
                 void* out) {
  fill_random_leaf(leaf, offset, step, len, static_cast<T*>(out));
}

} // namespace

LeafFill select_fill(LeafKind kind, DType t) {
  return visit_dtype(t, [&](auto tag) -> LeafFill {
    using T = decltype(tag);
    switch (kind) {
    case LeafKind::stored:
      return &fill_stored<T>;
    case LeafKind::arange:
      return &fill_arange<T>;
    case LeafKind::normal:
    case LeafKind::uniform:
    case LeafKind::integers:
      return &fill_random<T>;
    case LeafKind::constant:
      return nullptr;
    }
    return nullptr;
  });
}

void fill_constant(const Leaf& leaf, void* out, index_t n) {
  visit_dtype(leaf.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T v = std::is_floating_point_v<T> ? cast_value<T>(leaf.a.f) : cast_value<T>(leaf.a.i);
    std::fill_n(static_cast<T*>(out), n, v);
  });
}

InvariantLeaf invariant_period(const plan::BlockProgram& p, const Leaf& leaf) {
  if (leaf.kind == LeafKind::constant)
    return {};
  int from = 0;
  while (from < p.ndim && (leaf.map.coef[from] == 0 || p.extent[from] == 1))
    ++from;
  if (from == 0)
    return {};
  index_t period = 1;
  for (int k = from; k < p.ndim; ++k)
    period *= p.extent[k];
  return {from, period};
}

void fill_invariant(const plan::BlockProgram& p, const Leaf& leaf, InvariantLeaf inv, LeafFill fill,
                    const void* input, std::byte* out, std::size_t elem_size, index_t tile) {
  const int last = p.ndim - 1;
  const index_t row = inv.from <= last ? p.extent[last] : 1;
  index_t idx[plan::max_ndim] = {};
  for (index_t done = 0; done < inv.period; done += row) {
    fill(leaf, input, leaf.map.at(idx, p.ndim), inv.from <= last ? leaf.map.coef[last] : 0, row,
         out + static_cast<std::size_t>(done) * elem_size);
    for (int k = last - 1; k >= inv.from && ++idx[k] == p.extent[k]; --k)
      idx[k] = 0;
  }
  const std::size_t period_bytes = static_cast<std::size_t>(inv.period) * elem_size;
  for (std::size_t have = period_bytes, want = static_cast<std::size_t>(tile) * elem_size;
       have < want;) {
    const std::size_t n = std::min(have, want - have);
    std::memcpy(out + have, out, n);
    have += n;
  }
}

} // namespace chunked::cpu
