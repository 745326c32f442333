// SPDX-License-Identifier: Apache-2.0
// User code suite: map_blocks and map_overlap against naive dense references (every boundary mode
// against a hand-padded array, as np.pad pads), under many chunkings and ranks; BlockInfo; one
// call per output block per computation; broadcasting inputs; output grids of other shapes;
// user exceptions; and bad input. The functions here are host code, so the tests that compute
// run where the backend computes on the host (Cpu, Auto without a GPU); device kernels are
// tests/cuda/test_user_kernels.cu's. Argument checks run on every backend.
#pragma once

#include "support/backend.hpp"
#include "support/errors.hpp"
#include "support/reference.hpp"
#include "support/reference_overlap.hpp"

#include <atomic>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunked::test {
namespace {

using UserCode = BackendTest;
using A = ChunkedArray<double, Backend>;

/// The functions of this suite read and write host memory.
#define CHUNKED_SKIP_UNLESS_HOST()                                                                 \
  do {                                                                                             \
    if (::chunked::test::runs_on_gpu())                                                            \
      GTEST_SKIP() << "host callables; device kernels are tested in test_user_kernels.cu";         \
  } while (false)

/// The chunkings of chunkings_for, and chunks longer than every axis.
std::vector<Chunks> user_chunkings(const Extents& shape) {
  auto out = chunkings_for(shape);
  Extents longer(shape.size());
  for (std::size_t k = 0; k < shape.size(); ++k)
    longer[k] = shape[k] + 2;
  out.push_back(Chunks(longer));
  return out;
}

/// What every call saw wrong, and how many calls there were.
struct Record {
  std::atomic<int> calls{0};
  std::mutex m;
  std::vector<std::string> errors;
  void fail(const std::string& e) {
    std::lock_guard lock(m);
    if (errors.size() < 5)
      errors.push_back(e);
  }
};

/// For every element j of a block's `in`: its global index is offset - lo + j. Checks `in`
/// against the padded reference, and writes out[i] = the sum of in over the window of half-width
/// `depth` around i's position (clipped to `in`).
A overlap_checked(const A& x, const Dense<double>& ref, const std::vector<index_t>& depth,
                  Boundary b, Record& rec) {
  return map_overlap<double>(
      [&ref, depth, b, &rec](const BlockInfo& info, BlockView<double> out,
                             BlockView<const double> in) {
        ++rec.calls;
        const std::size_t nd = depth.size();
        Extents lo(nd), in_ext(nd);
        for (std::size_t k = 0; k < nd; ++k) {
          const index_t n = ref.shape()[k], o = info.offset[k], len = info.shape.extents()[k];
          lo[k] = b.kind == Boundary::Kind::none ? std::min(depth[k], o) : depth[k];
          const index_t hi =
              b.kind == Boundary::Kind::none ? std::min(depth[k], n - o - len) : depth[k];
          in_ext[k] = len + lo[k] + hi;
        }
        if (in.shape.extents() != in_ext) {
          rec.fail("block " + Shape(info.block).to_string() + ": in of shape " +
                   in.shape.to_string() + ", expected " + Shape(in_ext).to_string());
          return;
        }
        for (index_t j = 0; j < in.size(); ++j) {
          Extents g = unravel(j, in_ext);
          for (std::size_t k = 0; k < nd; ++k)
            g[k] += info.offset[k] - lo[k];
          if (in.data[j] != padded_at(ref, g, b))
            rec.fail("block " + Shape(info.block).to_string() + ": in[" + std::to_string(j) +
                     "] = " + std::to_string(in.data[j]) + ", expected " +
                     std::to_string(padded_at(ref, g, b)));
        }
        for (index_t i = 0; i < out.size(); ++i) {
          const Extents p = unravel(i, info.shape.extents());
          double s = 0;
          for (index_t j = 0; j < in.size(); ++j) {
            const Extents q = unravel(j, in_ext);
            bool inside = true;
            for (std::size_t k = 0; k < nd; ++k)
              inside = inside && std::abs(q[k] - (p[k] + lo[k])) <= depth[k];
            if (inside)
              s += in.data[j];
          }
          out.data[i] = s;
        }
      },
      x, depth, b);
}

void expect_overlap(const Extents& shape, const Chunks& chunks, const std::vector<index_t>& depth,
                    Boundary b, std::mt19937_64& rng) {
  SCOPED_TRACE("shape " + extents_string(shape) + " chunks " + Shape(chunks.lengths()).to_string() +
               " depth " + Shape(depth).to_string() + " boundary " + boundary_name(b));
  const Dense<double> ref = random_dense<double>(shape, rng, true);
  const A x = make_array<Backend>(ref, chunks);
  Record rec;
  const A y = overlap_checked(x, ref, depth, b, rec);
  EXPECT_EQ(rec.calls.load(), 0) << "called when the array was made";
  EXPECT_EQ(y.chunks(), x.chunks());
  EXPECT_TRUE(matches(y.compute(), window_sums(ref, depth, b)));
  EXPECT_EQ(rec.calls.load(), x.numblocks());
  EXPECT_TRUE(rec.errors.empty()) << rec.errors.front();
}

// ---- map_overlap

TEST_F(UserCode, MapOverlapPadsAsNumPyPadOnALiteral) {
  CHUNKED_SKIP_UNLESS_HOST();
  // np.pad([1, 2, 3, 4, 5], 2, mode=...): wrap, symmetric, edge, constant 9; none keeps the block.
  const std::vector<std::pair<Boundary, std::vector<double>>> cases = {
      {Boundary::periodic, {4, 5, 1, 2, 3, 4, 5, 1, 2}},
      {Boundary::reflect, {2, 1, 1, 2, 3, 4, 5, 5, 4}},
      {Boundary::nearest, {1, 1, 1, 2, 3, 4, 5, 5, 5}},
      {Boundary::constant(9), {9, 9, 1, 2, 3, 4, 5, 9, 9}},
      {Boundary::none, {1, 2, 3, 4, 5}}};
  const std::vector<double> values = {1, 2, 3, 4, 5};
  for (const auto& [b, want] : cases)
    for (index_t chunk : {5, 2, 1}) {
      SCOPED_TRACE(boundary_name(b) + " chunk " + std::to_string(chunk));
      const auto x = from_host<Backend>(values, Shape{5}, Chunks{chunk});
      std::vector<double> got_first;
      std::mutex m;
      // Each output element is the halo-padded input at its own position plus the depth, and
      // block 0 records its whole input.
      auto y = map_overlap<double>(
          [&](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
            const index_t lo =
                b.kind == Boundary::Kind::none ? std::min<index_t>(2, info.offset[0]) : 2;
            for (index_t i = 0; i < out.size(); ++i)
              out.data[i] = in.data[i + lo];
            if (chunk == 5) {
              std::lock_guard lock(m);
              got_first.assign(in.data, in.data + in.size());
            }
          },
          x, 2, b);
      const auto got = y.compute();
      EXPECT_EQ(std::vector<double>(got.begin(), got.end()), values);
      if (chunk == 5) {
        EXPECT_EQ(got_first, want);
      }
    }
}

TEST_F(UserCode, MapOverlapMatchesThePaddedReferenceOnEveryBoundaryAndChunking) {
  CHUNKED_SKIP_UNLESS_HOST();
  std::mt19937_64 rng(7);
  const std::vector<std::pair<Extents, std::vector<std::vector<index_t>>>> cases = {
      {{7}, {{0}, {1}, {2}, {7}}},
      {{5, 6}, {{1, 1}, {0, 2}, {2, 1}, {5, 6}}},
      {{3, 4, 5}, {{1, 1, 1}, {0, 1, 2}}},
  };
  for (const auto& [shape, depths] : cases)
    for (const Chunks& chunks : user_chunkings(shape))
      for (const auto& depth : depths)
        for (Boundary b : all_boundaries)
          expect_overlap(shape, chunks, depth, b, rng);
}

TEST_F(UserCode, MapOverlapGathersHalosDeeperThanTheNeighbouringBlocks) {
  CHUNKED_SKIP_UNLESS_HOST();
  std::mt19937_64 rng(11);
  for (Boundary b : all_boundaries) {
    expect_overlap({10}, Chunks{1}, {3}, b, rng);
    expect_overlap({9, 4}, Chunks{2, 1}, {5, 2}, b, rng);
    expect_overlap({6, 5}, Chunks(std::vector<index_t>{4, 2}), {4, 3}, b, rng);
  }
}

TEST_F(UserCode, MapOverlapOnLazyInputsAndComposed) {
  CHUNKED_SKIP_UNLESS_HOST();
  std::mt19937_64 rng(3);
  const Dense<double> ref = random_dense<double>({8, 6}, rng, true);
  const A x = make_array<Backend>(ref, Chunks{3, 4});
  // A 5-point Laplacian, periodic, twice (one result feeds the next), on a lazy x + 1.
  auto lap = [](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
    const index_t r = info.shape.extents()[0], c = info.shape.extents()[1], w = c + 2;
    for (index_t i = 0; i < r; ++i)
      for (index_t j = 0; j < c; ++j) {
        const index_t m = (i + 1) * w + j + 1;
        out.data[i * c + j] =
            in.data[m - w] + in.data[m + w] + in.data[m - 1] + in.data[m + 1] - 4 * in.data[m];
      }
  };
  auto ref_lap = [](const Dense<double>& a) {
    return generate<double>(a.shape(), [&](index_t f) {
      const Extents p = unravel(f, a.shape());
      auto at = [&](index_t di, index_t dj) {
        return padded_at(a, {p[0] + di, p[1] + dj}, Boundary::periodic);
      };
      return at(-1, 0) + at(1, 0) + at(0, -1) + at(0, 1) - 4 * at(0, 0);
    });
  };
  const Dense<double> plus1 = map(ref, [](double v) { return v + 1; });
  const Dense<double> want = ref_lap(ref_lap(plus1));
  const A once = map_overlap<double>(lap, x + 1.0, {1, 1}, Boundary::periodic);
  const A twice = map_overlap<double>(lap, once, {1, 1}, Boundary::periodic);
  EXPECT_TRUE(matches(twice.compute(), want));
  double total = 0;
  for (double v : want.values())
    total += v;
  EXPECT_NEAR((twice * 1.0).sum().item(), total, 1e-9);
  EXPECT_TRUE(matches(twice(slice(1, 5), 2).compute(), index(want, {Slice(1, 5), index_t{2}})));
}

TEST_F(UserCode, MapOverlapOfIntegersPadsWithTheConstantConverted) {
  CHUNKED_SKIP_UNLESS_HOST();
  const auto x = from_host<Backend>(std::vector<std::int32_t>{1, 2, 3}, Shape{3}, Chunks{2});
  auto y = map_overlap<std::int64_t>(
      [](const BlockInfo&, BlockView<std::int64_t> out, BlockView<const std::int32_t> in) {
        for (index_t i = 0; i < out.size(); ++i)
          out.data[i] = in.data[i] * 100 + in.data[i + 2];
      },
      x, 1, Boundary::constant(7.0));
  const auto got = y.compute();
  EXPECT_EQ(std::vector<std::int64_t>(got.begin(), got.end()),
            (std::vector<std::int64_t>{702, 103, 207}));
}

// ---- map_blocks

TEST_F(UserCode, MapBlocksSeesEachBlockWithItsInfo) {
  CHUNKED_SKIP_UNLESS_HOST();
  std::mt19937_64 rng(5);
  for (const Extents& shape : {Extents{7}, Extents{4, 5}, Extents{2, 3, 4}})
    for (const Chunks& chunks : user_chunkings(shape)) {
      SCOPED_TRACE("shape " + extents_string(shape) + " chunks " +
                   Shape(chunks.lengths()).to_string());
      const Dense<double> ref = random_dense<double>(shape, rng, true);
      const A x = make_array<Backend>(ref, chunks);
      Record rec;
      const ChunkGrid grid = x.chunks();
      auto y = map_blocks<double>(
          [&](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
            ++rec.calls;
            const Shape want_shape = grid.block_shape(info.block);
            if (info.offset != grid.block_offset(info.block) || info.shape != want_shape ||
                in.shape != want_shape || out.shape != want_shape || info.device != -1 ||
                info.stream != nullptr)
              rec.fail("block " + Shape(info.block).to_string() + " described wrongly");
            for (index_t i = 0; i < out.size(); ++i) {
              Extents g = unravel(i, want_shape.extents());
              for (std::size_t k = 0; k < g.size(); ++k)
                g[k] += info.offset[k];
              if (in.data[i] != ref.at(g))
                rec.fail("block " + Shape(info.block).to_string() + " read wrongly");
              out.data[i] = 2 * in.data[i] + 1;
            }
          },
          x);
      EXPECT_EQ(y.chunks(), x.chunks());
      EXPECT_TRUE(matches(y.compute(), map(ref, [](double v) { return 2 * v + 1; })));
      EXPECT_EQ(rec.calls.load(), x.numblocks());
      EXPECT_TRUE(rec.errors.empty()) << rec.errors.front();
    }
}

TEST_F(UserCode, MapBlocksRunsOncePerBlockPerComputationAndNeverWhenMade) {
  CHUNKED_SKIP_UNLESS_HOST();
  std::atomic<int> calls{0};
  const auto x = arange<double, Backend>(0.0, 10.0, 1.0, 3); // 4 blocks
  auto y = map_blocks<double>(
      [&](const BlockInfo&, BlockView<double> out, BlockView<const double> in) {
        ++calls;
        for (index_t i = 0; i < out.size(); ++i)
          out.data[i] = in.data[i] * in.data[i];
      },
      x);
  EXPECT_EQ(calls.load(), 0);
  auto z = y + y * 2.0 + y.sum();
  EXPECT_EQ(calls.load(), 0);
  (void)z.compute();
  EXPECT_EQ(calls.load(), 4);
  (void)y.compute();
  EXPECT_EQ(calls.load(), 8);
  auto [a, b] = compute(ComputeOptions{}, y, y + 1.0);
  EXPECT_EQ(a.data()[3], 9.0);
  EXPECT_EQ(b.data()[3], 10.0);
  EXPECT_EQ(calls.load(), 12);
  auto kept = y.persist();
  EXPECT_EQ(calls.load(), 16);
  EXPECT_EQ(kept.sum().item(), 285.0);
  EXPECT_EQ(calls.load(), 16);
}

TEST_F(UserCode, MapBlocksBroadcastsInputsToTheFirstInputsChunks) {
  CHUNKED_SKIP_UNLESS_HOST();
  std::mt19937_64 rng(9);
  const Dense<double> xr = random_dense<double>({4, 5}, rng, true);
  const Dense<std::int32_t> zr = random_dense<std::int32_t>({5}, rng);
  const Dense<double> wr = random_dense<double>({4, 1}, rng, true);
  const A x = make_array<Backend>(xr, Chunks{3, 2});
  const auto z = make_array<Backend>(zr, Chunks{4});
  const A w = make_array<Backend>(wr, Chunks{1, 1});
  auto y = map_blocks<float>(
      [](const BlockInfo& info, BlockView<float> out, BlockView<const double> a,
         BlockView<const std::int32_t> b, BlockView<const double> c) {
        if (a.shape != info.shape || b.shape != info.shape || c.shape != info.shape)
          throw std::logic_error("inputs not aligned to the output block");
        for (index_t i = 0; i < out.size(); ++i)
          out.data[i] = static_cast<float>(a.data[i] + 10 * b.data[i] + 100 * c.data[i]);
      },
      x, z, w);
  EXPECT_EQ(y.chunks(), x.chunks());
  const Dense<double> xz = zip(xr, cast<double>(zr), [](double a, double b) { return a + 10 * b; });
  const Dense<float> want =
      cast<float>(zip(xz, wr, [](double a, double c) { return a + 100 * c; }));
  EXPECT_TRUE(matches(y.compute(), want));
  // The first input broadcast too: its chunks, with one block on the axes it gains.
  auto v = map_blocks<double>(
      [](const BlockInfo&, BlockView<double> out, BlockView<const double> a,
         BlockView<const double> b) {
        for (index_t i = 0; i < out.size(); ++i)
          out.data[i] = a.data[i] - b.data[i];
      },
      w, x);
  EXPECT_EQ(v.shape(), (Shape{4, 5}));
  EXPECT_TRUE(matches(v.compute(), zip(wr, xr, [](double a, double b) { return a - b; })));
}

TEST_F(UserCode, MapBlocksWritesAnOutputGridOfOtherBlocks) {
  CHUNKED_SKIP_UNLESS_HOST();
  // Per block of a (5, 7) array in (2, 3) chunks: its sum and its element count, as a (2,)
  // vector per block, so the output grid is (3 x 3) blocks of (1, 2).
  std::mt19937_64 rng(13);
  const Dense<double> ref = random_dense<double>({5, 7}, rng, true);
  const A x = make_array<Backend>(ref, Chunks{2, 3});
  const ChunkGrid out_grid(std::vector<std::vector<index_t>>{{1, 1, 1}, {2, 2, 2}});
  auto s = map_blocks<double>(
      [](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
        if (out.shape != (Shape{1, 2}) || info.shape != out.shape)
          throw std::logic_error("output block of the wrong shape");
        double t = 0;
        for (index_t i = 0; i < in.size(); ++i)
          t += in.data[i];
        out.data[0] = t;
        out.data[1] = static_cast<double>(in.size());
      },
      out_grid, x);
  EXPECT_EQ(s.shape(), (Shape{3, 6}));
  EXPECT_EQ(s.chunks(), out_grid);
  const Dense<double> want = generate<double>({3, 6}, [&](index_t f) {
    const index_t bi = f / 6, bj = (f % 6) / 2;
    double t = 0, n = 0;
    for (index_t i = 2 * bi; i < std::min<index_t>(5, 2 * bi + 2); ++i)
      for (index_t j = 3 * bj; j < std::min<index_t>(7, 3 * bj + 3); ++j) {
        t += ref.at({i, j});
        n += 1;
      }
    return f % 2 == 0 ? t : n;
  });
  EXPECT_TRUE(matches(s.compute(), want));
}

TEST_F(UserCode, ZeroDimensionalAndEmptyArrays) {
  CHUNKED_SKIP_UNLESS_HOST();
  const auto x = full<double, Backend>(Shape{}, Chunks{}, 2.5);
  auto y = map_blocks<double>(
      [](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
        if (!info.block.empty() || out.size() != 1)
          throw std::logic_error("a 0-d block");
        out.data[0] = in.data[0] * 4;
      },
      x);
  EXPECT_EQ(y.item(), 10.0);
  const auto e = zeros<double, Backend>(Shape{0, 3}, Chunks{2, 2});
  auto f = map_overlap<double>([](const BlockInfo&, BlockView<double>, BlockView<const double>) {},
                               e, {0, 1}, Boundary::periodic);
  EXPECT_EQ(f.compute().shape(), (Shape{0, 3}));
}

// ---- every backend: shapes, BlockInfo and calls (values are only read on the host)

TEST_F(UserCode, EveryBackendHandsEachBlockItsHaloShapeDeviceAndStream) {
  const bool gpu = runs_on_gpu();
  for (Boundary b : all_boundaries)
    for (const Chunks& chunks : {Chunks{6, 7}, Chunks{2, 3}, Chunks{1, 5}}) {
      SCOPED_TRACE(boundary_name(b) + " chunks " + Shape(chunks.lengths()).to_string());
      const auto x = zeros<double, Backend>(Shape{6, 7}, chunks);
      const std::vector<index_t> depth{2, 1};
      Record rec;
      auto y = map_overlap<double>(
          [&](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
            ++rec.calls;
            Extents want = info.shape.extents();
            for (std::size_t k = 0; k < 2; ++k) {
              const index_t n = k == 0 ? 6 : 7, o = info.offset[k], len = want[k];
              want[k] += b.kind == Boundary::Kind::none
                             ? std::min(depth[k], o) + std::min(depth[k], n - o - len)
                             : 2 * depth[k];
            }
            if (in.shape.extents() != want || out.shape != info.shape)
              rec.fail("block " + Shape(info.block).to_string() + ": in " + in.shape.to_string() +
                       ", expected " + Shape(want).to_string());
            if ((info.device >= 0) != gpu || (info.stream != nullptr) != gpu)
              rec.fail("device " + std::to_string(info.device) + " on the wrong side");
            if (!gpu)
              for (index_t i = 0; i < out.size(); ++i)
                out.data[i] = 1;
          },
          x, depth, b);
      const auto values = y.compute();
      EXPECT_EQ(rec.calls.load(), x.numblocks());
      EXPECT_TRUE(rec.errors.empty()) << rec.errors.front();
      if (!gpu) {
        EXPECT_EQ(values.data()[values.size() - 1], 1.0);
      }
    }
}

TEST_F(UserCode, EveryBackendSurfacesAUserExceptionAndStaysUsable) {
  const auto x = zeros<double, Backend>(Shape{12}, Chunks{4});
  auto bad = map_blocks<double>(
      [](const BlockInfo& info, BlockView<double>, BlockView<const double>) {
        if (info.block[0] == 2)
          throw std::invalid_argument("block two is bad");
      },
      x);
  std::atomic<int> calls{0};
  auto fine = map_overlap<double>(
      [&](const BlockInfo&, BlockView<double>, BlockView<const double>) { ++calls; }, x, 3,
      Boundary::periodic);
  for (int round = 1; round <= 2; ++round) {
    expect_error<Error>([&] { (void)bad.compute(); }, {"block two is bad", "(2,)", "map_blocks"});
    (void)fine.compute();
    EXPECT_EQ(calls.load(), 3 * round);
  }
}

// ---- errors

TEST_F(UserCode, AUserExceptionSurfacesNamingTheBlockAndTheRuntimeStaysUsable) {
  CHUNKED_SKIP_UNLESS_HOST();
  const auto x = arange<double, Backend>(0.0, 12.0, 1.0, 4);
  auto bad = map_blocks<double>(
      [](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
        if (info.block[0] == 1)
          throw std::runtime_error("no good block here");
        for (index_t i = 0; i < out.size(); ++i)
          out.data[i] = in.data[i];
      },
      x);
  for (int round = 0; round < 2; ++round) {
    expect_error<Error>([&] { (void)bad.compute(); }, {"no good block here", "(1,)"});
    auto fine = map_overlap<double>(
        [](const BlockInfo&, BlockView<double> out, BlockView<const double> in) {
          for (index_t i = 0; i < out.size(); ++i)
            out.data[i] = in.data[i + 1];
        },
        x, 1, Boundary::reflect);
    EXPECT_EQ(fine.sum().item(), 66.0);
  }
}

TEST_F(UserCode, BadArgumentsRaiseWhenTheArrayIsMade) {
  const auto x = zeros<double, Backend>(Shape{4, 6}, Chunks{2, 3});
  auto fn = [](const BlockInfo&, BlockView<double>, BlockView<const double>) {};
  expect_error<ValueError>(
      [&] {
        (void)map_overlap<double>(fn, x, {1, -1});
      },
      {"depth -1", "axis 1", "negative"});
  expect_error<ValueError>([&] { (void)map_overlap<double>(fn, x, -2, Boundary::periodic); },
                           {"depth -2"});
  expect_error<ValueError>(
      [&] {
        (void)map_overlap<double>(fn, x, {5, 1}, Boundary::reflect);
      },
      {"depth 5", "axis 0", "length 4"});
  expect_error<ValueError>([&] { (void)map_overlap<double>(fn, x, 7); }, {"depth 7"});
  expect_error<ShapeError>([&] { (void)map_overlap<double>(fn, x, std::vector<index_t>{1}); },
                           {"1 depths", "rank 2"});
  expect_error<ShapeError>(
      [&] {
        (void)map_overlap<double>(fn, x, {1, 1, 1});
      },
      {"3 depths", "(4, 6)"});
  const auto z = zeros<double, Backend>(Shape{5}, Chunks{5});
  auto fn2 = [](const BlockInfo&, BlockView<double>, BlockView<const double>,
                BlockView<const double>) {};
  expect_error<ShapeError>([&] { (void)map_blocks<double>(fn2, x, z); }, {"(4, 6)", "(5,)"});
  expect_error<ShapeError>(
      [&] {
        (void)map_blocks<double>(fn, ChunkGrid(std::vector<std::vector<index_t>>{{1, 1}, {2}}), x);
      },
      {"map_blocks", "(2, 1)", "(2, 2)"});
  expect_error<ShapeError>(
      [&] {
        (void)map_blocks<double>(fn, ChunkGrid(std::vector<std::vector<index_t>>{{1, 1}}), x);
      },
      {"map_blocks", "(2,)", "(2, 2)"});
}

} // namespace
} // namespace chunked::test
