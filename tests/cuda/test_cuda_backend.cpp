// SPDX-License-Identifier: Apache-2.0
// Cross-backend tests of the CUDA backend: the same programs through the public API on Cpu and
// Cuda (the code generation checks that need only NVRTC are in test_cuda_codegen.cpp).
#include "backend/cpu/partials.hpp"
#include "backend/cuda/compiler.hpp"
#include "backend/cuda/cublas_library.hpp"
#include "backend/cuda/partials.hpp"
#include "backend/cuda/runtime_api.hpp"
#include <chunked/chunked.hpp>

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/cuda_test.hpp"
#include "support/ulp.hpp"

namespace chunked {
namespace {

using test::ulp_distance;

template <class T> void expect_identical(const NDArray<T>& cpu, const NDArray<T>& gpu) {
  ASSERT_EQ(cpu.shape(), gpu.shape());
  index_t bad = 0;
  for (index_t j = 0; j < cpu.size(); ++j) {
    const T a = cpu.data()[j], b = gpu.data()[j];
    const bool same = std::is_floating_point_v<T>
                          ? (std::isnan(double(a)) && std::isnan(double(b))) || a == b
                          : a == b;
    if (!same && bad++ < 5)
      ADD_FAILURE() << "element " << j << ": cpu " << a << ", cuda " << b;
  }
  EXPECT_EQ(bad, 0);
}

template <class T>
void expect_close(const NDArray<T>& cpu, const NDArray<T>& gpu, double rel, double abs_tol = 0) {
  ASSERT_EQ(cpu.shape(), gpu.shape());
  index_t bad = 0;
  for (index_t j = 0; j < cpu.size(); ++j) {
    const double a = static_cast<double>(cpu.data()[j]), b = static_cast<double>(gpu.data()[j]);
    if (std::isnan(a) && std::isnan(b))
      continue;
    if (a == b)
      continue;
    if (!(std::fabs(a - b) <= rel * std::fabs(a) + abs_tol) && bad++ < 5)
      ADD_FAILURE() << "element " << j << ": cpu " << a << ", cuda " << b;
  }
  EXPECT_EQ(bad, 0);
}

// ---- Cross-backend through the public API ---------------------------------------------------

TEST(CudaBackend, RandomArraysMatchCpu) {
  SKIP_WITHOUT_DEVICE();
  auto run = [](auto backend) {
    using B = decltype(backend);
    Generator rng(42);
    auto n = rng.normal<double, B>(Shape{301, 257}, Chunks{64, 100}, 10.0, 2.0);
    auto u = rng.uniform<double, B>(Shape{301, 257}, Chunks{100, 64}, -1.0, 3.0);
    auto i = rng.integers<std::int64_t, B>(Shape{1001}, Chunks{333}, -7, 1000000007);
    auto f = rng.normal<float, B>(Shape{999}, Chunks{100});
    return std::make_tuple(n.compute(), u.compute(), i.compute(), f.compute());
  };
  const auto [cn, cu, ci, cf] = run(Cpu{});
  const auto [gn, gu, gi, gf] = run(Cuda{});
  expect_identical(cu, gu);
  expect_identical(ci, gi);
  std::uint64_t worst = 0;
  for (index_t j = 0; j < cn.size(); ++j)
    worst = std::max(worst, ulp_distance(cn.data()[j], gn.data()[j]));
  EXPECT_LE(worst, 4u);
  expect_close(cf, gf, 1e-6);
}

TEST(CudaBackend, ElementwiseChainsMatchCpu) {
  SKIP_WITHOUT_DEVICE();
  auto run = [](auto backend) {
    using B = decltype(backend);
    Generator rng(7);
    auto x = rng.uniform<double, B>(Shape{97, 131}, Chunks{40, 50}, -3.0, 3.0);
    auto y = rng.uniform<double, B>(Shape{97, 131}, Chunks{40, 50}, 0.5, 2.0);
    auto k = rng.integers<std::int64_t, B>(Shape{97, 131}, Chunks{40, 50}, -50, 50);
    auto m = rng.integers<std::int32_t, B>(Shape{97, 131}, Chunks{40, 50}, -9, 9);
    auto exact = where(x > 0.0, x * 2.0 - y / 3.0, -x) + minimum(x, y) - maximum(x, -y) + abs(x) +
                 (x % y) + clip(x, -1.0, 1.0);
    auto ints = (k * k - k / 1) + (k % 7) + pow(m, 3).template astype<std::int64_t>() + (k & 12) +
                (k | 3) + (k ^ 5) + ~k + (-k) + abs(k);
    auto logic = ((x > y) & (k < 3)) | (~(m == 2) ^ isnan(x) ^ isfinite(y));
    auto math = sqrt(y) + exp(x) + log(y) + log1p(y) + expm1(x) + sin(x) + cos(x) + tan(x) +
                tanh(x) + pow(y, x);
    auto f32 = (x.template astype<float>() * 1.5f + 2.0f).template astype<std::int32_t>();
    return std::make_tuple(exact.compute(), ints.compute(), logic.compute(), math.compute(),
                           f32.compute());
  };
  const auto [ce, ci, cl, cm, cf] = run(Cpu{});
  const auto [ge, gi, gl, gm, gf] = run(Cuda{});
  expect_identical(ce, ge);
  expect_identical(ci, gi);
  expect_identical(cl, gl);
  // CUDA's and glibc's transcendental functions differ by an ulp or two; a sum of ten of them
  // that nearly cancels keeps those ulps as an absolute error (seen: 8e-16 on a 0.008 result).
  expect_close(cm, gm, 1e-13, 1e-12);
  expect_identical(cf, gf);
}

// Division by values broadcast along an axis: the GPU's quotients are the CPU's correctly
// rounded ones, bit for bit, across magnitudes from subnormal to near overflow and for zeros,
// infinities and NaN.
TEST(CudaBackend, DivisionByBroadcastValuesIsBitwiseTheCpus) {
  SKIP_WITHOUT_DEVICE();
  const index_t rows = 64, cols = 257;
  std::mt19937_64 rng(11);
  auto any_double = [&] {
    const int exponent = static_cast<int>(rng() % 2046) + 1; // every normal binade
    const std::uint64_t bits =
        (rng() & 0x800FFFFFFFFFFFFFull) | (static_cast<std::uint64_t>(exponent) << 52);
    return std::bit_cast<double>(bits);
  };
  std::uniform_real_distribution<double> plain(-1e3, 1e3);
  std::vector<double> x(static_cast<std::size_t>(rows * cols)), y(x.size()),
      d(static_cast<std::size_t>(cols));
  for (auto& v : x)
    v = rng() % 3 == 0 ? any_double() : plain(rng);
  for (auto& v : y)
    v = plain(rng);
  for (auto& v : d)
    v = rng() % 2 == 0 ? any_double() : plain(rng);
  const double specials[] = {0.0,
                             -0.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             4.9e-324,
                             2.2e-308,
                             1.7e308,
                             1e-300,
                             1e300,
                             3.0,
                             -7.5};
  for (std::size_t j = 0; j < std::size(specials); ++j) {
    d[j] = specials[j];
    x[j * 3] = specials[std::size(specials) - 1 - j];
  }
  auto run = [&](auto backend) {
    using B = decltype(backend);
    const auto a = from_host<B>(x, Shape{rows, cols}, Chunks{20, 100});
    const auto b = from_host<B>(d, Shape{cols}, Chunks{100});
    const auto c = from_host<B>(y, Shape{rows, cols}, Chunks{20, 100});
    return std::make_tuple((a / b).compute(), ((c - c.mean(Axes{0})) / c.std(Axes{0})).compute());
  };
  const auto [cq, cs] = run(Cpu{});
  const auto [gq, gs] = run(Cuda{});
  index_t differ = 0;
  for (index_t j = 0; j < cq.size(); ++j) {
    const double a = cq.data()[j], b = gq.data()[j];
    if (!(std::isnan(a) && std::isnan(b)) &&
        std::bit_cast<std::uint64_t>(a) != std::bit_cast<std::uint64_t>(b) && differ++ < 5)
      ADD_FAILURE() << "quotient " << j << ": cpu " << a << ", cuda " << b;
  }
  EXPECT_EQ(differ, 0);
  expect_close(cs, gs, 1e-12, 1e-12); // the moments differ in rounding; the division does not
}

TEST(CudaBackend, NegativeStepSlicesMatchCpu) {
  SKIP_WITHOUT_DEVICE();
  auto run = [](auto backend) {
    using B = decltype(backend);
    Generator rng(3);
    auto x = rng.normal<double, B>(Shape{50, 61, 7}, Chunks{16, 20, 3});
    auto v = x(slice(none, none, -3), slice(50, 2, -2), slice(none, none, -1)) + 1.0;
    auto w = x(5, slice(none, none, -1), slice(1, 6, 2));
    return std::make_tuple(v.compute(), w.compute());
  };
  const auto [cv, cw] = run(Cpu{});
  const auto [gv, gw] = run(Cuda{});
  expect_identical(cv, gv);
  expect_identical(cw, gw);
}

TEST(CudaBackend, ReductionsMatchCpu) {
  SKIP_WITHOUT_DEVICE();
  auto run = [](auto backend) {
    using B = decltype(backend);
    Generator rng(11);
    auto x = rng.normal<double, B>(Shape{70, 33, 9}, Chunks{25, 10, 4});
    auto k = rng.integers<std::int64_t, B>(Shape{70, 33}, Chunks{25, 10}, -100, 100);
    std::vector<NDArray<double>> f;
    std::vector<NDArray<std::int64_t>> i;
    std::vector<NDArray<bool>> b;
    for (const Axes& axes : {Axes{}, Axes{0}, Axes{1}, Axes{2}, Axes{0, 2}}) {
      f.push_back(x.sum(axes).compute());
      f.push_back(x.mean(axes).compute());
      f.push_back(x.var(axes).compute());
      f.push_back(x.std(axes, 1).compute());
      f.push_back(x.min(axes).compute());
      f.push_back(x.max(axes).compute());
      f.push_back((x * 0.01 + 1.0).prod(axes).compute());
      b.push_back((x > 2.0).any(axes).compute());
      b.push_back((x > -4.0).all(axes).compute());
    }
    for (const Axes& axes : {Axes{}, Axes{0}, Axes{1}}) {
      i.push_back(k.sum(axes).compute());
      i.push_back(k.prod(axes).compute());
      i.push_back(k.min(axes).compute());
      i.push_back(k.max(axes).compute());
    }
    i.push_back(x.argmin().compute());
    i.push_back(x.argmax().compute());
    for (int axis : {0, 1, 2}) {
      i.push_back(x.argmin(axis).compute());
      i.push_back(x.argmax(axis).compute());
    }
    i.push_back(k.argmin().compute());
    i.push_back(k.argmax(1).compute());
    return std::make_tuple(f, i, b);
  };
  const auto [cf, ci, cb] = run(Cpu{});
  const auto [gf, gi, gb] = run(Cuda{});
  for (std::size_t j = 0; j < cf.size(); ++j) {
    SCOPED_TRACE(j);
    expect_close(cf[j], gf[j], 1e-12, 1e-12);
  }
  for (std::size_t j = 0; j < ci.size(); ++j) {
    SCOPED_TRACE(j);
    expect_identical(ci[j], gi[j]);
  }
  for (std::size_t j = 0; j < cb.size(); ++j) {
    SCOPED_TRACE(j);
    expect_identical(cb[j], gb[j]);
  }
}

TEST(CudaBackend, SeedWorkloadMatchesCpu) {
  SKIP_WITHOUT_DEVICE();
  auto run = [](auto backend) {
    using B = decltype(backend);
    Generator rng(42);
    auto x = rng.normal<double, B>(Shape{4000, 4000}, Chunks{1000, 1000}, 10.0, 1.0);
    return (x + 1.0)(slice(none, none, 2), slice(none, none, 2)).sum().item();
  };
  const double cpu = run(Cpu{});
  const double gpu = run(Cuda{});
  EXPECT_NEAR(cpu, gpu, 1e-9 * std::fabs(cpu));
  EXPECT_NEAR(gpu, 11.0 * 2000 * 2000, 0.01 * 11.0 * 2000 * 2000);
  EXPECT_EQ(gpu, run(Cuda{})); // deterministic
}

TEST(CudaBackend, FromHostAndPersistRoundTrip) {
  SKIP_WITHOUT_DEVICE();
  std::vector<double> data(std::size_t{37} * 23);
  for (std::size_t j = 0; j < data.size(); ++j)
    data[j] = std::sin(static_cast<double>(j)) * 100.0;
  auto x = from_host<Cuda>(std::span<const double>(data), Shape{37, 23}, Chunks{10, 7});
  const NDArray<double> back = x.compute();
  for (std::size_t j = 0; j < data.size(); ++j)
    ASSERT_EQ(back.data()[j], data[j]) << j;
  auto y = (x * 2.0 + 1.0).persist();
  const NDArray<double> twice = (y - 1.0).compute();
  for (std::size_t j = 0; j < data.size(); ++j)
    ASSERT_EQ(twice.data()[j], (data[j] * 2.0 + 1.0) - 1.0) << j;
  const auto cpu = from_host<Cpu>(std::span<const double>(data), Shape{37, 23}, Chunks{10, 7});
  EXPECT_NEAR(y.sum().item(), (cpu * 2.0 + 1.0).sum().item(), 1e-9);
  std::vector<double> out(data.size());
  y(slice(none, none, -1)).to_host(std::span<double>(out));
  EXPECT_EQ(out[0], data[std::size_t{36} * 23] * 2.0 + 1.0);
}

TEST(CudaBackend, OneGpuAndAllGpusAgree) {
  SKIP_WITHOUT_DEVICE();
  Generator rng(5);
  auto x = rng.normal<double, Cuda>(Shape{3000, 2000}, Chunks{500, 300});
  auto e = (x * x)(slice(none, none, 3));
  ComputeOptions one;
  one.devices = {0};
  ComputeOptions all;
  EXPECT_EQ(e.sum().item(one), e.sum().item(all));
  expect_identical(e.mean(Axes{0}).compute(one), e.mean(Axes{0}).compute(all));
  expect_identical(e.compute(one), e.compute(all));
  EXPECT_EQ(x.argmax().item(one), x.argmax().item(all));
}

TEST(CudaBackend, OutOfMemoryThenNextComputeWorks) {
  SKIP_WITHOUT_DEVICE();
  Generator rng(9);
  auto x = rng.normal<double, Cuda>(Shape{2000, 2000}, Chunks{1000, 1000});
  ComputeOptions tiny;
  tiny.device_memory_limit = 4096;
  EXPECT_THROW(x.compute(tiny), OutOfMemory);
  const NDArray<double> ok = x.compute();
  EXPECT_EQ(ok.size(), 2000 * 2000);
  EXPECT_NEAR(x.mean().item(), 0.0, 0.01);
}

// a / a.sum() reads every host block twice. With a budget of three eighths of the input, the
// device copies kept for the second read must stop at half the budget; the others go after their
// first read and are copied again. Same bits as without a limit.
TEST(CudaBackend, HostInputLargerThanDeviceBudgetStreams) {
  SKIP_WITHOUT_DEVICE();
  const index_t n = index_t{1} << 24; // 128 MiB of float64, 16 blocks of 8 MiB
  std::vector<double> host(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < host.size(); ++i)
    host[i] = 1.0 + static_cast<double>(i % 1000) * 1e-3;
  auto a = from_host<Cuda>(host, Shape{n}, Chunks{n / 16});
  ComputeOptions limited;
  limited.device_memory_limit = std::size_t{48} << 20;
  std::vector<double> out(host.size()), unlimited(host.size()), cpu(host.size());
  (a / a.sum()).to_host(std::span<double>(out), limited);
  (a / a.sum()).to_host(std::span<double>(unlimited));
  EXPECT_EQ(out, unlimited);
  auto b = from_host<Cpu>(host, Shape{n}, Chunks{n / 16});
  (b / b.sum()).to_host(std::span<double>(cpu));
  for (std::size_t i = 0; i < host.size(); i += 4099)
    EXPECT_NEAR(out[i], cpu[i], 1e-12 * cpu[i]) << "element " << i;
}

TEST(CudaBackend, FailureInsideComputeLeavesRuntimeUsable) {
  SKIP_WITHOUT_DEVICE();
  Generator rng(10);
  auto x = rng.uniform<double, Cuda>(Shape{4000, 1000}, Chunks{100, 1000});
  ComputeOptions failing;
  failing.on_progress = [](const Progress&) { throw std::runtime_error("stop"); };
  EXPECT_THROW(x.sum().item(failing), std::runtime_error);
  ComputeOptions bad_device;
  bad_device.devices = {1000};
  EXPECT_THROW(x.sum().item(bad_device), BackendError);
  EXPECT_NEAR(x.sum().item(), x.to<Cpu>().sum().item(), 1e-6);
}

TEST(CudaBackend, KernelLaunchErrorSurfacesAsBackendError) {
  SKIP_WITHOUT_DEVICE();
  Generator rng(11);
  auto x = rng.normal<double, Cuda>(Shape{3000, 1000}, Chunks{250, 1000});
  auto y = (x * 2.0 + 1.0).sum(Axes{0});
  const NDArray<double> expected = y.compute();
  // The first launch fails, and so does one in the middle, while other streams hold queued work.
  for (long after : {0L, 5L}) {
    cuda::fail_launch_after(after);
    try {
      (void)y.compute();
      cuda::fail_launch_after(-1);
      ADD_FAILURE() << "the failed launch " << after << " did not raise";
    } catch (const BackendError& e) {
      cuda::fail_launch_after(-1);
      EXPECT_NE(std::string(e.what()).find("cuLaunchKernel"), std::string::npos) << e.what();
    }
    expect_identical(expected, y.compute()); // the runtime is usable afterwards
  }
}

TEST(CudaBackend, StreamCountDoesNotChangeResults) {
  SKIP_WITHOUT_DEVICE();
  Generator rng(12);
  auto x = rng.normal<double, Cuda>(Shape{1500, 1100}, Chunks{200, 300});
  auto stored = (x * 3.0).persist();
  auto a = ((stored - 1.0) / (x + 20.0))(slice(1, none, 2), slice(none, none, -3));
  auto reference = [&](int streams, auto f) {
    ComputeOptions o;
    o.streams_per_device = streams;
    return f(o);
  };
  for (int streams : {1, 2, 3, 16}) {
    SCOPED_TRACE(streams);
    auto sum = [&](const ComputeOptions& o) { return a.sum().item(o); };
    auto means = [&](const ComputeOptions& o) { return a.mean(Axes{0}).compute(o); };
    auto values = [&](const ComputeOptions& o) { return a.compute(o); };
    EXPECT_EQ(reference(4, sum), reference(streams, sum));
    expect_identical(reference(4, means), reference(streams, means));
    expect_identical(reference(4, values), reference(streams, values));
  }
}

TEST(CudaBackend, LargeCopiesThroughStagingAndPinnedMemory) {
  SKIP_WITHOUT_DEVICE();
  // 12.5 M doubles (100 MB): several staging pieces each way, with ragged chunks.
  const index_t rows = 2500, cols = 5000;
  std::vector<double> data(static_cast<std::size_t>(rows * cols));
  for (std::size_t j = 0; j < data.size(); ++j)
    data[j] = static_cast<double>(j % 1000003) * 0.5 - 3.0;
  const Chunks chunks{1100, 3100};
  // Pinned: from_host for the Cuda backend.
  auto pinned = from_host<Cuda>(std::span<const double>(data), Shape{rows, cols}, chunks);
  // Pageable: host blocks of the Cpu backend, moved to Cuda.
  auto pageable =
      from_host<Cpu>(std::span<const double>(data), Shape{rows, cols}, chunks).to<Cuda>();
  for (auto* a : {&pinned, &pageable}) {
    std::vector<double> out(data.size());
    (*a + 1.0).to_host(std::span<double>(out));
    index_t bad = 0;
    for (std::size_t j = 0; j < data.size(); ++j)
      if (out[j] != data[j] + 1.0 && bad++ < 5)
        ADD_FAILURE() << "element " << j << ": " << out[j] << ", expected " << data[j] + 1.0;
    EXPECT_EQ(bad, 0);
  }
  // B2's shape: a / a.sum() back to host memory, equal to the Cpu backend within rounding.
  const auto cpu = from_host<Cpu>(std::span<const double>(data), Shape{rows, cols}, chunks);
  expect_close((cpu / cpu.sum()).compute(), (pinned / pinned.sum()).compute(), 1e-12);
}

TEST(CudaBackend, ResultsCopiedStraightIntoPinnedMemory) {
  SKIP_WITHOUT_DEVICE();
  Generator rng(13);
  const auto x = rng.integers<std::int64_t, Cuda>(Shape{7, 300, 500}, Chunks{3, 128, 200}, -50, 50);
  for (const auto& view : {x, x(slice(none, none, -2), slice(3, 250), slice(none, none, 3))}) {
    const NDArray<std::int64_t> expected = view.to<Cpu>().compute();
    const auto pinned = cuda::make_transfer_buffer(static_cast<std::size_t>(expected.size()) * 8);
    const std::span<std::int64_t> out(static_cast<std::int64_t*>(pinned->data()),
                                      static_cast<std::size_t>(expected.size()));
    (view * 2).to_host(out);
    index_t bad = 0;
    for (index_t j = 0; j < expected.size(); ++j)
      if (out[static_cast<std::size_t>(j)] != expected.data()[j] * 2 && bad++ < 5)
        ADD_FAILURE() << "element " << j << ": " << out[static_cast<std::size_t>(j)];
    EXPECT_EQ(bad, 0);
  }
}

// Transfer buffers written at allocation: page-locked (both kinds: cudaMallocHost below 4 MiB,
// registered host memory from there on) and holding what the fill wrote; a fill that throws
// passes its exception on.
TEST(CudaBackend, TransferBuffersAreFilledThenPageLocked) {
  SKIP_WITHOUT_DEVICE();
  for (const std::size_t bytes : {std::size_t{1} << 20, (std::size_t{9} << 20) + 24}) {
    SCOPED_TRACE(testing::Message() << bytes << " bytes");
    const std::size_t n = bytes / 8;
    const auto buffer = cuda::make_transfer_buffer(bytes, [n](void* p) {
      auto* v = static_cast<std::uint64_t*>(p);
      for (std::size_t j = 0; j < n; ++j)
        v[j] = j * 0x9E3779B97F4A7C15ull;
    });
    ASSERT_EQ(buffer->bytes(), bytes);
    cudaPointerAttributes attributes{};
    ASSERT_EQ(cudaPointerGetAttributes(&attributes, buffer->data()), cudaSuccess);
    EXPECT_EQ(attributes.type, cudaMemoryTypeHost) << "the buffer is not page-locked";
    // Through the device and back: what the copies see is what the fill wrote.
    void* device = nullptr;
    ASSERT_EQ(cudaMalloc(&device, bytes), cudaSuccess);
    std::vector<std::uint64_t> back(n);
    EXPECT_EQ(cudaMemcpy(device, buffer->data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(back.data(), device, n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaFree(device), cudaSuccess);
    index_t bad = 0;
    for (std::size_t j = 0; j < n; ++j)
      if (back[j] != j * 0x9E3779B97F4A7C15ull && bad++ < 5)
        ADD_FAILURE() << "word " << j << ": " << back[j];
    EXPECT_EQ(bad, 0);
    EXPECT_THROW(cuda::make_transfer_buffer(bytes, [](void*) { throw std::runtime_error("x"); }),
                 std::runtime_error);
  }
}

TEST(CudaBackend, CombineFoldsManyInputsLeftToRightAsTheCpu) {
  SKIP_WITHOUT_DEVICE();
  // Sums whose value depends on the order of the additions, and (count, mean, M2) states, over
  // more inputs than one launch folds, so the launches chain; the CPU folds them pairwise in the
  // same order.
  using plan::ReduceOp;
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (const ReduceOp op : {ReduceOp::sum, ReduceOp::var, ReduceOp::max}) {
    const int words = plan::partial_layout(op, DType::float64).words;
    for (const int count : {1, 2, 8, 9, 17}) {
      SCOPED_TRACE(testing::Message()
                   << "op " << static_cast<int>(op) << ", " << count << " inputs");
      constexpr index_t n = 1000;
      std::vector<std::vector<plan::PartialWord>> host(static_cast<std::size_t>(count));
      for (int k = 0; k < count; ++k) {
        host[k].resize(static_cast<std::size_t>(n * words));
        for (index_t p = 0; p < n; ++p) {
          const double scale = std::ldexp(1.0, (k * 7 + static_cast<int>(p)) % 60 - 30);
          plan::PartialWord* w = &host[k][static_cast<std::size_t>(p * words)];
          if (words == 3) {
            w[0].f = 1 + k;
            w[1].f = scale * value(gen);
            w[2].f = scale * scale * (1 + value(gen));
          } else {
            w[0].f = scale * value(gen);
          }
        }
      }
      std::vector<plan::PartialWord> expected = host[0];
      for (int k = 1; k < count; ++k)
        cpu::combine_partials(op, DType::float64, expected.data(), host[k].data(), expected.data(),
                              n);
      const std::size_t bytes = static_cast<std::size_t>(n * words) * 8u;
      std::vector<void*> device(static_cast<std::size_t>(count) + 1, nullptr);
      for (void*& d : device)
        ASSERT_EQ(cudaMalloc(&d, bytes), cudaSuccess);
      for (int k = 0; k < count; ++k)
        ASSERT_EQ(cudaMemcpy(device[k], host[k].data(), bytes, cudaMemcpyHostToDevice),
                  cudaSuccess);
      cuda::Stream stream(0);
      const std::vector<const void*> in(device.begin(), device.begin() + count);
      cuda::combine_partials(op, DType::float64, in, device[count], n, stream);
      stream.synchronize();
      std::vector<plan::PartialWord> got(expected.size());
      ASSERT_EQ(cudaMemcpy(got.data(), device[count], bytes, cudaMemcpyDeviceToHost), cudaSuccess);
      for (void* d : device)
        cudaFree(d);
      EXPECT_EQ(std::memcmp(got.data(), expected.data(), bytes), 0);
    }
  }
}

// Needs no device: cuBLAS is not linked but opened at its first use, with every entry point the
// library calls bound to the cuBLAS of the version it was built with.
TEST(CudaBackend, CublasOpensAtFirstUseWithEveryEntryPoint) {
  const cuda::CublasLibrary& api = cuda::cublas();
  const void* const entries[] = {reinterpret_cast<const void*>(api.create),
                                 reinterpret_cast<const void*>(api.set_stream),
                                 reinterpret_cast<const void*>(api.set_workspace),
                                 reinterpret_cast<const void*>(api.status_string),
                                 reinterpret_cast<const void*>(api.dgemm),
                                 reinterpret_cast<const void*>(api.sgemm),
                                 reinterpret_cast<const void*>(api.dgemm_batched),
                                 reinterpret_cast<const void*>(api.sgemm_batched)};
  for (const void* entry : entries) {
    ASSERT_NE(entry, nullptr);
    Dl_info info{};
    ASSERT_NE(dladdr(entry, &info), 0);
    EXPECT_NE(std::string(info.dli_fname).find("libcublas.so." + std::to_string(CUBLAS_VER_MAJOR)),
              std::string::npos)
        << info.dli_fname;
  }
  EXPECT_STREQ(api.status_string(CUBLAS_STATUS_SUCCESS), "success");
  EXPECT_EQ(&cuda::cublas(), &api);
}

} // namespace
} // namespace chunked
