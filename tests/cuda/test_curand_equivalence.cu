// SPDX-License-Identifier: Apache-2.0
// Proves the host random layer equal to cuRAND's Philox4x32-10 device API on the same counters.

#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "chunked/random/distributions.hpp"
#include "chunked/random/philox.hpp"
#include "support/ulp.hpp"

namespace {

namespace rnd = chunked::random;

// Element e of case c: spread the flat indices over seeds, streams and far-apart offsets so that
// every counter word (and the key's high half) varies.
constexpr int kCases = 8;
constexpr std::uint64_t kPerCase = std::uint64_t{1} << 18; // 2^21 elements in all

struct Case {
  std::uint64_t seed;
  std::uint64_t stream;
  std::uint64_t first; // first flat index
};

constexpr Case kCaseTable[kCases] = {
    {0, 0, 0},
    {42, 0, 0},
    {42, 1, 1},
    {42, 7, (std::uint64_t{1} << 32) - 1000},
    {0xDEADBEEFCAFEF00Dull, 3, 123456789},
    {0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull, (std::uint64_t{1} << 40) + 3},
    {(std::uint64_t{1} << 32) + 1, (std::uint64_t{1} << 33) + 5, (std::uint64_t{1} << 61) - 77},
    {2019, 2, 250000000000ull}, // inside a 500000 x 500000 array
};

struct Sample {
  std::uint32_t words[4]; // Philox block of the element
  double normal;          // standard normal of the element
  double uniform;         // uniform (0, 1] of the element
  std::int64_t integer;   // integer in the element's case range
  double log_u;           // the device log of the block's u (diagnostics)
  double sin_v;           // the device sincospi of the block's v (diagnostics)
  double cos_v;
};

__host__ __device__ std::int64_t low_of(int c) { return c % 2 == 0 ? -5 : INT64_MIN / 2; }
__host__ __device__ std::int64_t high_of(int c) { return c % 2 == 0 ? 5 : INT64_MAX / 2; }

__device__ __host__ void element_of(std::uint64_t i, Case* out, int* case_index, std::uint64_t* e,
                                    const Case* table) {
  *case_index = static_cast<int>(i / kPerCase);
  *out = table[*case_index];
  // Cases 4 to 7 take every other element, as a [::2] slice does: whole warps then share one
  // parity, which is the path where the device computes only sinpi or only cospi.
  *e = out->first + (*case_index >= 4 ? 2 : 1) * (i % kPerCase);
}

// cuRAND's own device API: curand_init(seed, subsequence = stream, offset = 4 * block) puts the
// state on counter {block, stream} with key {lo32(seed), hi32(seed)}.
__global__ void curand_reference(const Case* table, Sample* out, std::uint64_t n) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) {
    return;
  }
  Case c;
  int ci = 0;
  std::uint64_t e = 0;
  element_of(i, &c, &ci, &e, table);
  const std::uint64_t block = e >> 1;
  const bool odd = (e & 1) != 0;
  Sample s{};

  const uint4 ctr =
      make_uint4(static_cast<unsigned>(block), static_cast<unsigned>(block >> 32),
                 static_cast<unsigned>(c.stream), static_cast<unsigned>(c.stream >> 32));
  const uint2 key = make_uint2(static_cast<unsigned>(c.seed), static_cast<unsigned>(c.seed >> 32));
  const uint4 w = curand_Philox4x32_10(ctr, key);
  s.words[0] = w.x;
  s.words[1] = w.y;
  s.words[2] = w.z;
  s.words[3] = w.w;

  curandStatePhilox4_32_10_t state;
  curand_init(c.seed, c.stream, 4 * block, &state);
  const double2 z = curand_normal2_double(&state);
  s.normal = odd ? z.y : z.x;
  curand_init(c.seed, c.stream, 4 * block, &state);
  const double2 u = curand_uniform2_double(&state);
  s.uniform = odd ? u.y : u.x;

  // Device sincospi and log on the Box-Muller arguments, to tell which one a mismatch comes from.
  const unsigned long long zx = w.x ^ (static_cast<unsigned long long>(w.y) << 21);
  const unsigned long long zy = w.z ^ (static_cast<unsigned long long>(w.w) << 21);
  s.log_u = log(zx * 0x1p-53 + 0x1p-54);
  sincospi(zy * 0x1p-52 + 0x1p-53, &s.sin_v, &s.cos_v);
  out[i] = s;
}

// chunked's CHUNKED_HD functions compiled by nvcc for the device.
__global__ void chunked_device(const Case* table, Sample* out, std::uint64_t n) {
  const std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) {
    return;
  }
  Case c;
  int ci = 0;
  std::uint64_t e = 0;
  element_of(i, &c, &ci, &e, table);
  Sample s{};
  const rnd::Words4x32 w = rnd::philox_words(c.seed, c.stream, rnd::block_of(e));
  s.words[0] = w.w0;
  s.words[1] = w.w1;
  s.words[2] = w.w2;
  s.words[3] = w.w3;
  s.normal = rnd::normal_at(c.seed, c.stream, e, 0.0, 1.0);
  s.uniform = rnd::uniform_at(c.seed, c.stream, e, 0.0, 1.0);
  s.integer = rnd::integers_at(c.seed, c.stream, e, low_of(ci), high_of(ci));
  out[i] = s;
}

using chunked::test::ulp_distance;

#define CHUNKED_CUDA_CHECK(call)                                                                   \
  do {                                                                                             \
    const cudaError_t status_ = (call);                                                            \
    ASSERT_EQ(status_, cudaSuccess) << #call << ": " << cudaGetErrorString(status_);               \
  } while (0)

class CurandEquivalence : public ::testing::Test {
protected:
  void SetUp() override {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
      GTEST_SKIP() << "no CUDA device is visible (cudaGetDeviceCount: "
                   << cudaGetErrorString(status) << ", " << count << " devices)";
    }
  }

  // Runs `kernel` over all kCases * kPerCase elements and copies the samples back.
  template <class Kernel> void run(Kernel kernel, std::vector<Sample>& host) {
    const std::uint64_t n = kCases * kPerCase;
    host.assign(n, Sample{});
    Case* table = nullptr;
    Sample* samples = nullptr;
    CHUNKED_CUDA_CHECK(cudaMalloc(&table, sizeof(kCaseTable)));
    CHUNKED_CUDA_CHECK(cudaMalloc(&samples, n * sizeof(Sample)));
    CHUNKED_CUDA_CHECK(cudaMemcpy(table, kCaseTable, sizeof(kCaseTable), cudaMemcpyHostToDevice));
    const unsigned threads = 256;
    const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
    kernel<<<blocks, threads>>>(table, samples, n);
    CHUNKED_CUDA_CHECK(cudaGetLastError());
    CHUNKED_CUDA_CHECK(cudaDeviceSynchronize());
    CHUNKED_CUDA_CHECK(
        cudaMemcpy(host.data(), samples, n * sizeof(Sample), cudaMemcpyDeviceToHost));
    CHUNKED_CUDA_CHECK(cudaFree(samples));
    CHUNKED_CUDA_CHECK(cudaFree(table));
  }
};

TEST_F(CurandEquivalence, HostEqualsCurand) {
  std::vector<Sample> ref;
  ASSERT_NO_FATAL_FAILURE(run(curand_reference, ref));
  std::uint64_t word_mismatches = 0, uniform_mismatches = 0, normal_identical = 0;
  std::uint64_t log_identical = 0, sincospi_identical = 0, normal_over_4ulp = 0;
  std::uint64_t max_ulp = 0;
  for (std::uint64_t i = 0; i < ref.size(); ++i) {
    Case c;
    int ci = 0;
    std::uint64_t e = 0;
    element_of(i, &c, &ci, &e, kCaseTable);
    const rnd::Words4x32 w = rnd::philox_words(c.seed, c.stream, rnd::block_of(e));
    const Sample& r = ref[i];
    word_mismatches +=
        (w.w0 != r.words[0] || w.w1 != r.words[1] || w.w2 != r.words[2] || w.w3 != r.words[3]);
    const double u = rnd::uniform_at(c.seed, c.stream, e, 0.0, 1.0);
    uniform_mismatches +=
        std::bit_cast<std::uint64_t>(u) != std::bit_cast<std::uint64_t>(r.uniform);
    const double z = rnd::normal_at(c.seed, c.stream, e, 0.0, 1.0);
    const std::uint64_t d = ulp_distance(z, r.normal);
    normal_identical += d == 0;
    normal_over_4ulp += d > 4;
    max_ulp = d > max_ulp ? d : max_ulp;

    const double bm_u = rnd::unit_uniform(w.w0, w.w1);
    const double bm_v =
        static_cast<double>(w.w2 ^ (static_cast<std::uint64_t>(w.w3) << 21)) * 0x1p-52 + 0x1p-53;
    double s = 0, co = 0;
    rnd::sincospi(bm_v, &s, &co);
    log_identical += ulp_distance(rnd::cuda_log(bm_u), r.log_u) == 0;
    sincospi_identical += ulp_distance(s, r.sin_v) == 0 && ulp_distance(co, r.cos_v) == 0;
  }
  const auto n = static_cast<double>(ref.size());
  std::printf("[ cuRAND  ] %zu elements: normals bit-identical %.6f %%, max %llu ulp; "
              "log identical %.6f %%, sincospi identical %.6f %%\n",
              ref.size(), 100.0 * normal_identical / n, static_cast<unsigned long long>(max_ulp),
              100.0 * log_identical / n, 100.0 * sincospi_identical / n);
  RecordProperty("normal_bit_identical_fraction", std::to_string(normal_identical / n));
  RecordProperty("normal_max_ulp", std::to_string(max_ulp));
  EXPECT_EQ(word_mismatches, 0u);
  EXPECT_EQ(uniform_mismatches, 0u);
  EXPECT_EQ(normal_over_4ulp, 0u) << "max distance " << max_ulp << " ulp";
  // The host reproduces CUDA's log and sincospi; only a near-tie in the device's reciprocal
  // seed of log could make a value differ, so anything but (almost) all identical is a regression.
  EXPECT_GE(normal_identical / n, 0.9999);
}

TEST_F(CurandEquivalence, DeviceFunctionsEqualCurandAndHost) {
  std::vector<Sample> ref;
  std::vector<Sample> ours;
  ASSERT_NO_FATAL_FAILURE(run(curand_reference, ref));
  ASSERT_NO_FATAL_FAILURE(run(chunked_device, ours));
  std::uint64_t word_mismatches = 0, normal_mismatches = 0, uniform_mismatches = 0;
  std::uint64_t integer_mismatches = 0;
  for (std::uint64_t i = 0; i < ref.size(); ++i) {
    Case c;
    int ci = 0;
    std::uint64_t e = 0;
    element_of(i, &c, &ci, &e, kCaseTable);
    const Sample& r = ref[i];
    const Sample& o = ours[i];
    for (int k = 0; k < 4; ++k) {
      word_mismatches += r.words[k] != o.words[k];
    }
    // The device runs the same CUDA math as cuRAND, so normals must be bit-equal there.
    normal_mismatches += ulp_distance(r.normal, o.normal) != 0;
    uniform_mismatches += ulp_distance(r.uniform, o.uniform) != 0;
    integer_mismatches +=
        o.integer != rnd::integers_at(c.seed, c.stream, e, low_of(ci), high_of(ci));
  }
  EXPECT_EQ(word_mismatches, 0u);
  EXPECT_EQ(normal_mismatches, 0u);
  EXPECT_EQ(uniform_mismatches, 0u);
  EXPECT_EQ(integer_mismatches, 0u);
}

// The CUDA backend compiles generated kernels with NVRTC, which sees the random headers with no
// standard library: this kernel is compiled the same way, from the headers on disk.
constexpr const char* kNvrtcSource = R"(
#include "chunked/random/distributions.hpp"
extern "C" __global__ void sample(double* normal, double* uniform, long long* ints,
                                  unsigned long long n) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) {
    const unsigned long long e = i * 7919ull; // spread over many blocks, odd and even
    normal[i] = chunked::random::normal_at(42, 0, e, 10.0, 2.0);
    uniform[i] = chunked::random::uniform_at(42, 1, e, -1.0, 3.0);
    ints[i] = chunked::random::integers_at(42, 2, e, -1000000007ll, 1000000007ll);
  }
}
)";

// The include folder: CHUNKED_INCLUDE_DIR from the environment, else the build's definition,
// else the source tree this file lies in.
std::string include_dir() {
  if (const char* env = std::getenv("CHUNKED_INCLUDE_DIR")) {
    return env;
  }
#ifdef CHUNKED_INCLUDE_DIR
  return CHUNKED_INCLUDE_DIR;
#else
  const std::string file = __FILE__;
  return file.substr(0, file.rfind("tests/cuda/")) + "include";
#endif
}

TEST_F(CurandEquivalence, NvrtcCompiledHeadersEqualHost) {
  nvrtcProgram program = nullptr;
  ASSERT_EQ(nvrtcCreateProgram(&program, kNvrtcSource, "sample.cu", 0, nullptr, nullptr),
            NVRTC_SUCCESS);
  const std::string include = "-I" + include_dir();
  const char* options[] = {include.c_str(), "-arch=compute_90", "-std=c++17"};
  const nvrtcResult compiled = nvrtcCompileProgram(program, 3, options);
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  std::string log(log_size, '\0');
  nvrtcGetProgramLog(program, log.data());
  ASSERT_EQ(compiled, NVRTC_SUCCESS) << log;
  std::size_t ptx_size = 0;
  ASSERT_EQ(nvrtcGetPTXSize(program, &ptx_size), NVRTC_SUCCESS);
  std::string ptx(ptx_size, '\0');
  ASSERT_EQ(nvrtcGetPTX(program, ptx.data()), NVRTC_SUCCESS);
  nvrtcDestroyProgram(&program);

  // The runtime's library API loads the PTX, so this test needs no link to the driver library
  // and its executable starts (and skips) on machines without one.
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  CHUNKED_CUDA_CHECK(
      cudaLibraryLoadData(&library, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CHUNKED_CUDA_CHECK(cudaLibraryGetKernel(&kernel, library, "sample"));
  unsigned long long n = 1 << 20;
  double* normal = nullptr;
  double* uniform = nullptr;
  long long* ints = nullptr;
  CHUNKED_CUDA_CHECK(cudaMalloc(&normal, n * sizeof(double)));
  CHUNKED_CUDA_CHECK(cudaMalloc(&uniform, n * sizeof(double)));
  CHUNKED_CUDA_CHECK(cudaMalloc(&ints, n * sizeof(long long)));
  void* args[] = {&normal, &uniform, &ints, &n};
  CHUNKED_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel),
                                      dim3(static_cast<unsigned>(n / 256)), dim3(256), args, 0,
                                      nullptr));
  CHUNKED_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> normal_host(n), uniform_host(n);
  std::vector<long long> ints_host(n);
  CHUNKED_CUDA_CHECK(
      cudaMemcpy(normal_host.data(), normal, n * sizeof(double), cudaMemcpyDeviceToHost));
  CHUNKED_CUDA_CHECK(
      cudaMemcpy(uniform_host.data(), uniform, n * sizeof(double), cudaMemcpyDeviceToHost));
  CHUNKED_CUDA_CHECK(
      cudaMemcpy(ints_host.data(), ints, n * sizeof(long long), cudaMemcpyDeviceToHost));
  CHUNKED_CUDA_CHECK(cudaFree(normal));
  CHUNKED_CUDA_CHECK(cudaFree(uniform));
  CHUNKED_CUDA_CHECK(cudaFree(ints));
  CHUNKED_CUDA_CHECK(cudaLibraryUnload(library));

  std::uint64_t normal_identical = 0, normal_over_4ulp = 0, uniform_mismatches = 0;
  std::uint64_t integer_mismatches = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t e = i * 7919;
    const std::uint64_t d = ulp_distance(normal_host[i], rnd::normal_at(42, 0, e, 10.0, 2.0));
    normal_identical += d == 0;
    normal_over_4ulp += d > 4;
    uniform_mismatches += ulp_distance(uniform_host[i], rnd::uniform_at(42, 1, e, -1.0, 3.0)) != 0;
    integer_mismatches += ints_host[i] != rnd::integers_at(42, 2, e, -1000000007ll, 1000000007ll);
  }
  std::printf("[ NVRTC   ] %llu elements: normals bit-identical to the host %.6f %%\n", n,
              100.0 * normal_identical / static_cast<double>(n));
  EXPECT_EQ(normal_over_4ulp, 0u);
  EXPECT_EQ(uniform_mismatches, 0u);
  EXPECT_EQ(integer_mismatches, 0u);
}

} // namespace
