// SPDX-License-Identifier: Apache-2.0
// ElementwiseFunction suite: user functions fused into block programs, against naive references
// under many chunkings, with broadcasting, scalars, mixed parameter types, reductions of calls,
// errors, and the failures of user code (a throwing callable, a CUDA body that does not compile).
#pragma once

#include "support/backend.hpp"
#include "support/errors.hpp"
#include "support/reference.hpp"

#include <atomic>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>

namespace chunked::test {
namespace {

using UserFunctionSuite = BackendTest;

/// |a - b|, exact in double: the same bits on every backend.
ElementwiseFunction<double(double, double)> abs_diff() {
  return {"abs_diff", "return a > b ? a - b : b - a;",
          [](double* out, const double* a, const double* b, index_t n) {
            for (index_t j = 0; j < n; ++j)
              out[j] = a[j] > b[j] ? a[j] - b[j] : b[j] - a[j];
          }};
}

template <class T> NDArray<T> computed(const ChunkedArray<T, Backend>& x) { return x.compute(); }

template <class T> void expect_equal(const NDArray<T>& got, const Dense<T>& want) {
  ASSERT_EQ(got.shape().extents(), want.shape());
  for (index_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(got.data()[i], want[i]) << "at flat index " << i;
}

TEST_F(UserFunctionSuite, BinaryMatchesReferenceUnderEveryChunking) {
  std::mt19937_64 rng(7);
  const Extents shape{7, 5};
  const auto a = random_dense<double>(shape, rng, true);
  const auto b = random_dense<double>(shape, rng, true);
  const auto want = zip(a, b, [](double x, double y) { return x > y ? x - y : y - x; });
  const auto f = abs_diff();
  for (const Chunks& ca : chunkings_for(shape))
    for (const Chunks& cb : {Chunks{2, 5}, Chunks{7, 1}}) {
      SCOPED_TRACE(ca.to_string() + " and " + cb.to_string());
      expect_equal(computed(f(make_array<Backend>(a, ca), make_array<Backend>(b, cb))), want);
    }
}

TEST_F(UserFunctionSuite, BroadcastsAndTakesScalars) {
  std::mt19937_64 rng(8);
  const auto a = random_dense<double>({4, 6}, rng, true);
  const auto row = random_dense<double>({6}, rng, true);
  const auto f = abs_diff();
  const auto x = make_array<Backend>(a, Chunks{3, 4});
  const auto r = make_array<Backend>(row, Chunks{5});
  expect_equal(computed(f(x, r)), generate<double>({4, 6}, [&](index_t i) {
                 const double u = a[i], v = row[i % 6];
                 return u > v ? u - v : v - u;
               }));
  expect_equal(computed(f(2.5, x)), map(a, [](double u) { return u < 2.5 ? 2.5 - u : u - 2.5; }));
  expect_error<ShapeError>([&] { (void)f(x, make_array<Backend>(row, Chunks{6})(slice(0, 5))); },
                           {"(4, 6)", "(5,)"});
}

TEST_F(UserFunctionSuite, ConvertsArgumentsToTheParameterTypes) {
  // float(float, int32): a float and an int32 argument from double and int64 arrays.
  ElementwiseFunction<float(float, std::int32_t)> scale{
      "scale_by", "return a * (float)b;",
      [](float* out, const float* a, const std::int32_t* b, index_t n) {
        for (index_t j = 0; j < n; ++j)
          out[j] = a[j] * static_cast<float>(b[j]);
      }};
  std::mt19937_64 rng(9);
  const auto a = random_dense<double>({9}, rng, true);
  const auto k = random_dense<std::int64_t>({9}, rng);
  const auto y = scale(make_array<Backend>(a, Chunks{4}), make_array<Backend>(k, Chunks{2}));
  static_assert(std::is_same_v<decltype(y), const ChunkedArray<float, Backend>>);
  expect_equal(computed(y), zip(a, k, [](double u, std::int64_t v) {
                 return static_cast<float>(u) * static_cast<float>(static_cast<std::int32_t>(v));
               }));
}

TEST_F(UserFunctionSuite, UnaryAndTernaryFunctionsFuseWithOperators) {
  ElementwiseFunction<double(double)> twice{"twice", "return a + a;",
                                            [](double* out, const double* a, index_t n) {
                                              for (index_t j = 0; j < n; ++j)
                                                out[j] = a[j] + a[j];
                                            }};
  ElementwiseFunction<bool(double, double, double)> between{
      "between", "return a < b && b < c;",
      [](bool* out, const double* a, const double* b, const double* c, index_t n) {
        for (index_t j = 0; j < n; ++j)
          out[j] = a[j] < b[j] && b[j] < c[j];
      }};
  std::mt19937_64 rng(10);
  const auto a = random_dense<double>({5, 4}, rng, true);
  for (const Chunks& c : chunkings_for({5, 4})) {
    SCOPED_TRACE(c.to_string());
    const auto x = make_array<Backend>(a, c);
    // The same function twice in one program, under an operator and a reduction.
    expect_equal(computed(twice(twice(x) + 1.0)), map(a, [](double u) { return 2 * (2 * u + 1); }));
    expect_equal(computed(between(-1.0, x, 1.0)), map(a, [](double u) { return -1 < u && u < 1; }));
    const double want = [&] {
      double s = 0;
      for (double u : a.values())
        s += 2 * u;
      return s;
    }();
    EXPECT_EQ(twice(x).sum().item(), want); // values on a 1/64 grid: every order is exact
  }
}

TEST_F(UserFunctionSuite, EmptyArraysNeverCallTheFunction) {
  std::atomic<int> calls{0};
  ElementwiseFunction<double(double)> count{"count_calls", "return a;",
                                            [&](double* out, const double* a, index_t n) {
                                              calls += 1;
                                              for (index_t j = 0; j < n; ++j)
                                                out[j] = a[j];
                                            }};
  const auto x = zeros<double, Backend>(Shape{0, 3}, Chunks{2, 2});
  EXPECT_EQ(computed(count(x)).shape(), (Shape{0, 3}));
  EXPECT_EQ(calls.load(), 0);
}

TEST_F(UserFunctionSuite, CpuCallableComputesEachElementOnceInTiles) {
  if (runs_on_gpu())
    GTEST_SKIP() << "the CPU callable runs only on the CPU";
  std::atomic<index_t> elements{0}, bad_calls{0};
  ElementwiseFunction<double(double)> count{"count_elements", "return a;",
                                            [&](double* out, const double* a, index_t n) {
                                              elements += n;
                                              bad_calls += n < 1;
                                              for (index_t j = 0; j < n; ++j)
                                                out[j] = a[j] * 3;
                                            }};
  const auto x = arange<double, Backend>(0, 100000, 1, 7000);
  EXPECT_EQ(count(x).sum().item(), 3.0 * 99999 * 100000 / 2);
  EXPECT_EQ(elements.load(), 100000);
  EXPECT_EQ(bad_calls.load(), 0);
}

TEST_F(UserFunctionSuite, ThrowingCallableSurfacesAndTheRuntimeStaysUsable) {
  if (runs_on_gpu())
    GTEST_SKIP() << "the CPU callable runs only on the CPU";
  ElementwiseFunction<double(double)> fails{
      "fails", "return a;",
      [](double*, const double*, index_t) { throw std::runtime_error("user function failed"); }};
  const auto x = ones<double, Backend>(Shape{64, 64}, Chunks{16, 16});
  try {
    (void)fails(x).sum().item();
    ADD_FAILURE() << "expected the callable's exception";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("user function failed"), std::string::npos) << e.what();
  }
  EXPECT_EQ(abs_diff()(x, 3.0).sum().item(), 2.0 * 64 * 64);
}

TEST_F(UserFunctionSuite, CudaBodyThatDoesNotCompileIsABackendError) {
  if (!runs_on_gpu())
    GTEST_SKIP() << "the CUDA body is compiled only for a GPU";
  ElementwiseFunction<double(double)> broken{"broken_body", "return a +* ;",
                                             [](double*, const double*, index_t) {}};
  const auto x = ones<double, Backend>(Shape{8}, Chunks{4});
  expect_error<BackendError>([&] { (void)broken(x).compute(); }, {"broken_body"});
  EXPECT_EQ(abs_diff()(x, 3.0).sum().item(), 16.0);
}

TEST_F(UserFunctionSuite, BadDefinitionsAndMissingFormsAreValueErrors) {
  using F = ElementwiseFunction<double(double)>;
  auto cpu = [](double*, const double*, index_t) {};
  expect_error<ValueError>([&] { F("not a name", "return a;", cpu); },
                           {"not a name", "identifier"});
  expect_error<ValueError>([&] { F("no_forms", "", F::cpu_function{}); }, {"no_forms"});
  const auto x = ones<double, Backend>(Shape{4}, Chunks{2});
  if constexpr (!std::is_same_v<Backend, Cpu>)
    expect_error<ValueError>([&] { (void)F("cpu_only", cpu)(x); }, {"cpu_only", "CUDA body"});
  if constexpr (!backend_is_cuda)
    expect_error<ValueError>([&] { (void)F("gpu_only", "return a;")(x); },
                             {"gpu_only", "CPU function"});
}

} // namespace
} // namespace chunked::test
