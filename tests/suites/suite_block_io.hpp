// SPDX-License-Identifier: Apache-2.0
// Block I/O suite: lazy leaves whose blocks come from a source (values through elementwise ops,
// reductions, views, rechunks, reshapes, scans and persist under many chunkings; only the blocks
// a computation touches are read, each once), and arrays written block by block to a sink
// (each block once, at its place, with its values; bounded concurrency), with the errors of
// either surfacing from the computation, which the next one survives. The sources and sinks are
// in memory (support/fake_block_io.hpp).
#pragma once

#include "support/backend.hpp"
#include "support/fake_block_io.hpp"
#include "support/reference.hpp"

#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunked::test {
namespace {

using BlockIo = BackendTest;
using A = ChunkedArray<double, Backend>;
using Source = FakeSource<double>;

std::shared_ptr<Source> source_of(const Dense<double>& ref) {
  return std::make_shared<Source>(ref.shape(), ref.values());
}

/// Every block of a grid of `per_axis` blocks read exactly `times` times.
::testing::AssertionResult each_block_times(const Source& s, const std::vector<index_t>& per_axis,
                                            int times) {
  const auto reads = s.reads();
  index_t n = 1;
  for (index_t b : per_axis)
    n *= b;
  if (static_cast<index_t>(reads.size()) != n)
    return ::testing::AssertionFailure() << reads.size() << " blocks read of " << n;
  for (const auto& [b, c] : reads)
    if (c != times)
      return ::testing::AssertionFailure() << "a block read " << c << " times, not " << times;
  return ::testing::AssertionSuccess();
}

template <class Source>
::testing::AssertionResult each_block_once(const Source& s, const std::vector<index_t>& per_axis) {
  return each_block_times(s, per_axis, 1);
}

TEST_F(BlockIo, LazyLeavesComputeLikeTheirValues) {
  std::mt19937_64 rng(1);
  for (const Extents& shape : {Extents{7, 5}, Extents{9}, Extents{0, 3}}) {
    const auto ref = random_dense<double>(shape, rng);
    for (const auto& chunks : chunkings_for(shape)) {
      SCOPED_TRACE(extents_string(shape) + " " + label(chunks));
      const auto src = source_of(ref);
      const A x = lazy_array<double, Backend>(src, shape, chunks);
      EXPECT_TRUE(matches(x.compute(), ref));
      EXPECT_TRUE(matches((x * 2.0 + 1.0).compute(), map(ref, [](double d) { return d * 2 + 1; })));
      EXPECT_TRUE(matches(x.sum().compute(), ref_sum(ref), tight<double>()));
      EXPECT_TRUE(matches(x.sum(Axes{0}).compute(), ref_sum(ref, {0}), tight<double>()));
      EXPECT_TRUE(matches(x.rechunk(Chunks(Extents(shape.size(), 2))).compute(), ref));
      EXPECT_TRUE(matches(x.persist().compute(), ref));
      EXPECT_TRUE(matches(x.cumsum(0).compute(),
                          from_ndarray(make_array<Backend>(ref, chunks).cumsum(0).compute()),
                          tight<double>()));
      EXPECT_TRUE(
          matches(reshape(x, {ref.size()}).compute(), Dense<double>({ref.size()}, ref.values())));
      if (ref.size() == 0) {
        EXPECT_EQ(src->total_reads(), 0);
      }
    }
  }
}

TEST_F(BlockIo, ViewsReadOnlyTheBlocksTheyTouchOncePerCompute) {
  std::mt19937_64 rng(2);
  const auto ref = random_dense<double>({10, 6}, rng);
  const auto src = source_of(ref);
  const A x = lazy_array<double, Backend>(src, {10, 6}, Chunks{2, 3});
  // Rows 3..4 lie in row blocks 1 and 2; columns 0..2 in column block 0.
  const auto want = index(ref, {Slice(3, 5), Slice(0, 3)});
  EXPECT_TRUE(matches(x(slice(3, 5), slice(0, 3)).compute(), want));
  EXPECT_EQ(src->reads(), (std::map<std::vector<index_t>, int>{{{1, 0}, 1}, {{2, 0}, 1}}));
  src->reset();
  EXPECT_TRUE(matches(x(4, slice(4, 5)).compute(), index(ref, {index_t{4}, Slice(4, 5)})));
  EXPECT_EQ(src->reads(), (std::map<std::vector<index_t>, int>{{{2, 1}, 1}}));
  // A block read by several tasks of one pass is read once.
  src->reset();
  const auto r1 = index(ref, {Slice(1, none)}), r2 = index(ref, {Slice(none, -1)});
  EXPECT_TRUE(matches((x(slice(1, none)) + x(slice(none, -1))).compute(),
                      zip(r1, r2, [&](double a, double b) { return a + b; })));
  EXPECT_TRUE(each_block_once(*src, {5, 2}));
  // A read after a reduction across blocks is a second pass, which reads the blocks again
  // rather than hold them all until the reduction ends.
  src->reset();
  const A shifted = x(slice(1, none)) + x(slice(none, -1)) + x(slice(1, none)).sum();
  const double total = ref_sum(r1)[0];
  EXPECT_TRUE(matches(shifted.compute(),
                      zip(r1, r2, [&](double a, double b) { return a + b + total; }),
                      tight<double>()));
  EXPECT_TRUE(each_block_times(*src, {5, 2}, 2));
  // And once more in the next computation.
  src->reset();
  EXPECT_TRUE(matches(x.mean(Axes{1}).compute(), ref_mean(ref, {1}), tight<double>()));
  EXPECT_TRUE(each_block_once(*src, {5, 2}));
}

TEST_F(BlockIo, UserFunctionsAndConcatenationsReadLazyLeavesOnce) {
  std::mt19937_64 rng(9);
  const auto ref = random_dense<double>({9, 4}, rng);
  const auto src = source_of(ref);
  const A x = lazy_array<double, Backend>(src, {9, 4}, Chunks{2, 3});
  const A both = concatenate({x(slice(4, none)), x(slice(none, 4))}, 0);
  Dense<double> want({9, 4});
  for (index_t i = 0; i < 36; ++i)
    want[i] = ref[(i + 16) % 36];
  EXPECT_TRUE(matches(both.compute(), want));
  EXPECT_TRUE(each_block_once(*src, {5, 2}));
  if (runs_on_gpu())
    return; // the functions below are host code
  src->reset();
  const A twice = map_blocks<double>(
      [](const BlockInfo&, BlockView<double> out, BlockView<const double> in) {
        for (index_t i = 0; i < out.size(); ++i)
          out.data[i] = 2 * in.data[i];
      },
      x);
  EXPECT_TRUE(matches(twice.compute(), map(ref, [](double d) { return 2 * d; })));
  EXPECT_TRUE(each_block_once(*src, {5, 2}));
  // With a halo, each output block reads its neighbours' edges: every block is still read once.
  src->reset();
  const A same = map_overlap<double>(
      [](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
        const index_t cols = in.shape.extents()[1];
        for (index_t r = 0; r < info.shape.extents()[0]; ++r)
          for (index_t c = 0; c < info.shape.extents()[1]; ++c)
            out.data[r * info.shape.extents()[1] + c] = in.data[(r + 1) * cols + c + 1];
      },
      x, {1, 1}, Boundary::nearest);
  EXPECT_TRUE(matches(same.compute(), ref));
  EXPECT_TRUE(each_block_once(*src, {5, 2}));
}

TEST_F(BlockIo, PersistedLazyLeavesAreReadOnce) {
  std::mt19937_64 rng(3);
  const auto ref = random_dense<double>({7, 4}, rng);
  const auto src = source_of(ref);
  const A x = lazy_array<double, Backend>(src, {7, 4}, Chunks{3, 3});
  const A kept = x.persist();
  EXPECT_TRUE(each_block_once(*src, {3, 2}));
  EXPECT_TRUE(matches(kept.compute(), ref));
  src->reset();
  EXPECT_TRUE(matches((kept - x).compute(), Dense<double>({7, 4}, 0.0)));
  EXPECT_TRUE(each_block_once(*src, {3, 2})); // the second time by (kept - x) alone
}

TEST_F(BlockIo, ReadErrorsSurfaceAndTheNextComputeRuns) {
  std::mt19937_64 rng(4);
  const auto ref = random_dense<double>({8, 3}, rng);
  const auto src = source_of(ref);
  const A x = lazy_array<double, Backend>(src, {8, 3}, Chunks{2, 3});
  src->fail_on({2, 0}, [] { throw std::runtime_error("disk on fire"); });
  try {
    (x + 1.0).compute();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("disk on fire"), std::string::npos) << what;
    EXPECT_NE(what.find("fake source 'memory'"), std::string::npos) << what;
    EXPECT_NE(what.find("(2, 0)"), std::string::npos) << what;
  }
  // A chunked::Error of the source passes as it is.
  src->fail_on({1, 0}, [] { throw ValueError("bad header in 'x.npy'"); });
  EXPECT_THROW(x.sum().compute(), ValueError);
  // Blocks the failure does not touch still compute, and afterwards everything does.
  EXPECT_TRUE(matches(x(slice(0, 2)).compute(), index(ref, {Slice(0, 2)})));
  src->fail_on({}, {});
  EXPECT_TRUE(matches(x.compute(), ref));
}

TEST_F(BlockIo, WrittenBlocksArriveOnceWithTheirPlaceAndValues) {
  std::mt19937_64 rng(5);
  for (const Extents& shape : {Extents{7, 5}, Extents{11}, Extents{3, 4, 2}}) {
    const auto ref = random_dense<double>(shape, rng);
    const auto want = map(ref, [](double d) { return d * 3 - 1; });
    for (const auto& chunks : chunkings_for(shape)) {
      SCOPED_TRACE(extents_string(shape) + " " + label(chunks));
      const A y = make_array<Backend>(ref, chunks) * 3.0 - 1.0;
      FakeSink<double> sink(shape);
      detail::write_blocks(y.node(), sink, backend_traits<Backend>::kind, {});
      EXPECT_EQ(sink.values(), want.values());
      const ChunkGrid& grid = y.chunks();
      ASSERT_EQ(static_cast<index_t>(sink.writes().size()), grid.numblocks());
      for (index_t b = 0; b < grid.numblocks(); ++b) {
        const auto idx = grid.block_index(b);
        EXPECT_EQ(sink.writes().at(idx), 1);
        EXPECT_EQ(sink.los().at(idx), grid.block_offset(idx));
        EXPECT_EQ(sink.extents().at(idx), grid.block_shape(idx).extents());
      }
    }
  }
}

TEST_F(BlockIo, WritesShareIntermediatesAndReadLazyLeavesOnce) {
  std::mt19937_64 rng(6);
  const auto ref = random_dense<double>({9, 4}, rng);
  const auto src = source_of(ref);
  const A x = lazy_array<double, Backend>(src, {9, 4}, Chunks{2, 4});
  // A standardize: its mean and std are computed once, every block of x read once.
  const A z = (x - x.mean()) / x.std();
  FakeSink<double> sink({9, 4});
  detail::write_blocks(z.node(), sink, backend_traits<Backend>::kind, {});
  EXPECT_TRUE(matches(to_ndarray(Dense<double>({9, 4}, sink.values())), from_ndarray(z.compute()),
                      tight<double>()));
  EXPECT_EQ(sink.writes().size(), 5u);
  // A lazy leaf written as it is: its loaded blocks go to the sink.
  src->reset();
  FakeSink<double> copy({9, 4});
  detail::write_blocks(x.node(), copy, backend_traits<Backend>::kind, {});
  EXPECT_EQ(copy.values(), ref.values());
  EXPECT_TRUE(each_block_once(*src, {5, 1}));
}

TEST_F(BlockIo, WriteCallsAreBoundedAndEmptyArraysWriteNothing) {
  std::mt19937_64 rng(7);
  const auto ref = random_dense<double>({64, 3}, rng);
  ComputeOptions options;
  options.num_threads = 2;
  FakeSink<double> sink({64, 3});
  detail::write_blocks((make_array<Backend>(ref, Chunks{1, 3}) + 0.5).node(), sink,
                       backend_traits<Backend>::kind, options);
  EXPECT_EQ(sink.writes().size(), 64u);
  EXPECT_GE(sink.max_live(), 1);
  EXPECT_LE(sink.max_live(), runs_on_gpu() ? 8 : 2);
  const auto src = std::make_shared<Source>(Extents{0, 3}, std::vector<double>{});
  FakeSink<double> none({0, 3});
  detail::write_blocks(lazy_array<double, Backend>(src, {0, 3}, Chunks{2, 2}).node(), none,
                       backend_traits<Backend>::kind, {});
  EXPECT_TRUE(none.writes().empty());
  EXPECT_EQ(src->total_reads(), 0);
}

TEST_F(BlockIo, WriteErrorsSurfaceAndTheNextComputeRuns) {
  std::mt19937_64 rng(8);
  const auto ref = random_dense<double>({12, 2}, rng);
  const A y = make_array<Backend>(ref, Chunks{2, 2}) + 1.0;
  FakeSink<double> sink({12, 2});
  sink.fail_on({3, 0}, [] { throw std::runtime_error("disk full"); });
  try {
    detail::write_blocks(y.node(), sink, backend_traits<Backend>::kind, {});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("disk full"), std::string::npos) << what;
    EXPECT_NE(what.find("(3, 0)"), std::string::npos) << what;
  }
  sink.fail_on({1, 0}, [] { throw IndexError("no room in 'out.zarr'"); });
  EXPECT_THROW(detail::write_blocks(y.node(), sink, backend_traits<Backend>::kind, {}), IndexError);
  sink.fail_on({}, {});
  FakeSink<double> fresh({12, 2});
  detail::write_blocks(y.node(), fresh, backend_traits<Backend>::kind, {});
  EXPECT_EQ(fresh.values(), map(ref, [](double d) { return d + 1; }).values());
  EXPECT_TRUE(matches(y.compute(), map(ref, [](double d) { return d + 1; })));
}

} // namespace
} // namespace chunked::test
