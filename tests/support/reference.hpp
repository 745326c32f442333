// SPDX-License-Identifier: Apache-2.0
// A naive dense NumPy-like reference that the suites compare chunked against, and comparisons.
#pragma once

#include "support/reference_scalar.hpp"

#include <chunked/chunked.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

// Everything here is written from NumPy's documented semantics, independently of the library's
// own code, so that a shared misunderstanding cannot make both sides agree. It favours obvious
// loops over speed: arrays in tests have at most a few thousand elements.

namespace chunked::test {

using Extents = std::vector<index_t>;

inline index_t numel(const Extents& shape) {
  index_t n = 1;
  for (index_t e : shape)
    n *= e;
  return n;
}

/// Multi-index of a C-order flat index.
inline Extents unravel(index_t flat, const Extents& shape) {
  Extents idx(shape.size(), 0);
  for (std::size_t k = shape.size(); k-- > 0;) {
    idx[k] = flat % shape[k];
    flat /= shape[k];
  }
  return idx;
}

inline index_t ravel(const Extents& idx, const Extents& shape) {
  index_t flat = 0;
  for (std::size_t k = 0; k < shape.size(); ++k)
    flat = flat * shape[k] + idx[k];
  return flat;
}

inline std::string extents_string(const Extents& shape) { return Shape(shape).to_string(); }

/// A dense C-order array: the reference's only data structure.
template <class T> class Dense {
public:
  using value_type = T;
  Dense() : shape_{}, data_(1, T{}) {}
  explicit Dense(Extents shape, T fill = T{})
      : shape_(std::move(shape)), data_(static_cast<std::size_t>(numel(shape_)), fill) {}
  Dense(Extents shape, std::vector<T> values) : shape_(std::move(shape)), data_(std::move(values)) {
    if (static_cast<index_t>(data_.size()) != numel(shape_))
      throw std::invalid_argument("Dense: value count does not match the shape");
  }

  const Extents& shape() const { return shape_; }
  index_t ndim() const { return static_cast<index_t>(shape_.size()); }
  index_t size() const { return static_cast<index_t>(data_.size()); }
  typename std::vector<T>::reference operator[](index_t flat) {
    return data_[static_cast<std::size_t>(flat)];
  }
  T operator[](index_t flat) const { return data_[static_cast<std::size_t>(flat)]; }
  T at(const Extents& idx) const { return (*this)[ravel(idx, shape_)]; }
  const std::vector<T>& values() const { return data_; }

private:
  Extents shape_;
  std::vector<T> data_;
};

/// Dense array whose element with flat index i is f(i).
template <class T, class F> Dense<T> generate(const Extents& shape, F f) {
  Dense<T> out(shape);
  for (index_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<T>(f(i));
  return out;
}

template <class T> Dense<T> from_ndarray(const NDArray<T>& a) {
  return generate<T>(a.shape().extents(), [&](index_t i) { return a.data()[i]; });
}

template <class T> NDArray<T> to_ndarray(const Dense<T>& d) {
  NDArray<T> out{Shape(d.shape())};
  for (index_t i = 0; i < d.size(); ++i)
    out.data()[i] = d[i];
  return out;
}

/// The reference values as a chunked array with the given chunks.
template <class B, class T> ChunkedArray<T, B> make_array(const Dense<T>& d, const Chunks& chunks) {
  return from_host<B>(to_ndarray(d), chunks);
}

// ---- Random test data ------------------------------------------------------------------------

/// Values that exercise signs, zeros and fractions while keeping sums exact-ish: integers in
/// [-20, 20], floats in [-10, 10) on a 1/64 grid for `exactish`, else continuous.
template <class T>
Dense<T> random_dense(const Extents& shape, std::mt19937_64& rng, bool exactish = false) {
  return generate<T>(shape, [&](index_t) -> T {
    if constexpr (std::is_same_v<T, bool>) {
      return (rng() & 1u) != 0;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(static_cast<std::int64_t>(rng() % 41) - 20);
    } else {
      if (exactish)
        return static_cast<T>(static_cast<double>(static_cast<std::int64_t>(rng() % 1281) - 640) /
                              64.0);
      return static_cast<T>(std::uniform_real_distribution<double>(-10.0, 10.0)(rng));
    }
  });
}

// ---- Chunkings -------------------------------------------------------------------------------

/// Chunkings worth checking for a shape: one chunk, 1-element chunks, ragged last chunks (n - 1
/// then 1), and a mix of 2 and 3 by axis. Duplicates are dropped.
inline std::vector<Chunks> chunkings_for(const Extents& shape) {
  const std::size_t nd = shape.size();
  std::vector<Extents> sets(4, Extents(nd, 1));
  for (std::size_t k = 0; k < nd; ++k) {
    const index_t n = std::max<index_t>(1, shape[k]);
    sets[0][k] = n;
    sets[1][k] = 1;
    sets[2][k] = n > 2 ? n - 1 : 1;
    sets[3][k] = std::min<index_t>(n, k % 2 == 0 ? 2 : 3);
  }
  std::vector<Chunks> out;
  for (const auto& s : sets) {
    Chunks c(s);
    if (std::find(out.begin(), out.end(), c) == out.end())
      out.push_back(c);
  }
  return out;
}

/// A random chunking for `shape`: each axis a length in [1, extent].
inline Chunks random_chunks(const Extents& shape, std::mt19937_64& rng) {
  Extents c(shape.size());
  for (std::size_t k = 0; k < shape.size(); ++k) {
    const index_t n = std::max<index_t>(1, shape[k]);
    c[k] = 1 + static_cast<index_t>(rng() % static_cast<std::uint64_t>(n));
  }
  return Chunks(c);
}

// ---- Broadcasting and elementwise maps -------------------------------------------------------

/// NumPy broadcasting of two shapes; std::invalid_argument where they do not broadcast.
inline Extents broadcast_extents(const Extents& a, const Extents& b) {
  const std::size_t nd = std::max(a.size(), b.size());
  Extents out(nd);
  for (std::size_t k = 0; k < nd; ++k) {
    const index_t x = k + a.size() >= nd ? a[k + a.size() - nd] : 1;
    const index_t y = k + b.size() >= nd ? b[k + b.size() - nd] : 1;
    if (x != y && x != 1 && y != 1)
      throw std::invalid_argument("shapes do not broadcast");
    out[k] = x == 1 ? y : x;
  }
  return out;
}

/// The element of `a` that position `idx` of a broadcast result of rank idx.size() reads.
template <class T> T broadcast_read(const Dense<T>& a, const Extents& idx) {
  const std::size_t off = idx.size() - a.shape().size();
  index_t flat = 0;
  for (std::size_t k = 0; k < a.shape().size(); ++k) {
    const index_t n = a.shape()[k];
    flat = flat * n + (n == 1 ? 0 : idx[off + k]);
  }
  return a[flat];
}

template <class F, class A> auto map(const Dense<A>& a, F f) {
  using R = std::invoke_result_t<F, A>;
  return generate<R>(a.shape(), [&](index_t i) { return f(a[i]); });
}

template <class F, class A, class B> auto zip(const Dense<A>& a, const Dense<B>& b, F f) {
  using R = std::invoke_result_t<F, A, B>;
  const Extents shape = broadcast_extents(a.shape(), b.shape());
  return generate<R>(shape, [&](index_t i) {
    const Extents idx = unravel(i, shape);
    return f(broadcast_read(a, idx), broadcast_read(b, idx));
  });
}

template <class F, class A, class B, class C>
auto zip3(const Dense<A>& a, const Dense<B>& b, const Dense<C>& c, F f) {
  using R = std::invoke_result_t<F, A, B, C>;
  const Extents shape = broadcast_extents(broadcast_extents(a.shape(), b.shape()), c.shape());
  return generate<R>(shape, [&](index_t i) {
    const Extents idx = unravel(i, shape);
    return f(broadcast_read(a, idx), broadcast_read(b, idx), broadcast_read(c, idx));
  });
}

template <class To, class From> Dense<To> cast(const Dense<From>& a) {
  return map(a, [](From v) { return static_cast<To>(v); });
}

// ---- Basic indexing --------------------------------------------------------------------------

using Index = std::variant<index_t, Slice>;

/// Python's slice.indices(n) followed by len(range(...)): {start, step, length}.
inline std::array<index_t, 3> resolve_slice(const Slice& s, index_t n) {
  const index_t step = s.step();
  if (step == 0)
    throw std::invalid_argument("zero step");
  const index_t lower = step > 0 ? 0 : -1;
  const index_t upper = step > 0 ? n : n - 1;
  auto clamp_bound = [&](Bound b, index_t dflt) {
    if (b.is_none())
      return dflt;
    const index_t v = b.value();
    return v < 0 ? std::max(v + n, lower) : std::min(v, upper);
  };
  const index_t start = clamp_bound(s.start(), step > 0 ? lower : upper);
  const index_t stop = clamp_bound(s.stop(), step > 0 ? upper : lower);
  index_t len = 0;
  if (step > 0 && stop > start)
    len = (stop - start - 1) / step + 1;
  if (step < 0 && start > stop)
    len = (start - stop - 1) / (-step) + 1;
  return {start, step, len};
}

/// NumPy basic indexing: integers drop axes, slices keep them, missing trailing axes are whole.
template <class T> Dense<T> index(const Dense<T>& a, const std::vector<Index>& args) {
  const std::size_t nd = a.shape().size();
  if (args.size() > nd)
    throw std::invalid_argument("too many indices");
  std::vector<index_t> start(nd), step(nd, 0), len(nd, 1);
  Extents out_shape;
  std::vector<std::size_t> out_axis;
  for (std::size_t k = 0; k < nd; ++k) {
    const index_t n = a.shape()[k];
    if (k < args.size() && std::holds_alternative<index_t>(args[k])) {
      const index_t i = std::get<index_t>(args[k]);
      const index_t j = i < 0 ? i + n : i;
      if (j < 0 || j >= n)
        throw std::out_of_range("index out of range");
      start[k] = j;
      continue;
    }
    const Slice s = k < args.size() ? std::get<Slice>(args[k]) : Slice{};
    const auto r = resolve_slice(s, n);
    start[k] = r[0];
    step[k] = r[1];
    len[k] = r[2];
    out_shape.push_back(r[2]);
    out_axis.push_back(k);
  }
  return generate<T>(out_shape, [&](index_t i) {
    const Extents o = unravel(i, out_shape);
    Extents src(start.begin(), start.end());
    for (std::size_t j = 0; j < out_axis.size(); ++j)
      src[out_axis[j]] += step[out_axis[j]] * o[j];
    return a.at(src);
  });
}

// ---- Reductions ------------------------------------------------------------------------------

/// Axes normalised and sorted; an empty list means every axis.
inline std::vector<bool> reduced_axes(const Extents& shape, const std::vector<index_t>& axes) {
  const auto nd = static_cast<index_t>(shape.size());
  std::vector<bool> r(shape.size(), axes.empty());
  for (index_t a : axes)
    r[static_cast<std::size_t>(a < 0 ? a + nd : a)] = true;
  return r;
}

/// Groups the elements of `a` by output position (C order inside a group, so position j of a
/// group reduced over one axis is index j along it) and maps each group with f.
template <class R, class T, class F>
Dense<R> reduce_groups(const Dense<T>& a, const std::vector<index_t>& axes, bool keepdims, F f) {
  const std::vector<bool> red = reduced_axes(a.shape(), axes);
  Extents out_shape, kept_shape;
  for (std::size_t k = 0; k < red.size(); ++k) {
    if (!red[k])
      out_shape.push_back(a.shape()[k]);
    else if (keepdims)
      out_shape.push_back(1);
    if (!red[k])
      kept_shape.push_back(a.shape()[k]);
  }
  std::vector<std::vector<T>> groups(static_cast<std::size_t>(numel(kept_shape)));
  for (index_t i = 0; i < a.size(); ++i) {
    const Extents idx = unravel(i, a.shape());
    Extents kept;
    for (std::size_t k = 0; k < red.size(); ++k)
      if (!red[k])
        kept.push_back(idx[k]);
    groups[static_cast<std::size_t>(ravel(kept, kept_shape))].push_back(a[i]);
  }
  Dense<R> out(out_shape);
  for (std::size_t g = 0; g < groups.size(); ++g)
    out[static_cast<index_t>(g)] = f(groups[g]);
  return out;
}

/// Accumulation type of sums: int64 for bools and integers (wrapping), long double for floats.
template <class T>
using ref_sum_t = std::conditional_t<std::is_floating_point_v<T>, T, std::int64_t>;

template <class T>
Dense<ref_sum_t<T>> ref_sum(const Dense<T>& a, const std::vector<index_t>& axes = {},
                            bool keepdims = false) {
  return reduce_groups<ref_sum_t<T>>(a, axes, keepdims, [](const std::vector<T>& v) {
    if constexpr (std::is_floating_point_v<T>) {
      long double s = 0;
      for (T x : v)
        s += x;
      return static_cast<T>(s);
    } else {
      std::int64_t s = 0;
      for (T x : v)
        s = wrapping_add<std::int64_t>(s, static_cast<std::int64_t>(x));
      return s;
    }
  });
}

template <class T>
Dense<ref_sum_t<T>> ref_prod(const Dense<T>& a, const std::vector<index_t>& axes = {},
                             bool keepdims = false) {
  return reduce_groups<ref_sum_t<T>>(a, axes, keepdims, [](const std::vector<T>& v) {
    if constexpr (std::is_floating_point_v<T>) {
      long double s = 1;
      for (T x : v)
        s *= x;
      return static_cast<T>(s);
    } else {
      std::int64_t s = 1;
      for (T x : v)
        s = wrapping_mul<std::int64_t>(s, static_cast<std::int64_t>(x));
      return s;
    }
  });
}

/// min / max propagate NaN, as NumPy's do.
template <class T>
Dense<T> ref_min(const Dense<T>& a, const std::vector<index_t>& axes = {}, bool keepdims = false) {
  return reduce_groups<T>(a, axes, keepdims, [](const std::vector<T>& v) {
    T m = v.at(0);
    for (T x : v)
      m = np_minimum(m, x);
    return m;
  });
}
template <class T>
Dense<T> ref_max(const Dense<T>& a, const std::vector<index_t>& axes = {}, bool keepdims = false) {
  return reduce_groups<T>(a, axes, keepdims, [](const std::vector<T>& v) {
    T m = v.at(0);
    for (T x : v)
      m = np_maximum(m, x);
    return m;
  });
}

template <class T> using ref_mean_t = std::conditional_t<std::is_floating_point_v<T>, T, double>;

template <class T>
Dense<ref_mean_t<T>> ref_mean(const Dense<T>& a, const std::vector<index_t>& axes = {},
                              bool keepdims = false) {
  return reduce_groups<ref_mean_t<T>>(a, axes, keepdims, [](const std::vector<T>& v) {
    long double s = 0;
    for (T x : v)
      s += static_cast<long double>(x);
    return static_cast<ref_mean_t<T>>(s / static_cast<long double>(v.size()));
  });
}

/// Two-pass variance in long double, divided by max(N - ddof, 0) for any ddof, like NumPy (so
/// N - ddof <= 0 gives inf, or NaN where the values do not vary).
template <class T>
Dense<ref_mean_t<T>> ref_var(const Dense<T>& a, const std::vector<index_t>& axes, index_t ddof,
                             bool keepdims, bool take_sqrt = false) {
  return reduce_groups<ref_mean_t<T>>(a, axes, keepdims, [&](const std::vector<T>& v) {
    using R = ref_mean_t<T>;
    const auto n = static_cast<long double>(v.size());
    long double m = 0;
    for (T x : v)
      m += static_cast<long double>(x);
    m /= n;
    long double ss = 0;
    for (T x : v)
      ss += (static_cast<long double>(x) - m) * (static_cast<long double>(x) - m);
    const long double dof = std::max(n - static_cast<long double>(ddof), 0.0L);
    const long double var = ss / dof;
    return static_cast<R>(take_sqrt ? std::sqrt(var) : var);
  });
}

template <class T>
Dense<bool> ref_any(const Dense<T>& a, const std::vector<index_t>& axes = {},
                    bool keepdims = false) {
  return reduce_groups<bool>(a, axes, keepdims, [](const std::vector<T>& v) {
    return std::any_of(v.begin(), v.end(), [](T x) { return x != T(0); });
  });
}
template <class T>
Dense<bool> ref_all(const Dense<T>& a, const std::vector<index_t>& axes = {},
                    bool keepdims = false) {
  return reduce_groups<bool>(a, axes, keepdims, [](const std::vector<T>& v) {
    return std::all_of(v.begin(), v.end(), [](T x) { return x != T(0); });
  });
}

/// argmin / argmax: first occurrence of the extreme; a NaN counts as the extreme (NumPy). With no
/// axis, the C-order flat index.
template <class T>
Dense<std::int64_t> ref_arg(const Dense<T>& a, std::optional<index_t> axis, bool is_max) {
  std::vector<index_t> axes;
  if (axis)
    axes.push_back(*axis);
  return reduce_groups<std::int64_t>(a, axes, false, [&](const std::vector<T>& v) {
    std::int64_t best = 0;
    for (std::size_t j = 0; j < v.size(); ++j) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(v[j]))
          return static_cast<std::int64_t>(j);
      }
      if (is_max ? v[best] < v[j] : v[j] < v[best])
        best = static_cast<std::int64_t>(j);
    }
    return best;
  });
}

// ---- Comparisons -----------------------------------------------------------------------------

template <class T> std::string value_string(T v) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? "true" : "false";
  else if constexpr (std::is_floating_point_v<T>)
    return fmt::format("{:.17g}", v);
  else
    return std::to_string(v);
}

/// Tolerance of a floating comparison: |got - want| <= atol + rtol * |want|.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

/// Default tolerance for results that went through arithmetic whose order the library may choose.
template <class T> Tolerance tight() {
  if constexpr (std::is_same_v<T, float>)
    return {1e-5, 1e-5};
  else if constexpr (std::is_same_v<T, double>)
    return {1e-12, 1e-12};
  else
    return {0, 0};
}

template <class T> bool values_match(T got, T want, Tolerance tol) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want) || std::isnan(got))
      return std::isnan(want) && std::isnan(got);
    if (std::isinf(want) || std::isinf(got))
      return got == want;
    return std::fabs(static_cast<double>(got) - static_cast<double>(want)) <=
           tol.atol + tol.rtol * std::fabs(static_cast<double>(want));
  } else {
    return got == want;
  }
}

/// Shape and every element equal (within `tol` for floats; NaN matches NaN). The message lists
/// the first mismatches with their multi-index.
template <class T>
::testing::AssertionResult matches(const NDArray<T>& got, const Dense<T>& want,
                                   Tolerance tol = {}) {
  if (got.shape().extents() != want.shape())
    return ::testing::AssertionFailure()
           << "shape " << got.shape().to_string() << ", expected " << extents_string(want.shape());
  int shown = 0;
  index_t bad = 0;
  std::string detail;
  for (index_t i = 0; i < want.size(); ++i) {
    if (values_match(got.data()[i], want[i], tol))
      continue;
    ++bad;
    if (shown++ < 5)
      detail +=
          fmt::format("\n  at {}: got {}, expected {}", Shape(unravel(i, want.shape())).to_string(),
                      value_string(got.data()[i]), value_string(want[i]));
  }
  if (bad == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << want.size() << " elements differ" << detail;
}

/// Bitwise equality of two results (shape and bytes; NaNs compare by payload).
template <class T>
::testing::AssertionResult bitwise_equal(const NDArray<T>& a, const NDArray<T>& b) {
  if (a.shape() != b.shape())
    return ::testing::AssertionFailure()
           << "shapes " << a.shape().to_string() << " and " << b.shape().to_string();
  for (index_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a.data()[i], &b.data()[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure()
             << "element " << i << " differs: " << value_string(a.data()[i]) << " vs "
             << value_string(b.data()[i]);
  return ::testing::AssertionSuccess();
}

/// Compute options with a scheduler and thread count (0 = all hardware threads).
inline ComputeOptions options_with(Scheduler scheduler, int num_threads = 0) {
  ComputeOptions o;
  o.scheduler = scheduler;
  o.num_threads = num_threads;
  return o;
}

/// A label for SCOPED_TRACE: which chunking (or other case) a failure belongs to.
inline std::string label(const Chunks& c) { return "chunks " + c.to_string(); }

} // namespace chunked::test
