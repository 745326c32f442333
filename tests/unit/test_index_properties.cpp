// SPDX-License-Identifier: Apache-2.0
// Property tests of slicing, broadcasting and shape arithmetic over the whole int64 range, against
// references in 128-bit arithmetic that follow Python's and NumPy's definitions. The seeds are
// fixed, so each run checks the same few thousand cases; values cluster at the edges (0, +-1,
// +-2^62, INT64_MIN, INT64_MAX, the extent) where overflow hides.
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace chunked;
__extension__ typedef __int128 i128;

constexpr index_t max64 = std::numeric_limits<index_t>::max();
constexpr index_t min64 = std::numeric_limits<index_t>::min();

std::string str(i128 v) {
  if (v == 0)
    return "0";
  const bool neg = v < 0;
  std::string s;
  for (; v != 0; v /= 10)
    s.insert(s.begin(), static_cast<char>('0' + (neg ? -(v % 10) : v % 10)));
  return neg ? "-" + s : s;
}

/// Integers of the whole int64 range, half of them at or next to an edge.
class EdgeValues {
public:
  explicit EdgeValues(std::uint64_t seed) : rng_(seed) {}

  index_t any() {
    switch (rng_() % 6) {
    case 0:
      return edge();
    case 1:
      return wrap_add(edge(), small());
    case 2:
      return static_cast<index_t>(rng_()); // uniform over int64
    case 3:
      return small();
    case 4:
      return static_cast<index_t>((rng_() >> (rng_() % 64)) *
                                  (rng_() % 2 ? 1u : ~std::uint64_t{0}));
    default:
      return wrap_add(static_cast<index_t>(0 - static_cast<std::uint64_t>(edge())), small());
    }
  }
  /// a + b wrapped as two's complement: edge values near +-2^63 plus a small offset.
  static index_t wrap_add(index_t a, index_t b) {
    return static_cast<index_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
  }
  /// A value near the edges of an axis of this extent (0, the extent, their negatives).
  index_t near_extent(index_t extent) {
    const index_t base[] = {0, extent, -extent, extent / 2};
    return sat(static_cast<i128>(base[rng_() % 4]) + small());
  }
  index_t small() { return static_cast<index_t>(rng_() % 9) - 4; }
  index_t extent() {
    switch (rng_() % 5) {
    case 0:
      return static_cast<index_t>(rng_() % 14);
    case 1:
      return max64 - static_cast<index_t>(rng_() % 3);
    case 2:
      return (index_t{1} << (rng_() % 63)) + small() + 4;
    case 3:
      return static_cast<index_t>(rng_() >> 1);
    default:
      return static_cast<index_t>(rng_() % 1000);
    }
  }
  bool coin(unsigned in) { return rng_() % in == 0; }
  std::uint64_t next() { return rng_(); }

private:
  index_t edge() {
    static constexpr index_t edges[] = {
        0,     1,     2,         index_t{1} << 31, index_t{1} << 32, index_t{1} << 62,
        max64, min64, max64 - 1, min64 + 1};
    return edges[rng_() % std::size(edges)];
  }
  static index_t sat(i128 v) {
    return v > max64 ? max64 : v < min64 ? min64 : static_cast<index_t>(v);
  }
  std::mt19937_64 rng_;
};

// ---- Slices: Python's slice.indices() and len(range(...)) in 128 bits --------------------------

struct RefRange {
  i128 start, step, length;
};

/// len(range(a, b, step)) = max(0, ceil((b - a) / step)), on exact 128-bit values.
i128 count(i128 a, i128 b, i128 step) {
  const i128 d = b - a, q = d / step, r = d % step;
  const i128 ceil = q + (r != 0 && (r > 0) == (step > 0) ? 1 : 0);
  return ceil > 0 ? ceil : 0;
}

/// The Python language reference's definition: missing bounds are the ends for the step's sign;
/// a negative bound counts from the end; bounds are clamped to [0, n] for a positive step and to
/// [-1, n - 1] for a negative one; the items are start + k * step for 0 <= k < (stop - start) /
/// step, so there are max(0, ceil((stop - start) / step)) of them.
RefRange ref_slice(std::optional<i128> start, std::optional<i128> stop, i128 step, i128 n) {
  const i128 lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
  auto resolve = [&](std::optional<i128> b, i128 dflt) {
    if (!b)
      return dflt;
    i128 v = *b < 0 ? *b + n : *b;
    return v < lo ? lo : v > hi ? hi : v;
  };
  const i128 a = resolve(start, step > 0 ? lo : hi), b = resolve(stop, step > 0 ? hi : lo);
  return {a, step, count(a, b, step)};
}

TEST(IndexProperties, SliceApplyMatchesPythonOverTheWholeInt64Range) {
  EdgeValues v(20250119);
  for (int c = 0; c < 20000; ++c) {
    const index_t n = v.extent();
    auto bound = [&]() -> std::optional<index_t> {
      if (v.coin(5))
        return std::nullopt;
      return v.coin(2) ? v.any() : v.near_extent(n);
    };
    const auto start = bound(), stop = bound();
    index_t step = v.any();
    if (step == 0)
      step = v.coin(2) ? min64 : 1;
    const Slice s(start ? Bound(*start) : Bound(none), stop ? Bound(*stop) : Bound(none), step);
    SCOPED_TRACE("slice " + s.to_string() + " of extent " + std::to_string(n));
    const SliceRange got = s.apply(n);
    const RefRange want = ref_slice(start, stop, step, n);
    ASSERT_EQ(str(got.length), str(want.length));
    if (want.length == 0)
      continue;
    ASSERT_EQ(str(got.start), str(want.start));
    ASSERT_EQ(got.step, step);
    const i128 last = static_cast<i128>(got.start) + (got.length - 1) * static_cast<i128>(step);
    ASSERT_TRUE(last >= 0 && last < n) << str(last);
  }
}

TEST(IndexProperties, SlicesNearPlusMinus2To63KeepWhatPythonKeeps) {
  // list(range(10))[s] in Python 3 (checked there).
  struct Case {
    Slice s;
    std::vector<index_t> want;
  };
  const Case cases[] = {
      {slice(0, 10, max64), {0}},
      {slice(none, none, min64), {9}},
      {slice(2, none, -max64), {2}},
      {slice(none, -1, max64), {0}},
      {slice(min64, max64, max64), {0}},
      {slice(max64, min64, min64), {9}},
      {slice(-1, min64, -1), {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
      {slice(min64, -9, 1), {0}},
      {slice(max64, none, 1), {}},
      {slice(min64, none, -1), {}},
      {slice(9, min64, max64 - 1), {}},
      {slice(min64, max64, max64 - 1), {0}},
      {slice(max64, min64, -3), {9, 6, 3, 0}},
  };
  const auto x = arange<std::int64_t>(0, 10, 1, 3);
  for (const auto& c : cases) {
    SCOPED_TRACE("x[" + c.s.to_string() + "]");
    const auto got = x(c.s).compute();
    ASSERT_EQ(got.size(), static_cast<index_t>(c.want.size()));
    for (std::size_t k = 0; k < c.want.size(); ++k)
      EXPECT_EQ(got.data()[k], c.want[k]);
  }
}

TEST(IndexProperties, ViewsOfSmallArraysByEdgeSlicesComputeTheirItems) {
  EdgeValues v(7);
  for (int c = 0; c < 300; ++c) {
    const index_t n = static_cast<index_t>(v.next() % 12);
    const index_t chunk = 1 + static_cast<index_t>(v.next() % 5);
    const index_t a = v.coin(2) ? v.any() : v.near_extent(n);
    const index_t b = v.coin(2) ? v.any() : v.near_extent(n);
    index_t step = v.any();
    if (step == 0)
      step = -1;
    const Slice s(a, b, step);
    SCOPED_TRACE("slice " + s.to_string() + " of extent " + std::to_string(n) + ", chunk " +
                 std::to_string(chunk));
    const auto x = arange<std::int64_t>(100, 100 + n, 1, chunk);
    const auto view = x(s);
    const RefRange want = ref_slice(a, b, step, n);
    ASSERT_EQ(str(view.size()), str(want.length));
    index_t covered = 0;
    for (index_t l : view.chunks().lengths(0))
      covered += l;
    ASSERT_EQ(covered, view.size());
    const auto got = view.compute();
    for (index_t k = 0; k < got.size(); ++k)
      ASSERT_EQ(str(got.data()[k]), str(100 + want.start + k * want.step)) << "item " << k;
  }
}

/// The chunks of a view follow the source blocks: a run of positions inside one source block is
/// one chunk (regular source grid of length `chunk`).
std::vector<index_t> ref_view_chunks(const RefRange& r, i128 chunk, i128 extent) {
  std::vector<index_t> out;
  if (r.length == 0)
    return {0};
  for (i128 i = 0; i < r.length;) {
    const i128 pos = r.start + i * r.step, block = pos / chunk;
    i128 n;
    if (r.step > 0) {
      const i128 end = (block + 1) * chunk < extent ? (block + 1) * chunk : extent;
      n = (end - pos + r.step - 1) / r.step;
    } else {
      n = (pos - block * chunk) / -r.step + 1;
    }
    if (n > r.length - i)
      n = r.length - i;
    out.push_back(static_cast<index_t>(n));
    i += n;
  }
  return out;
}

TEST(IndexProperties, ViewsOfHugeArraysChunkAndComputeLikeTheReference) {
  EdgeValues v(11);
  for (int c = 0; c < 400; ++c) {
    // Up to 2^59 int64 elements (2^62 bytes), cut into at most 64 blocks.
    const index_t n = 1 + static_cast<index_t>(v.next() >> (5 + v.next() % 59));
    const index_t chunk = std::max<index_t>(1, n / (1 + static_cast<index_t>(v.next() % 64)));
    const index_t a = v.coin(3) ? v.any() : v.near_extent(n);
    const index_t b = v.coin(3) ? v.any() : v.near_extent(n);
    index_t step = v.coin(2) ? v.any() : v.small() * static_cast<index_t>(v.next() % (n + 1));
    if (step == 0)
      step = v.coin(2) ? 1 : -1;
    const Slice s(a, b, step);
    SCOPED_TRACE("slice " + s.to_string() + " of extent " + std::to_string(n) + ", chunk " +
                 std::to_string(chunk));
    const auto x = arange<std::int64_t>(-n, n, 2, chunk); // element i is 2i - n
    const RefRange want = ref_slice(a, b, step, n);
    const auto view = x(s);
    ASSERT_EQ(str(view.size()), str(want.length));
    const auto want_chunks = ref_view_chunks(want, chunk, n);
    ASSERT_EQ(view.chunks().lengths(0), want_chunks);
    // The first few and the last items, through a second view.
    const auto head = view(slice(0, 3)).compute();
    for (index_t k = 0; k < head.size(); ++k)
      ASSERT_EQ(str(head.data()[k]), str(2 * (want.start + k * want.step) - n)) << "item " << k;
    if (want.length > 0) {
      const auto last = view(-1).item();
      ASSERT_EQ(str(last), str(2 * (want.start + (want.length - 1) * want.step) - n));
    }
  }
}

// ---- Shapes, chunk grids and broadcasting
// --------------------------------------------------------

/// Product of the non-zero extents, saturated just above int64 (so it cannot leave 128 bits).
i128 nonzero_product(const std::vector<index_t>& e) {
  i128 p = 1;
  for (index_t x : e)
    if (x != 0)
      p = p > max64 ? p : p * x;
  return p;
}

std::vector<index_t> random_extents(EdgeValues& v, std::size_t max_rank) {
  std::vector<index_t> e(v.next() % (max_rank + 1));
  for (auto& x : e)
    x = v.coin(3) ? static_cast<index_t>(v.next() % 4) : v.extent();
  return e;
}

TEST(IndexProperties, ShapesCountTheirElementsOrRefuseTheOverflow) {
  EdgeValues v(3);
  for (int c = 0; c < 5000; ++c) {
    const auto e = random_extents(v, 4);
    SCOPED_TRACE("shape " + detail::format_tuple(e));
    const i128 p = nonzero_product(e);
    if (p > max64) {
      EXPECT_THROW((void)Shape(e), ValueError);
      continue;
    }
    const Shape s(e);
    bool zero = false;
    for (index_t x : e)
      zero = zero || x == 0;
    ASSERT_EQ(str(s.size()), str(zero ? 0 : p));
    const auto strides = s.strides();
    for (std::size_t k = 0; k < e.size(); ++k) {
      i128 want = 1;
      for (std::size_t j = k + 1; j < e.size(); ++j)
        want *= e[j];
      ASSERT_EQ(str(strides[k]), str(want)) << "stride " << k;
    }
    // Bytes as NumPy counts them: non-zero extents times the element size, within int64.
    for (std::size_t bytes : {1, 4, 8}) {
      if (p * static_cast<i128>(bytes) > max64)
        EXPECT_THROW((void)detail::array_nbytes(s, bytes), ValueError);
      else
        EXPECT_EQ(str(detail::array_nbytes(s, bytes)), str(zero ? 0 : p * bytes));
    }
  }
}

TEST(IndexProperties, RegularChunkGridsCoverTheirShape) {
  EdgeValues v(5);
  for (int c = 0; c < 3000; ++c) {
    auto e = random_extents(v, 3);
    if (nonzero_product(e) > max64)
      continue;
    const Shape shape(e);
    std::vector<index_t> chunk(e.size());
    i128 blocks = 1;
    for (std::size_t k = 0; k < e.size(); ++k) {
      // At most 40 blocks per axis; chunk lengths up to INT64_MAX.
      const index_t least = std::max<index_t>(1, e[k] / 40 + 1);
      chunk[k] = v.coin(3) ? max64 - static_cast<index_t>(v.next() % 3)
                           : least + static_cast<index_t>(v.next() % 4);
      blocks *= e[k] == 0 ? 1 : (e[k] + static_cast<i128>(chunk[k]) - 1) / chunk[k];
    }
    SCOPED_TRACE("shape " + shape.to_string() + ", chunks " + detail::format_tuple(chunk));
    const ChunkGrid g(shape, chunk);
    ASSERT_EQ(g.shape(), shape);
    ASSERT_EQ(str(g.numblocks()), str(blocks));
    for (std::size_t k = 0; k < e.size(); ++k) {
      const auto& l = g.lengths(static_cast<index_t>(k));
      for (std::size_t b = 0; b + 1 < l.size(); ++b)
        ASSERT_EQ(l[b], chunk[k]);
      ASSERT_EQ(g.offsets(static_cast<index_t>(k)).back(), e[k]);
    }
    const index_t last = g.numblocks() - 1;
    ASSERT_EQ(g.block_number(g.block_index(last)), last);
  }
  // Block lengths whose sum passes int64 are refused.
  EXPECT_THROW((ChunkGrid(std::vector<std::vector<index_t>>{{max64, 1}})), ValueError);
  EXPECT_THROW((ChunkGrid(std::vector<std::vector<index_t>>{{index_t{1} << 32},
                                                            {index_t{1} << 31, index_t{1} << 31}})),
               ValueError);
}

TEST(IndexProperties, BroadcastingMatchesNumPyOrRefusesTheOverflow) {
  EdgeValues v(9);
  for (int c = 0; c < 5000; ++c) {
    auto ea = random_extents(v, 4), eb = random_extents(v, 4);
    // Half of the pairs are made compatible by ones and equal extents.
    if (v.coin(2))
      for (std::size_t k = 0; k < std::min(ea.size(), eb.size()); ++k) {
        auto& x = ea[ea.size() - 1 - k];
        auto& y = eb[eb.size() - 1 - k];
        if (v.coin(2))
          (v.coin(2) ? x : y) = 1;
        else
          y = x;
      }
    if (nonzero_product(ea) > max64 || nonzero_product(eb) > max64)
      continue;
    const Shape a(ea), b(eb);
    SCOPED_TRACE(a.to_string() + " with " + b.to_string());
    const std::size_t nd = std::max(ea.size(), eb.size());
    std::vector<index_t> want(nd);
    bool compatible = true;
    for (std::size_t k = 0; k < nd; ++k) {
      const index_t x = k < nd - ea.size() ? 1 : ea[k - (nd - ea.size())];
      const index_t y = k < nd - eb.size() ? 1 : eb[k - (nd - eb.size())];
      compatible = compatible && (x == y || x == 1 || y == 1);
      want[k] = x == 1 ? y : x;
    }
    if (!compatible) {
      EXPECT_THROW((void)graph::broadcast_shapes(a, b), ShapeError);
      continue;
    }
    if (nonzero_product(want) > max64) {
      EXPECT_THROW((void)graph::broadcast_shapes(a, b), ValueError);
      continue;
    }
    ASSERT_EQ(graph::broadcast_shapes(a, b).extents(), want);
    // The same through arrays of bools (one byte each: any size that counts is an array).
    auto whole = [](const Shape& s) {
      std::vector<index_t> ch(s.extents());
      for (auto& x : ch)
        x = std::max<index_t>(x, 1);
      return zeros<bool>(s, Chunks(ch));
    };
    ASSERT_EQ((whole(a) | whole(b)).shape().extents(), want);
  }
}

TEST(IndexProperties, IntegerArangeLengthsAreExactOverTheWholeRange) {
  EdgeValues v(13);
  for (int c = 0; c < 5000; ++c) {
    const index_t start = v.any(), stop = v.any();
    index_t step = v.any();
    if (step == 0)
      step = v.coin(2) ? 1 : -1;
    SCOPED_TRACE("arange(" + std::to_string(start) + ", " + std::to_string(stop) + ", " +
                 std::to_string(step) + ")");
    const i128 n = count(start, stop, step);
    if (n > max64)
      EXPECT_THROW((void)detail::arange_length(start, stop, step), ValueError);
    else
      ASSERT_EQ(str(detail::arange_length(start, stop, step)), str(n));
  }
}

} // namespace
