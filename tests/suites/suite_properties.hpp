// SPDX-License-Identifier: Apache-2.0
// Properties suite: seeded random programs (shapes, chunkings, chains of views, operations and
// reductions) compared with the reference. A failure prints the seed that reproduces it.
#pragma once

#include "support/backend.hpp"
#include "support/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace chunked::test {
namespace {

using Properties = BackendTest;

/// CHUNKED_PROPERTY_SEED=<n> in the environment reruns one seed only (to reproduce a failure).
std::vector<std::uint64_t> property_seeds(std::uint64_t first, int count) {
  if (const char* s = std::getenv("CHUNKED_PROPERTY_SEED"))
    return {std::stoull(s)};
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < count; ++i)
    seeds.push_back(first + static_cast<std::uint64_t>(i));
  return seeds;
}

std::uint64_t pick(std::mt19937_64& rng, std::uint64_t n) { return n == 0 ? 0 : rng() % n; }

Extents random_shape(std::mt19937_64& rng) {
  Extents shape(pick(rng, 5)); // rank 0 to 4
  for (auto& e : shape)
    e = static_cast<index_t>(pick(rng, shape.size() >= 4 ? 7 : 10)); // 0..9 (0..6 at rank 4)
  return shape;
}

/// A shape that broadcasts with `shape`: some leading axes dropped, some axes set to 1.
Extents broadcast_partner(const Extents& shape, std::mt19937_64& rng) {
  const std::size_t drop = pick(rng, shape.size() + 1);
  Extents out(shape.begin() + static_cast<std::ptrdiff_t>(drop), shape.end());
  for (auto& e : out)
    if (pick(rng, 3) == 0)
      e = 1;
  return out;
}

/// A random index argument for an axis of extent n: an integer (when n > 0) or a slice whose
/// bounds may be missing, negative or out of range, with a step of either sign.
Index random_index(index_t n, std::mt19937_64& rng, bool allow_integer) {
  if (allow_integer && n > 0 && pick(rng, 4) == 0) {
    const auto i = static_cast<index_t>(pick(rng, static_cast<std::uint64_t>(n)));
    return pick(rng, 2) == 0 ? i : i - n;
  }
  auto bound = [&]() -> Bound {
    if (pick(rng, 3) == 0)
      return none;
    return static_cast<index_t>(pick(rng, static_cast<std::uint64_t>(2 * n + 5))) - n - 2;
  };
  static constexpr index_t steps[] = {1, 1, 2, 3, -1, -2, -4};
  return Slice(bound(), bound(), steps[pick(rng, 7)]);
}

template <class T> using Arr = ChunkedArray<T, Backend>;

/// A chunked array and its reference, changed together step by step.
template <class T> struct Tracked {
  Arr<T> x;
  Dense<T> ref;
  std::string history;
};

/// x(a[0], a[1], ...) applied one axis at a time, from the last: an integer drops only its own
/// axis, which the arguments still to apply (earlier axes) do not see.
template <class T> Arr<T> view_by_rank(const Arr<T>& x, const std::vector<Index>& a) {
  auto one = [&](const Arr<T>& y, const Index& i, std::size_t leading) -> Arr<T> {
    // Apply index i at position `leading` with whole slices before it.
    auto with = [&](auto idx) -> Arr<T> {
      switch (leading) {
      case 0:
        return y(idx);
      case 1:
        return y(all, idx);
      case 2:
        return y(all, all, idx);
      default:
        return y(all, all, all, idx);
      }
    };
    if (std::holds_alternative<index_t>(i))
      return with(std::get<index_t>(i));
    return with(std::get<Slice>(i));
  };
  Arr<T> y = x;
  for (std::size_t k = a.size(); k-- > 0;)
    y = one(y, a[k], k);
  return y;
}

/// One random step on a double pair.
void random_step(Tracked<double>& p, std::mt19937_64& rng) {
  const auto& shape = p.ref.shape();
  switch (pick(rng, 7)) {
  case 0: { // view
    std::vector<Index> args;
    const std::size_t n = pick(rng, shape.size() + 1);
    for (std::size_t k = 0; k < n; ++k)
      args.push_back(random_index(shape[k], rng, true));
    p.history += " view";
    p.x = view_by_rank(p.x, args);
    p.ref = index(p.ref, args);
    return;
  }
  case 1: { // scalar arithmetic
    p.history += " scalar";
    p.x = maximum(p.x * 2.5 - 1.0, -6.0);
    p.ref = map(p.ref, [](double v) { return np_maximum(v * 2.5 - 1.0, -6.0); });
    return;
  }
  case 2: { // binary with a broadcast partner on its own chunking
    const Extents s = broadcast_partner(shape, rng);
    const auto other = random_dense<double>(s, rng, true);
    const auto y = make_array<Backend>(other, random_chunks(s, rng));
    const bool swap = pick(rng, 2) == 0;
    p.history += " binary" + extents_string(s);
    p.x = swap ? y - p.x : p.x + y * 0.5;
    p.ref = swap ? zip(other, p.ref, [](double a, double b) { return a - b; })
                 : zip(p.ref, other, [](double a, double b) { return a + b * 0.5; });
    return;
  }
  case 3: { // rechunk
    p.history += " rechunk";
    p.x = p.x.rechunk(random_chunks(shape, rng));
    return;
  }
  case 4: { // unary functions
    p.history += " unary";
    p.x = where(p.x > 0.0, sqrt(abs(p.x)), -abs(p.x));
    p.ref = map(p.ref, [](double v) { return v > 0.0 ? std::sqrt(std::fabs(v)) : -std::fabs(v); });
    return;
  }
  default: { // reduction over a random axis set
    std::vector<index_t> axes;
    for (std::size_t k = 0; k < shape.size(); ++k)
      if (pick(rng, 2) == 0)
        axes.push_back(pick(rng, 2) == 0
                           ? static_cast<index_t>(k)
                           : static_cast<index_t>(k) - static_cast<index_t>(shape.size()));
    const bool keep = pick(rng, 2) == 0;
    bool empty_axis = false;
    for (std::size_t k = 0; k < shape.size(); ++k)
      if (shape[k] == 0 &&
          (axes.empty() ||
           std::find(axes.begin(), axes.end(), static_cast<index_t>(k)) != axes.end() ||
           std::find(axes.begin(), axes.end(),
                     static_cast<index_t>(k) - static_cast<index_t>(shape.size())) != axes.end()))
        empty_axis = true;
    const Axes ax(axes);
    const auto kind = empty_axis ? 0 : pick(rng, 4);
    p.history += " reduce" + std::to_string(kind) + detail::format_tuple(axes) + (keep ? "k" : "");
    switch (kind) {
    case 0:
      p.x = p.x.sum(ax, keep);
      p.ref = ref_sum(p.ref, axes, keep);
      break;
    case 1:
      p.x = p.x.max(ax, keep);
      p.ref = ref_max(p.ref, axes, keep);
      break;
    case 2:
      p.x = p.x.mean(ax, keep);
      p.ref = ref_mean(p.ref, axes, keep);
      break;
    default:
      p.x = p.x.min(ax, keep);
      p.ref = ref_min(p.ref, axes, keep);
      break;
    }
    return;
  }
  }
}

/// Tolerance scaled by the largest magnitude in the reference (means and square roots round).
Tolerance scaled_tolerance(const Dense<double>& want) {
  double big = 1;
  for (double v : want.values())
    if (std::isfinite(v))
      big = std::max(big, std::fabs(v));
  return {1e-12, 1e-12 * big};
}

TEST_F(Properties, RandomChainsOfViewsOperationsAndReductionsMatchTheReference) {
  for (std::uint64_t seed : property_seeds(1000, 150)) {
    std::mt19937_64 rng(seed);
    const Extents shape = random_shape(rng);
    Tracked<double> p{make_array<Backend>(Dense<double>(), Chunks{}),
                      random_dense<double>(shape, rng, true), ""};
    const Chunks chunks = random_chunks(shape, rng);
    p.x = make_array<Backend>(p.ref, chunks);
    p.history = extents_string(shape) + " " + label(chunks) + ":";
    const int steps = 1 + static_cast<int>(pick(rng, 4));
    for (int s = 0; s < steps; ++s)
      random_step(p, rng);
    const auto got = p.x.compute();
    EXPECT_TRUE(matches(got, p.ref, scaled_tolerance(p.ref)))
        << "seed " << seed << " (rerun with CHUNKED_PROPERTY_SEED=" << seed << "): " << p.history;
  }
}

TEST_F(Properties, RandomIntegerProgramsAreExact) {
  // Integer arithmetic and sums are exact, so any chunking and any reduction tree must agree
  // bit for bit with the reference, wraparound included.
  for (std::uint64_t seed : property_seeds(5000, 100)) {
    std::mt19937_64 rng(seed);
    const Extents shape = random_shape(rng);
    const auto a = random_dense<std::int64_t>(shape, rng);
    const Extents s = broadcast_partner(shape, rng);
    const auto b = random_dense<std::int64_t>(s, rng);
    const auto x = make_array<Backend>(a, random_chunks(shape, rng));
    const auto y = make_array<Backend>(b, random_chunks(s, rng));
    const auto expr = (x * y + 3) % (y - 25) - x * 1000000007 * 1000000007;
    const auto want = zip(a, b, [](std::int64_t u, std::int64_t v) {
      const std::int64_t l = np_mod<std::int64_t>(np_add<std::int64_t>(np_mul(u, v), 3), v - 25);
      return np_sub(l, np_mul<std::int64_t>(np_mul<std::int64_t>(u, 1000000007), 1000000007));
    });
    std::vector<index_t> axes;
    for (std::size_t k = 0; k < shape.size(); ++k)
      if (pick(rng, 2) == 0)
        axes.push_back(static_cast<index_t>(k));
    const std::string trace = "seed " + std::to_string(seed) +
                              " (rerun with CHUNKED_PROPERTY_SEED=" + std::to_string(seed) +
                              "): " + extents_string(shape) + " with " + extents_string(s);
    EXPECT_TRUE(matches(expr.compute(), want)) << trace;
    EXPECT_TRUE(matches(expr.sum(Axes(axes)).compute(), ref_sum(want, axes))) << trace;
    EXPECT_TRUE(matches((expr > 0).sum().compute(),
                        ref_sum(map(want, [](std::int64_t v) { return v > 0; }))))
        << trace;
  }
}

} // namespace
} // namespace chunked::test
