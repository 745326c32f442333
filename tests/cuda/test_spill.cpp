// SPDX-License-Identifier: Apache-2.0
// Persisted blocks beyond device_memory_limit move to page-locked host memory, beyond
// host_memory_limit on to files, and computations reading them give bitwise what they give
// without limits.
#include "support/cuda_test.hpp"

#include <cstring>
#include <filesystem>
#include <string>

namespace {

using namespace chunked;
using X = ChunkedArray<double, Cuda>;
namespace fs = std::filesystem;

constexpr std::size_t mib = std::size_t{1} << 20;

/// 512 MiB of float64 in blocks of 8 MiB.
X sample() {
  Generator g(23);
  return g.normal<double, Cuda>(Shape{16384, 4096}, Chunks{256, 4096});
}

X standardize(const X& x) { return (x - x.mean()) / x.std(); }

bool bitwise_equal(const NDArray<double>& a, const NDArray<double>& b) {
  return a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(double)) == 0;
}

std::size_t files(const fs::path& dir) {
  std::size_t n = 0;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      n += e.path().filename().string().rfind("chunked-spill-", 0) == 0 ? 1 : 0;
  return n;
}

TEST(CudaSpill, PersistFourTimesTheDeviceLimitStandardizesBitwiseAsWithoutLimits) {
  SKIP_WITHOUT_DEVICE();
  const X source = sample();
  const NDArray<double> want = standardize(source.persist()).compute();
  const double want_sum = source.persist().sum().item();
  ComputeOptions o;
  o.device_memory_limit = 128 * mib;
  const X x = source.persist(o);
  EXPECT_TRUE(bitwise_equal(standardize(x).compute(o), want));
  EXPECT_EQ(x.sum().item(o), want_sum);
  EXPECT_TRUE(bitwise_equal(standardize(x).compute(), want));
}

TEST(CudaSpill, DeviceToHostToFilesWithBothLimitsSmall) {
  SKIP_WITHOUT_DEVICE();
  const fs::path dir = fs::temp_directory_path() / "chunked-cuda-spill-test";
  fs::remove_all(dir);
  const X source = sample();
  const NDArray<double> want = standardize(source).compute();
  {
    ComputeOptions o;
    o.device_memory_limit = 128 * mib;
    o.host_memory_limit = 64 * mib;
    o.spill_directory = dir.string();
    const X x = source.persist(o);
    // 64 MiB stay on the device, 64 MiB in host memory, the other 48 blocks in files.
    EXPECT_EQ(files(dir), 48u);
    EXPECT_TRUE(bitwise_equal(standardize(x).compute(o), want));
    EXPECT_EQ(x.sum().item(o), source.sum().item());
    EXPECT_GE(files(dir), 40u);
  }
  EXPECT_EQ(files(dir), 0u);
  fs::remove_all(dir);
}

} // namespace
