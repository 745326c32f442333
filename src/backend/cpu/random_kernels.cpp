// SPDX-License-Identifier: Apache-2.0
// CPU random kernels: dispatch to the vectorised kernels, and the scalar reference path.

#include "backend/cpu/random_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <type_traits>

#include "backend/cpu/isa.hpp"
#include "backend/cpu/simd_random.hpp"
#include "chunked/random/distributions.hpp"

namespace chunked::cpu {

namespace {

// ---- Instruction-set choice ----------------------------------------------------------------

// The active table, or nullptr for the scalar path; read on every kernel call, so a relaxed
// atomic (the tables are immutable).
std::atomic<const simd::RandomKernelTable*>& active_table() noexcept {
  static std::atomic<const simd::RandomKernelTable*> table{isa::random_kernels(isa::chosen())};
  return table;
}

const simd::RandomKernelTable* vector_kernels(IndexRun idx) noexcept {
  return idx.step == 0 ? nullptr : active_table().load(std::memory_order_relaxed);
}

const simd::RandomKernelTable* vector_kernels(IndexList) noexcept {
  return active_table().load(std::memory_order_relaxed);
}

// ---- Scalar path -------------------------------------------------------------------------------

namespace rnd = chunked::random;

// Each distribution is a pair of callables: `pair(block)` gives both values of one Philox block,
// `one(e)` gives element e alone (for elements whose block partner is not wanted).
template <class T, class Pair, class One>
void fill_run(IndexRun idx, T* out, const Pair& pair, const One& one) {
  const index_t n = idx.count;
  if (n <= 0) {
    return;
  }
  if (idx.step == 0) { // a broadcast: one value repeated
    std::fill(out, out + n, static_cast<T>(one(static_cast<std::uint64_t>(idx.first))));
    return;
  }
  if (idx.step != 1) {
    auto e = static_cast<std::uint64_t>(idx.first);
    const auto step = static_cast<std::uint64_t>(idx.step); // wraps for negative steps
    for (index_t i = 0; i < n; ++i, e += step) {
      out[i] = static_cast<T>(one(e));
    }
    return;
  }
  // Contiguous: a leading odd element, then whole blocks, then a trailing even element.
  auto e = static_cast<std::uint64_t>(idx.first);
  index_t i = 0;
  if ((e & 1u) != 0) {
    out[i++] = static_cast<T>(one(e++));
  }
  for (std::uint64_t block = e >> 1; i + 1 < n; ++block, i += 2) {
    const auto p = pair(block);
    out[i] = static_cast<T>(p.even);
    out[i + 1] = static_cast<T>(p.odd);
  }
  if (i < n) {
    out[i] = static_cast<T>(one(static_cast<std::uint64_t>(idx.first + i)));
  }
}

template <class T, class One> void fill_list(IndexList idx, T* out, const One& one) {
  for (index_t i = 0; i < idx.count; ++i) {
    out[i] = static_cast<T>(one(static_cast<std::uint64_t>(idx.data[i])));
  }
}

template <class Idx, class T>
void normal_impl(const RandomSource& src, double mean, double stddev, Idx idx, T* out) {
  const auto one = [&](std::uint64_t e) {
    return rnd::normal_at(src.seed, src.stream, e, mean, stddev);
  };
  if constexpr (std::is_same_v<Idx, IndexRun>) {
    const auto pair = [&](std::uint64_t block) {
      return rnd::normal_pair(src.seed, src.stream, block, mean, stddev);
    };
    fill_run(idx, out, pair, one);
  } else {
    fill_list(idx, out, one);
  }
}

template <class Idx, class T>
void uniform_impl(const RandomSource& src, const rnd::UniformForm& form, Idx idx, T* out) {
  const auto one = [&](std::uint64_t e) { return rnd::uniform_at(src.seed, src.stream, e, form); };
  if constexpr (std::is_same_v<Idx, IndexRun>) {
    const auto pair = [&](std::uint64_t block) {
      return rnd::uniform_pair(src.seed, src.stream, block, form);
    };
    fill_run(idx, out, pair, one);
  } else {
    fill_list(idx, out, one);
  }
}

template <class Idx, class T>
void integers_impl(const RandomSource& src, std::int64_t low, std::int64_t high, Idx idx, T* out) {
  const auto one = [&](std::uint64_t e) {
    return rnd::integers_at(src.seed, src.stream, e, low, high);
  };
  if constexpr (std::is_same_v<Idx, IndexRun>) {
    const auto pair = [&](std::uint64_t block) {
      return rnd::integers_pair(src.seed, src.stream, block, low, high);
    };
    fill_run(idx, out, pair, one);
  } else {
    fill_list(idx, out, one);
  }
}

// The vector kernels when an instruction set is active (broadcasts excepted: they compute one
// value), else the scalar reference path.
template <class Entry, class Idx, class T, class Scalar, class... Params>
void dispatch(Entry simd::RandomKernelTable::*entry, const Scalar& scalar, const RandomSource& src,
              Idx idx, T* out, const Params&... params) {
  if (const auto* table = vector_kernels(idx)) {
    (table->*entry)(src, params..., idx, out);
  } else {
    scalar(src, params..., idx, out);
  }
}

} // namespace

const char* simd_isa_name(SimdIsa isa) noexcept {
  switch (isa) {
  case SimdIsa::avx512:
    return "avx512";
  case SimdIsa::avx2:
    return "avx2";
  default:
    return "scalar";
  }
}

bool simd_isa_supported(SimdIsa isa) noexcept { return isa::supported(isa); }

SimdIsa simd_isa() noexcept {
  const simd::RandomKernelTable* table = active_table().load(std::memory_order_relaxed);
  for (SimdIsa isa : {SimdIsa::avx512, SimdIsa::avx2}) {
    if (table != nullptr && table == isa::random_kernels(isa)) {
      return isa;
    }
  }
  return SimdIsa::scalar;
}

bool set_simd_isa(SimdIsa isa) noexcept {
  if (!simd_isa_supported(isa)) {
    return false;
  }
  active_table().store(isa::random_kernels(isa), std::memory_order_relaxed);
  return true;
}

void random_normal(const RandomSource& src, double a, double b, IndexRun idx, double* out) {
  dispatch(&simd::RandomKernelTable::normal_run_f64, normal_impl<IndexRun, double>, src, idx, out,
           a, b);
}
void random_normal(const RandomSource& src, double a, double b, IndexRun idx, float* out) {
  dispatch(&simd::RandomKernelTable::normal_run_f32, normal_impl<IndexRun, float>, src, idx, out, a,
           b);
}
void random_normal(const RandomSource& src, double a, double b, IndexList idx, double* out) {
  dispatch(&simd::RandomKernelTable::normal_list_f64, normal_impl<IndexList, double>, src, idx, out,
           a, b);
}
void random_normal(const RandomSource& src, double a, double b, IndexList idx, float* out) {
  dispatch(&simd::RandomKernelTable::normal_list_f32, normal_impl<IndexList, float>, src, idx, out,
           a, b);
}
void random_uniform(const RandomSource& src, double a, double b, IndexRun idx, double* out) {
  dispatch(&simd::RandomKernelTable::uniform_run_f64, uniform_impl<IndexRun, double>, src, idx, out,
           rnd::uniform_form<double>(a, b));
}
void random_uniform(const RandomSource& src, double a, double b, IndexRun idx, float* out) {
  dispatch(&simd::RandomKernelTable::uniform_run_f32, uniform_impl<IndexRun, float>, src, idx, out,
           rnd::uniform_form<float>(a, b));
}
void random_uniform(const RandomSource& src, double a, double b, IndexList idx, double* out) {
  dispatch(&simd::RandomKernelTable::uniform_list_f64, uniform_impl<IndexList, double>, src, idx,
           out, rnd::uniform_form<double>(a, b));
}
void random_uniform(const RandomSource& src, double a, double b, IndexList idx, float* out) {
  dispatch(&simd::RandomKernelTable::uniform_list_f32, uniform_impl<IndexList, float>, src, idx,
           out, rnd::uniform_form<float>(a, b));
}
void random_integers(const RandomSource& src, std::int64_t a, std::int64_t b, IndexRun idx,
                     std::int64_t* out) {
  dispatch(&simd::RandomKernelTable::integers_run_i64, integers_impl<IndexRun, std::int64_t>, src,
           idx, out, a, b);
}
void random_integers(const RandomSource& src, std::int32_t a, std::int32_t b, IndexRun idx,
                     std::int32_t* out) {
  dispatch(&simd::RandomKernelTable::integers_run_i32, integers_impl<IndexRun, std::int32_t>, src,
           idx, out, a, b);
}
void random_integers(const RandomSource& src, std::int64_t a, std::int64_t b, IndexList idx,
                     std::int64_t* out) {
  dispatch(&simd::RandomKernelTable::integers_list_i64, integers_impl<IndexList, std::int64_t>, src,
           idx, out, a, b);
}
void random_integers(const RandomSource& src, std::int32_t a, std::int32_t b, IndexList idx,
                     std::int32_t* out) {
  dispatch(&simd::RandomKernelTable::integers_list_i32, integers_impl<IndexList, std::int32_t>, src,
           idx, out, a, b);
}

void standard_normal_blocks(const random::Words4x32* words, index_t n, double* even, double* odd) {
  if (const auto* table = active_table().load(std::memory_order_relaxed)) {
    table->standard_normal_blocks(words, n, even, odd);
    return;
  }
  for (index_t i = 0; i < n; ++i) {
    const auto z = random::standard_normal_pair(words[i]);
    even[i] = z.even;
    odd[i] = z.odd;
  }
}

} // namespace chunked::cpu
