// SPDX-License-Identifier: Apache-2.0
// Computations over MPI ranks (DESIGN 8.6): every operation kind gives, on every rank, the bits
// that one process computes alone; mismatched graphs and failing ranks raise on every rank.
#include <chunked/chunked.hpp>
#include <chunked/mpi.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace chunked;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

ComputeOptions over_ranks() {
  static const auto cluster = mpi::cluster(MPI_COMM_WORLD);
  ComputeOptions o;
  o.cluster = cluster;
  o.num_threads = 1;
  return o;
}

ComputeOptions alone() {
  ComputeOptions o;
  o.num_threads = 1;
  return o;
}

template <class T> bool bitwise(const NDArray<T>& a, const NDArray<T>& b) {
  return a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(T)) == 0;
}

/// compute() over the ranks equals compute() in one process, bit for bit.
template <class A> void expect_same(const A& x) {
  const auto distributed = x.compute(over_ranks());
  const auto single = x.compute(alone());
  EXPECT_TRUE(bitwise(distributed, single));
}

Generator rng(7);
const auto x = rng.normal<double>(Shape{37, 23}, Chunks{5, 7}, 1.0, 2.0);

TEST(Distributed, ElementwiseSlicesAndReductions) {
  expect_same((x * 2.0 + 1.0)(slice(none, none, 2), slice(1, none, 3)));
  expect_same(x.sum(Axes{0}));
  expect_same(x.mean(Axes{1}));
  expect_same(x.std(Axes{0}));
  expect_same(x.argmax(1));
  expect_same((x - x.mean(Axes{0})) / x.std(Axes{0}));
  EXPECT_EQ(x.sum().item(over_ranks()), x.sum().item(alone()));
  EXPECT_EQ((x + 1.0)(slice(none, none, 2), slice(none, none, 2)).sum().item(over_ranks()),
            (x + 1.0)(slice(none, none, 2), slice(none, none, 2)).sum().item(alone()));
}

TEST(Distributed, ScansShapesAndUserCode) {
  expect_same(cumsum(x, 0));
  expect_same(cumsum(x, 1));
  expect_same(transpose(x) * 3.0);
  expect_same(reshape(x, {23, 37}));
  expect_same(concatenate({x, x * 2.0}, 1));
  expect_same(x.rechunk(Chunks{4, 9}) + 0.0);
  expect_same(map_blocks<double>(
      [](const BlockInfo&, BlockView<double> out, BlockView<const double> in) {
        for (index_t i = 0; i < in.size(); ++i)
          out.data[i] = in.data[i] * in.data[i];
      },
      x));
  expect_same(map_overlap<double>(
      [](const BlockInfo&, BlockView<double> out, BlockView<const double> in) {
        const index_t w = in.shape[1], ow = out.shape[1];
        for (index_t i = 0; i < out.shape[0]; ++i)
          for (index_t j = 0; j < ow; ++j)
            out.data[i * ow + j] = in.data[(i + 1) * w + j + 1] - in.data[i * w + j + 1];
      },
      x, {1, 1}, Boundary::periodic));
}

/// `f` of an array persisted over the ranks equals `f` of the same array in one process.
template <class F> void expect_same_persisted(F f) {
  const auto y = (x * 2.0).persist(over_ranks());
  const auto local = (x * 2.0).persist(alone());
  EXPECT_TRUE(bitwise(f(y).compute(over_ranks()), f(local).compute(alone())));
}

TEST(Distributed, PersistKeepsEachRanksBlocks) {
  // Read again in the same grid, in another, and reduced: blocks move to the ranks reading them.
  expect_same_persisted([](const auto& y) { return y + 1.0; });
  expect_same_persisted([](const auto& y) { return y(slice(3, none), slice(none, none, -1)); });
  expect_same_persisted([](const auto& y) { return y.rechunk(Chunks{11, 23}) * 1.0; });
  expect_same_persisted([](const auto& y) { return y.sum(Axes{1}); });
  expect_same_persisted([](const auto& y) { return cumsum(y, 0); });
}

TEST(Distributed, RanksThatBuiltDifferentGraphsAllRaise) {
  const auto z = x + static_cast<double>(world_rank());
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) {
    EXPECT_NO_THROW(z.sum().item(over_ranks()));
    return;
  }
  EXPECT_THROW(z.sum().item(over_ranks()), ValueError);
  // The cluster is usable afterwards.
  EXPECT_EQ(x.sum().item(over_ranks()), x.sum().item(alone()));
}

TEST(Distributed, AFailingRankMakesEveryRankRaise) {
  const auto failing = map_blocks<double>(
      [](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
        if (info.block[0] == 3 && info.block[1] == 1)
          throw std::runtime_error("block (3, 1) refused");
        std::memcpy(out.data, in.data, static_cast<std::size_t>(in.size()) * sizeof(double));
      },
      x);
  try {
    (void)failing.sum().item(over_ranks());
    ADD_FAILURE() << "no rank raised";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("block (3, 1) refused"), std::string::npos) << e.what();
  }
  EXPECT_EQ(x.sum().item(over_ranks()), x.sum().item(alone()));
}

} // namespace

namespace {

TEST(Distributed, WritingFilesFromSeveralRanksIsRefused) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1)
    GTEST_SKIP() << "one rank writes its files as one process does";
  EXPECT_THROW(to_zarr("never-written.zarr", x, {}, over_ranks()), ValueError);
  EXPECT_THROW(save_npy("never-written.npy", x, over_ranks()), ValueError);
  EXPECT_FALSE(std::filesystem::exists("never-written.zarr"));
}

} // namespace
