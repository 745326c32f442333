// SPDX-License-Identifier: Apache-2.0
// Interop options suite (ComputeOptions::stream and the memory resources) on every backend: what
// a computation on the CPU does with them. Their effect on GPUs is tested by
// tests/cuda/test_streams_and_resources.cu, which owns real streams and device memory.
#pragma once

#include "support/backend.hpp"
#include "support/errors.hpp"

#include <cstdlib>
#include <initializer_list>
#include <string_view>
#include <type_traits>
#include <vector>

namespace chunked::test {
namespace {

using InteropOptions = BackendTest;

/// A stand-in for a cudaStream_t: computations on the CPU must refuse it before using it.
void* fake_stream() {
  static int token = 0;
  return &token;
}

/// Host memory, counted: a computation on the CPU must never ask it for anything.
struct CountingHostResource final : MemoryResource {
  int calls = 0;
  void* allocate(std::size_t bytes, void*) override {
    ++calls;
    return std::malloc(bytes);
  }
  void deallocate(void* p, std::size_t, void*) override {
    ++calls;
    std::free(p);
  }
};

TEST_F(InteropOptions, DefaultsAreNone) {
  const ComputeOptions o;
  EXPECT_EQ(o.stream, nullptr);
  EXPECT_EQ(o.device_memory_resource, nullptr);
  EXPECT_EQ(o.pinned_memory_resource, nullptr);
}

TEST_F(InteropOptions, AStreamOnACpuComputationIsAValueErrorAtTheCall) {
  if (runs_on_gpu())
    GTEST_SKIP() << "this backend runs on a GPU here (tests/cuda covers streams there)";
  const auto x = arange<double, Backend>(0.0, 12.0, 1.0, 5);
  ComputeOptions o;
  o.stream = fake_stream();
  const char* why = std::is_same_v<Backend, Cpu> ? "Cpu backend" : "no usable CUDA device";
  const std::initializer_list<std::string_view> words{"ComputeOptions::stream", "CPU", why};
  expect_error<ValueError>([&] { (void)x.compute(o); }, words);
  expect_error<ValueError>([&] { (void)x.sum().item(o); }, words);
  expect_error<ValueError>([&] { (void)x.persist(o); }, words);
  std::vector<double> out(12);
  expect_error<ValueError>([&] { x.to_host(out, o); }, words);
  expect_error<ValueError>([&] { (void)compute(o, x, x * 2.0); }, words);
  // An empty array computes nothing, but its options are checked as any other's.
  const auto empty = zeros<double, Backend>(Shape{0, 3}, Chunks{2, 2});
  expect_error<ValueError>([&] { (void)empty.compute(o); }, words);
  // The refusal leaves nothing behind: the same computation without a stream works.
  o.stream = nullptr;
  EXPECT_EQ(x.sum().item(o), 66.0);
}

TEST_F(InteropOptions, MemoryResourcesAreUnusedOnTheCpu) {
  if (runs_on_gpu())
    GTEST_SKIP() << "this backend runs on a GPU here (tests/cuda covers resources there)";
  CountingHostResource device, pinned;
  ComputeOptions o;
  o.device_memory_resource = &device;
  o.pinned_memory_resource = &pinned;
  const auto x = arange<double, Backend>(0.0, 30.0, 1.0, 7).reshape({5, 6});
  const auto p = (x * 2.0).persist(o);
  const NDArray<double> got = (p + x.sum(Axes{0})).compute(o);
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 6; ++j)
      EXPECT_EQ(got.data()[i * 6 + j],
                2.0 * static_cast<double>(i * 6 + j) + static_cast<double>(5 * j + 60));
  EXPECT_EQ(x.sum().item(o), 435.0);
  EXPECT_EQ(device.calls, 0);
  EXPECT_EQ(pinned.calls, 0);
}

} // namespace
} // namespace chunked::test
