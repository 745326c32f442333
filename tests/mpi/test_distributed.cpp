// SPDX-License-Identifier: Apache-2.0
// Computations over MPI ranks (DESIGN 8.6): every operation kind gives, on every rank, the bits
// that one process computes alone; ranks write one file or store together; mismatched graphs and
// failing ranks raise on every rank.
#include <chunked/chunked.hpp>
#include <chunked/mpi.hpp>

#include <gtest/gtest.h>

#ifdef CHUNKED_TEST_CUDA
#include <cuda_runtime.h>
#endif

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

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
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

// ComputeOptions::exact_sums: the same bits over the ranks, in one process, and on another
// chunking.
TEST(Distributed, ExactSumsAreTheSameOnEveryRankCountAndChunking) {
  ComputeOptions ranks = over_ranks(), one = alone();
  ranks.exact_sums = one.exact_sums = true;
  const auto y = x.rechunk(Chunks{4, 9});
  EXPECT_TRUE(bitwise(x.sum(Axes{0}).compute(ranks), x.sum(Axes{0}).compute(one)));
  EXPECT_TRUE(bitwise(x.sum(Axes{0}).compute(ranks), y.sum(Axes{0}).compute(one)));
  EXPECT_TRUE(bitwise(x.std(Axes{1}).compute(ranks), y.std(Axes{1}).compute(one)));
  EXPECT_TRUE(bitwise(x.mean(Axes{1}).compute(ranks), y.mean(Axes{1}).compute(ranks)));
  const double whole = x.sum().item(ranks);
  EXPECT_EQ(whole, y.sum().item(one));
  EXPECT_EQ(whole, x.sum().item(one));
  // Exact cumsums pass their lines' exact sums from rank to rank.
  EXPECT_TRUE(bitwise(cumsum(x, 0).compute(ranks), cumsum(y, 0).compute(one)));
  EXPECT_TRUE(bitwise(cumsum(x, 1).compute(ranks), cumsum(y, 1).compute(one)));
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

TEST(Distributed, MoreKindsOfOperation) {
  Generator gen(5);
  const auto u = gen.uniform<float>(Shape{3, 19, 13}, Chunks{2, 4, 5}, -1.0F, 1.0F);
  const auto n = gen.integers<std::int32_t>(Shape{19, 13}, Chunks{7, 3}, -50, 50);
  std::vector<double> host(19 * 13);
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<double>(i % 17) - 8.0;
  const auto h = from_host(host, Shape{19, 13}, Chunks{6, 6});
  const ElementwiseFunction<double(double, double)> hypot2{
      "hypot2", "return a * a + b * b;",
      [](double* out, const double* a, const double* b, index_t k) {
        for (index_t j = 0; j < k; ++j)
          out[j] = a[j] * a[j] + b[j] * b[j];
      }};
  expect_same(u.prod(Axes{0}));
  expect_same(u.min(Axes{1}));
  expect_same(u.max());
  expect_same(u.var(Axes{2}, 1));
  expect_same(u.any(Axes{0}));
  expect_same(cumprod(u, 2));
  expect_same(n.sum(Axes{0}));
  expect_same(cumsum(n, 1));
  expect_same(where(n > 0, h, h * -1.0));
  expect_same(hypot2(h, n.astype<double>()));
  expect_same(stack({h, h + 1.0, h * 2.0}, 1));
  expect_same(broadcast_to(h.sum(Axes{0}), Shape{4, 13}) + 0.0);
  expect_same(moveaxis(u, 0, 2) * 1.0F);
  expect_same(expand_dims(h, 1) + 1.0);
  expect_same(h(slice(5, 5), slice(none, none)).sum(Axes{0})); // empty rows
}

TEST(Distributed, ProductsOfBlocks) {
  // Chains of product terms stay on the rank of their output block; operand blocks move to it.
  Generator gen(8);
  const auto a = gen.normal<double>(Shape{23, 17}, Chunks{5, 4}, 0.0, 1.0);
  const auto b = gen.normal<double>(Shape{17, 11}, Chunks{6, 3}, 0.0, 1.0);
  const auto s = gen.uniform<float>(Shape{3, 7, 5}, Chunks{2, 3, 2}, -1.0F, 1.0F);
  expect_same(matmul(a, b));
  expect_same(matmul(a * 2.0 + 1.0, b).sum(Axes{1}));
  expect_same(matmul(s, s.transpose({0, 2, 1})));
  expect_same(tensordot(s, s, {{0, 1}, {0, 1}}));
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
  expect_same_persisted([](const auto& y) { return matmul(y, y.transpose()); });
  expect_same_persisted([](const auto& y) { return y(slice(3, none), slice(none, none, -1)); });
  expect_same_persisted([](const auto& y) { return y.rechunk(Chunks{11, 23}) * 1.0; });
  expect_same_persisted([](const auto& y) { return y.sum(Axes{1}); });
  expect_same_persisted([](const auto& y) { return cumsum(y, 0); });
}

TEST(Distributed, ArraysPersistedOverRanksNeedTheCluster) {
  const auto y = (x * 2.0).persist(over_ranks());
  if (world_size() == 1) {
    EXPECT_TRUE(bitwise((y + 1.0).compute(alone()), (x * 2.0 + 1.0).compute(alone())));
    return;
  }
  // Each rank holds only its own blocks.
  EXPECT_THROW((void)(y + 1.0).compute(alone()), ValueError);
  EXPECT_TRUE(bitwise((y + 1.0).compute(over_ranks()), (x * 2.0 + 1.0).compute(alone())));
}

TEST(Distributed, RanksThatBuiltDifferentGraphsAllRaise) {
  const auto z = x + static_cast<double>(world_rank());
  if (world_size() == 1) {
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

/// A path in the working directory that every rank shares, distinct per rank count (ctest runs
/// the rank counts at once, in one directory).
std::filesystem::path shared_path(const std::string& name) {
  return "written-np" + std::to_string(world_size()) + "-" + name;
}

/// Waits for every rank, then removes `path` on rank 0 (after every rank has read it).
void remove_when_read(const std::filesystem::path& path) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0)
    std::filesystem::remove_all(path);
  MPI_Barrier(MPI_COMM_WORLD);
}

/// Whether any file in the working directory names `path` with a temporary suffix.
bool temporaries_left(const std::filesystem::path& path) {
  for (const auto& entry : std::filesystem::directory_iterator("."))
    if (entry.path().filename().string().rfind(path.filename().string() + ".", 0) == 0)
      return true;
  return false;
}

TEST(Distributed, RanksWriteOneNpyFile) {
  const auto path = shared_path("x.npy");
  const auto y = (x * 3.0 - 1.0)(slice(1, none), slice(none, none, 2));
  save_npy(path, y, over_ranks());
  EXPECT_TRUE(bitwise(load_npy<double>(path, Chunks{8, 8}).compute(alone()), y.compute(alone())));
  EXPECT_FALSE(temporaries_left(path));
  remove_when_read(path);
}

TEST(Distributed, RanksWriteOneZarrStore) {
  const auto path = shared_path("x.zarr");
  // Regular chunks, stored as they are; then irregular ones, rechunked to the store's.
  for (const auto& y : {x * 0.5, concatenate({x, x(slice(0, 3), slice(none, none))}, 0)}) {
    for (int version : {2, 3}) {
      ZarrOptions z;
      z.version = version;
      z.overwrite = true;
      to_zarr(path, y, z, over_ranks());
      EXPECT_TRUE(bitwise(from_zarr<double>(path).compute(alone()), y.compute(alone())));
      EXPECT_FALSE(temporaries_left(path));
      MPI_Barrier(MPI_COMM_WORLD); // every rank has read it before the next write replaces it
    }
  }
  // Without overwrite, every rank refuses the existing store.
  EXPECT_THROW(to_zarr(path, x, {}, over_ranks()), ValueError);
  remove_when_read(path);
}

TEST(Distributed, AFailedWriteOnOneRankLeavesTheOldFiles) {
  const auto zarr_path = shared_path("kept.zarr");
  const auto npy_path = shared_path("kept.npy");
  ZarrOptions z;
  z.overwrite = true;
  to_zarr(zarr_path, x, z, over_ranks());
  save_npy(npy_path, x, over_ranks());
  const auto failing = map_blocks<double>(
      [](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
        if (info.block[0] == 5 && info.block[1] == 2)
          throw std::runtime_error("block (5, 2) refused");
        std::memcpy(out.data, in.data, static_cast<std::size_t>(in.size()) * sizeof(double));
      },
      x + 1.0);
  EXPECT_THROW(to_zarr(zarr_path, failing, z, over_ranks()), Error);
  EXPECT_THROW(save_npy(npy_path, failing, over_ranks()), Error);
  EXPECT_TRUE(bitwise(from_zarr<double>(zarr_path).compute(alone()), x.compute(alone())));
  EXPECT_TRUE(
      bitwise(load_npy<double>(npy_path, Chunks{9, 9}).compute(alone()), x.compute(alone())));
  EXPECT_FALSE(temporaries_left(zarr_path));
  EXPECT_FALSE(temporaries_left(npy_path));
  // The cluster is usable afterwards.
  EXPECT_EQ(x.sum().item(over_ranks()), x.sum().item(alone()));
  remove_when_read(zarr_path);
  remove_when_read(npy_path);
}

TEST(Distributed, AutoRunsOnEachRanksGpuWhereThereIsOne) {
  // One rank per GPU on the GPU machine (on the CPU elsewhere): the same bits as one process.
  Generator gen(11);
  const auto a = gen.normal<double, Auto>(Shape{41, 29}, Chunks{6, 8}, 0.0, 1.0);
  expect_same((a * 2.0 + 1.0)(slice(1, none, 2), slice(none, none, -1)));
  expect_same(a.sum(Axes{0}));
  expect_same(cumsum(a, 1));
  expect_same(a.rechunk(Chunks{10, 5}) - a.mean());
  const auto p = (a * 3.0).persist(over_ranks());
  EXPECT_TRUE(
      bitwise(p.sum(Axes{1}).compute(over_ranks()), (a * 3.0).sum(Axes{1}).compute(alone())));
  const auto path = shared_path("auto.npy");
  save_npy(path, a, over_ranks());
  EXPECT_TRUE(bitwise(load_npy<double>(path, Chunks{7, 7}).compute(alone()), a.compute(alone())));
  remove_when_read(path);
}

#ifdef CHUNKED_TEST_CUDA
TEST(Distributed, ToDeviceGivesEveryRankTheWholeResult) {
  if (!cuda_available())
    GTEST_SKIP() << "no usable CUDA device";
  Generator gen(12);
  const auto a = gen.normal<double, Cuda>(Shape{31, 19}, Chunks{4, 6}, 0.0, 1.0);
  const auto y = matmul(a * 2.0 + 1.0, a.transpose()) + a.sum(Axes{1}).reshape({31, 1});
  const NDArray<double> single = y.compute(alone());
  const std::size_t bytes = single.span().size() * sizeof(double);
  double* device = nullptr;
  ASSERT_EQ(cudaMalloc(&device, bytes), cudaSuccess);
  y.to_device(device, 0, over_ranks());
  NDArray<double> back(single.shape());
  ASSERT_EQ(cudaMemcpy(back.data(), device, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(device);
  EXPECT_TRUE(bitwise(back, single));
}
#endif

} // namespace
