// SPDX-License-Identifier: Apache-2.0
// Errors suite: bad programs fail when written, with the right exception class and a message
// naming what was given and what was expected; failures inside compute leave the runtime usable.
#pragma once

#include "support/backend.hpp"
#include "support/errors.hpp"
#include "support/reference.hpp"

#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace chunked::test {
namespace {

using Errors = BackendTest;

using A = ChunkedArray<double, Backend>;

A sample(const Extents& shape) {
  return zeros<double, Backend>(Shape(shape), Chunks(Extents(shape.size(), 2)));
}

TEST_F(Errors, EveryErrorIsAChunkedError) {
  static_assert(std::is_base_of_v<Error, ShapeError> && std::is_base_of_v<Error, IndexError> &&
                std::is_base_of_v<Error, ValueError> && std::is_base_of_v<Error, BackendError> &&
                std::is_base_of_v<Error, OutOfMemory> &&
                std::is_base_of_v<std::runtime_error, Error>);
  expect_error<Error>([] { (void)(sample({4, 5}) + sample({3})); }, {});
}

TEST_F(Errors, BroadcastMismatchNamesBothShapes) {
  expect_error<ShapeError>(
      [] {
        (void)(sample({4, 5}) + sample({3}));
      },
      {"(4, 5)", "(3,)", "broadcast"});
  expect_error<ShapeError>([] { (void)(sample({2, 3}) * sample({3, 2})); }, {"(2, 3)", "(3, 2)"});
  expect_error<ShapeError>([] { (void)where(sample({4}) > 0.0, sample({5}), 1.0); },
                           {"(4,)", "(5,)"});
  expect_error<ShapeError>([] { (void)minimum(sample({2, 2}), sample({3})); }, {"(2, 2)", "(3,)"});
}

TEST_F(Errors, BadAxisNamesTheAxisAndRank) {
  expect_error<IndexError>([] { (void)sample({4, 5}).sum(Axes{2}); }, {"axis 2", "rank 2"});
  expect_error<IndexError>([] { (void)sample({4, 5}).mean(Axes{-3}); }, {"-3", "rank 2"});
  expect_error<IndexError>([] { (void)sample({4, 5}).argmax(5); }, {"5", "rank 2"});
  expect_error<IndexError>([] { (void)sample({}).sum(Axes{0}); }, {"axis 0", "rank 0"});
}

TEST_F(Errors, DuplicateAxisIsAValueError) {
  expect_error<ValueError>(
      [] {
        (void)sample({4, 5}).sum(Axes{0, -2});
      },
      {"axis 0", "more than once"});
  expect_error<ValueError>(
      [] {
        (void)sample({4, 5, 6}).var(Axes{1, 1});
      },
      {"axis 1", "more than once"});
}

TEST_F(Errors, BadChunks) {
  expect_error<ValueError>(
      [] {
        (void)zeros<double, Backend>(Shape{4, 5}, Chunks{2, 0});
      },
      {"chunk length 0", "axis 1", "> 0"});
  expect_error<ValueError>([] { (void)ones<float, Backend>(Shape{4}, Chunks{-3}); }, {"-3", "> 0"});
  expect_error<ShapeError>(
      [] {
        (void)zeros<double, Backend>(Shape{4, 5}, Chunks{2});
      },
      {"(2,)", "(4, 5)"});
  expect_error<ShapeError>(
      [] {
        (void)sample({4, 5}).rechunk(Chunks{1, 2, 3});
      },
      {"(1, 2, 3)", "(4, 5)"});
  expect_error<ValueError>([] { (void)sample({4}).rechunk(Chunks{0}); }, {"chunk length 0"});
  expect_error<ValueError>([] { (void)arange<std::int64_t, Backend>(0, 10, 1, 0); },
                           {"chunk", "0"});
  expect_error<ValueError>([] { (void)Chunks::automatic(0); }, {"target_bytes"});
  std::vector<double> data(6);
  expect_error<ValueError>(
      [&] {
        (void)from_host<Backend>(std::span<const double>(data), Shape{2, 3}, Chunks{0, 1});
      },
      {"chunk length 0"});
}

TEST_F(Errors, IndexingErrors) {
  expect_error<IndexError>([] { (void)sample({7, 8})(7); }, {"index 7", "axis 0", "size 7"});
  expect_error<IndexError>([] { (void)sample({7, 8})(0, -9); }, {"index -9", "axis 1", "size 8"});
  expect_error<IndexError>([] { (void)sample({0})(0); }, {"index 0", "size 0"});
  expect_error<IndexError>([] { (void)sample({7, 8})(1, 2, 3); }, {"rank 2", "3"});
  expect_error<ValueError>([] { (void)sample({7, 8})(slice(none, none, 0)); }, {"step", "zero"});
  expect_error<ValueError>([] { (void)sample({7, 8})(all, slice(1, 5, 0)); }, {"step", "zero"});
}

TEST_F(Errors, ItemToHostAndFromHostSizes) {
  expect_error<ShapeError>(
      [] {
        (void)sample({4, 5}).item();
      },
      {"(4, 5)", "20 elements", "exactly one"});
  expect_error<ShapeError>([] { (void)sample({0}).item(); }, {"(0,)", "exactly one"});
  std::vector<double> out(19);
  expect_error<ShapeError>(
      [&] {
        sample({4, 5}).to_host(std::span<double>(out));
      },
      {"19", "(4, 5)", "20"});
  expect_error<ShapeError>(
      [&] {
        (void)from_host<Backend>(std::span<const double>(out), Shape{4, 5}, Chunks{2, 2});
      },
      {"19", "(4, 5)", "20"});
}

TEST_F(Errors, DenseHostArrayErrors) {
  const std::vector<double> five(5);
  expect_error<ShapeError>([&] { (void)NDArray<double>(Shape{2, 3}, five); }, {"5", "(2, 3)", "6"});
  NDArray<double> a(Shape{2, 3});
  expect_error<IndexError>([&] { (void)a(2, 0); }, {"index 2", "axis 0", "size 2"});
  expect_error<IndexError>([&] { (void)a(0, -4); }, {"index -4", "axis 1", "size 3"});
  expect_error<IndexError>([&] { (void)a(0); }, {"1", "2"});
  expect_error<ShapeError>([&] { (void)a.item(); }, {"(2, 3)", "6 elements"});
}

TEST_F(Errors, ReductionsWithoutIdentityOnEmptyArrays) {
  expect_error<ValueError>([] { (void)sample({0}).min(); }, {"zero-size", "min"});
  expect_error<ValueError>(
      [] {
        (void)sample({3, 0}).max(Axes{1});
      },
      {"zero-size", "max", "(3, 0)"});
  expect_error<ValueError>([] { (void)sample({0, 2}).argmin(); }, {"zero-size", "argmin"});
  // Reducing only non-empty axes of an empty array is fine (the result is empty).
  EXPECT_EQ(sample({0, 2}).max(Axes{1}).size(), 0);
}

TEST_F(Errors, BadGeneratorAndCreationArguments) {
  Generator g(1);
  expect_error<ValueError>(
      [&] { (void)g.integers<std::int64_t, Backend>(Shape{3}, Chunks{3}, 3, 3); },
      {"low (3)", "high (3)"});
  expect_error<ValueError>(
      [&] { (void)g.integers<std::int32_t, Backend>(Shape{3}, Chunks{3}, 5, -5); },
      {"low (5)", "high (-5)"});
  expect_error<ValueError>([&] { (void)g.normal<double, Backend>(Shape{3}, Chunks{3}, 0.0, -1.0); },
                           {"stddev", "-1"});
  expect_error<ValueError>([] { (void)arange<std::int64_t, Backend>(0, 10, 0, 4); }, {"step"});
  expect_error<ValueError>([] { (void)arange<double, Backend>(0.0, 1.0, 0.0, 4); }, {"step"});
  expect_error<ValueError>([] { (void)Shape{4, -1}; }, {"-1", "axis 1"});
}

TEST_F(Errors, CountsPastInt64AreValueErrorsWhenTheArrayIsMade) {
  constexpr index_t big = index_t{1} << 32, huge = index_t{1} << 40;
  const index_t max64 = std::numeric_limits<index_t>::max();
  expect_error<ValueError>(
      [] {
        (void)zeros<double, Backend>(Shape{big, big}, Chunks{1024, 1024});
      },
      {"(4294967296, 4294967296)", "int64"});
  // Accepted before, with size() 0, and later read outside the stored block.
  expect_error<ValueError>(
      [] {
        (void)from_host<Backend>(std::span<const double>{}, Shape{big, big}, Chunks{4, 4});
      },
      {"(4294967296, 4294967296)"});
  // Bytes past int64 (NumPy's limit): 2^60 doubles.
  expect_error<ValueError>(
      [] {
        (void)ones<double, Backend>(Shape{index_t{1} << 30, index_t{1} << 30}, Chunks{64, 64});
      },
      {"(1073741824, 1073741824)", "bytes"});
  // Broadcasting past int64.
  const auto col = zeros<bool, Backend>(Shape{huge, 1}, Chunks{huge, 1});
  const auto row = zeros<bool, Backend>(Shape{1, huge}, Chunks{1, huge});
  expect_error<ValueError>([&] { (void)(col | row); }, {"(1099511627776, 1099511627776)"});
  expect_error<ValueError>([&] { (void)where(col, row, col); }, {"(1099511627776, 1099511627776)"});
  // Ranges of more elements or bytes than int64 counts.
  expect_error<ValueError>([] { (void)arange<double, Backend>(-1e308, 1e308, 1.0, 64); },
                           {"arange", "int64"});
  expect_error<ValueError>([&] { (void)arange<std::int64_t, Backend>(-max64, max64, 1, 64); },
                           {"18446744073709551614 elements"});
  expect_error<ValueError>([] { (void)arange<std::int64_t, Backend>(0, index_t{1} << 61, 1, 64); },
                           {"bytes"});
}

TEST_F(Errors, IntegerScalarsOutsideTheArrayTypeAreValueErrorsInArithmetic) {
  // NEP 50: the scalar takes the array's type; NumPy raises OverflowError.
  const auto i32 = zeros<std::int32_t, Backend>(Shape{4}, Chunks{2});
  const auto i64 = zeros<std::int64_t, Backend>(Shape{4}, Chunks{2});
  const auto b = zeros<bool, Backend>(Shape{4}, Chunks{2});
  expect_error<ValueError>([&] { (void)(i32 + 3000000000LL); }, {"3000000000", "int32"});
  expect_error<ValueError>([&] { (void)(-2147483649LL * i32); }, {"-2147483649", "int32"});
  expect_error<ValueError>([&] { (void)(i32 / 2147483648LL); }, {"2147483648", "int32"});
  expect_error<ValueError>([&] { (void)(i32 % (1ULL << 40)); }, {"1099511627776"});
  expect_error<ValueError>([&] { (void)pow(i32, 1LL << 33); }, {"8589934592"});
  expect_error<ValueError>([&] { (void)(i32 & 2147483648U); }, {"2147483648"});
  expect_error<ValueError>([&] { (void)where(b, i32, std::int64_t{1} << 31); },
                           {"2147483648", "int32"});
  expect_error<ValueError>([&] { (void)(i64 + (1ULL << 63)); }, {"9223372036854775808", "int64"});
  expect_error<ValueError>([&] { (void)(b + (1ULL << 63)); }, {"9223372036854775808", "int64"});
  expect_error<ValueError>(
      [&] {
        auto x = i32;
        x += 3000000000LL;
      },
      {"3000000000"});
  // The bounds themselves fit; float scalars promote as before.
  EXPECT_EQ((i32 + 2147483647LL).dtype(), DType::int32);
  EXPECT_EQ((i32 + -2147483648LL).compute()(0), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ((i64 + 9223372036854775807ULL).compute()(1), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ((i32 + 3e9).compute()(0), 3e9);
}

TEST_F(Errors, BoolOperationsSayWhatNumPyDoes) {
  const auto b = zeros<bool, Backend>(Shape{4}, Chunks{2});
  expect_error<ValueError>([&] { (void)(b - b); }, {"NumPy rejects it too", "^"});
  expect_error<ValueError>([&] { (void)(b % b); }, {"int8", "cast"});
  expect_error<ValueError>([&] { (void)pow(b, true); }, {"int8", "cast"});
}

TEST_F(Errors, BadComputeOptions) {
  ComputeOptions o;
  o.num_threads = -2;
  expect_error<ValueError>([&] { (void)sample({4}).sum().item(o); }, {"num_threads", "-2"});
  ComputeOptions streams;
  streams.streams_per_device = -1;
  expect_error<ValueError>([&] { (void)sample({4}).compute(streams); },
                           {"streams_per_device", "-1"});
  ComputeOptions negative;
  negative.devices = {0, -1};
  expect_error<ValueError>([&] { (void)sample({4}).sum().item(negative); }, {"devices", "-1"});
  ComputeOptions twice;
  twice.devices = {1, 0, 1};
  expect_error<ValueError>([&] { (void)sample({4}).persist(twice); },
                           {"devices", "device 1 twice"});
}

TEST_F(Errors, CudaWithoutADeviceSuggestsAuto) {
  if (cuda_available())
    GTEST_SKIP() << "a CUDA device is visible: the Cuda backend works here";
  const auto x = zeros<double, Cuda>(Shape{4}, Chunks{2}); // building a program needs no device
  expect_error<BackendError>([&] { (void)x.compute(); }, {"Cuda", "Auto"});
  expect_error<BackendError>([&] { (void)x.sum().item(); }, {"Cuda", "Auto"});
  expect_error<BackendError>([&] { (void)x.persist(); }, {"Cuda", "Auto"});
  EXPECT_EQ(x.to<Auto>().sum().item(), 0.0) << "Auto falls back to the CPU";
  // An empty array has nothing to compute, but its backend is no more usable.
  const auto empty = zeros<double, Cuda>(Shape{0, 3}, Chunks{2, 2});
  expect_error<BackendError>([&] { (void)empty.compute(); }, {"Cuda", "Auto"});
  expect_error<BackendError>([&] { empty.to_host({}); }, {"Cuda", "Auto"});
  expect_error<BackendError>([&] { (void)chunked::compute({}, empty, empty); }, {"Cuda", "Auto"});
  EXPECT_EQ(empty.to<Auto>().compute().size(), 0) << "Auto falls back to the CPU";
}

// compute() of an empty array checks its options as for any other array.
TEST_F(Errors, EmptyArraysCheckComputeOptions) {
  const A empty = sample({3, 0});
  ComputeOptions threads;
  threads.num_threads = -2;
  expect_error<ValueError>([&] { (void)empty.compute(threads); }, {"num_threads", "-2"});
  expect_error<ValueError>([&] { empty.to_host({}, threads); }, {"num_threads", "-2"});
  expect_error<ValueError>([&] { (void)chunked::compute(threads, empty, sample({0})); },
                           {"num_threads", "-2"});
  ComputeOptions twice;
  twice.devices = {0, 0};
  expect_error<ValueError>([&] { (void)empty.compute(twice); }, {"devices", "device 0 twice"});
  EXPECT_EQ(empty.compute().size(), 0);
  EXPECT_EQ(std::get<0>(chunked::compute(ComputeOptions{}, empty)).size(), 0);
}

TEST_F(Errors, AThrowingProgressCallbackLeavesTheRuntimeUsable) {
  Generator g(3);
  const auto x = g.uniform<double, Backend>(Shape{64, 64}, Chunks{8, 8});
  const double want = x.sum().item();
  for (Scheduler s : {Scheduler::threads, Scheduler::single_threaded}) {
    ComputeOptions bad;
    bad.scheduler = s;
    bad.on_progress = [](const Progress&) { throw std::runtime_error("progress callback failed"); };
    try {
      (void)x.sum().item(bad);
      ADD_FAILURE() << "the callback's exception was swallowed";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("progress callback failed"), std::string::npos)
          << e.what();
    }
    // The next computations work and give the same result.
    EXPECT_EQ(x.sum().item(), want);
    ComputeOptions good;
    good.scheduler = s;
    EXPECT_TRUE(
        matches(x(slice(0, 2), 0).compute(), from_ndarray(x(slice(0, 2), 0).compute(good))));
  }
}

} // namespace
} // namespace chunked::test
