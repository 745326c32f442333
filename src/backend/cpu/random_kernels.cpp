// SPDX-License-Identifier: Apache-2.0
// CPU random kernels: per-element Philox sampling over index runs and index lists.

#include "chunked/backend/cpu/random_kernels.hpp"

#include <algorithm>
#include <type_traits>

#include "chunked/random/distributions.hpp"

namespace chunked::cpu {

namespace {

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
void uniform_impl(const RandomSource& src, double low, double high, Idx idx, T* out) {
  const auto one = [&](std::uint64_t e) {
    return rnd::uniform_at(src.seed, src.stream, e, low, high);
  };
  if constexpr (std::is_same_v<Idx, IndexRun>) {
    const auto pair = [&](std::uint64_t block) {
      return rnd::uniform_pair(src.seed, src.stream, block, low, high);
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

} // namespace

void random_normal(const RandomSource& src, double mean, double stddev, IndexRun idx, double* out) {
  normal_impl(src, mean, stddev, idx, out);
}
void random_normal(const RandomSource& src, double mean, double stddev, IndexRun idx, float* out) {
  normal_impl(src, mean, stddev, idx, out);
}
void random_normal(const RandomSource& src, double mean, double stddev, IndexList idx,
                   double* out) {
  normal_impl(src, mean, stddev, idx, out);
}
void random_normal(const RandomSource& src, double mean, double stddev, IndexList idx, float* out) {
  normal_impl(src, mean, stddev, idx, out);
}

void random_uniform(const RandomSource& src, double low, double high, IndexRun idx, double* out) {
  uniform_impl(src, low, high, idx, out);
}
void random_uniform(const RandomSource& src, double low, double high, IndexRun idx, float* out) {
  uniform_impl(src, low, high, idx, out);
}
void random_uniform(const RandomSource& src, double low, double high, IndexList idx, double* out) {
  uniform_impl(src, low, high, idx, out);
}
void random_uniform(const RandomSource& src, double low, double high, IndexList idx, float* out) {
  uniform_impl(src, low, high, idx, out);
}

void random_integers(const RandomSource& src, std::int64_t low, std::int64_t high, IndexRun idx,
                     std::int64_t* out) {
  integers_impl(src, low, high, idx, out);
}
void random_integers(const RandomSource& src, std::int32_t low, std::int32_t high, IndexRun idx,
                     std::int32_t* out) {
  integers_impl(src, low, high, idx, out);
}
void random_integers(const RandomSource& src, std::int64_t low, std::int64_t high, IndexList idx,
                     std::int64_t* out) {
  integers_impl(src, low, high, idx, out);
}
void random_integers(const RandomSource& src, std::int32_t low, std::int32_t high, IndexList idx,
                     std::int32_t* out) {
  integers_impl(src, low, high, idx, out);
}

} // namespace chunked::cpu
