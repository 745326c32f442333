// SPDX-License-Identifier: Apache-2.0
// The trace of a Cuda computation: a track per GPU stream with the kernels and copies of its
// tasks, timed by CUDA events within the computation's time, and device memory counted.
#include "support/cuda_test.hpp"
#include "support/trace_events.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace chunked;
using io::Json;
using X = ChunkedArray<double, Cuda>;

using test::number_of;
using test::string_of;

std::vector<Json> traced(const std::string& name, const std::function<void(ComputeOptions&)>& f) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
  ComputeOptions o;
  o.trace_path = path;
  f(o);
  return test::trace_events(path);
}

TEST(CudaTrace, KernelsAndCopiesAreOnStreamTracksWithinTheComputation) {
  SKIP_WITHOUT_DEVICE();
  Generator g(7);
  const auto x = g.normal<double, Cuda>(Shape{4096, 4096}, Chunks{1024, 1024});
  NDArray<double> host;
  const auto events = traced("chunked-trace-cuda.json", [&](ComputeOptions& o) {
    host = (x * 2.0 + 1.0).compute(o); // kernels, then copies to the host
  });
  double host_begin = 1e300, host_end = 0;
  int kernels = 0, copies = 0;
  std::set<double> named_streams;
  for (const Json& e : events) {
    const std::string ph = string_of(e, "ph");
    if (ph == "M" && string_of(e, "name") == "thread_name" && number_of(e, "pid") >= 100) {
      EXPECT_NE(string_of(*e.find("args"), "name").find("GPU 0 stream"), std::string::npos);
      named_streams.insert(number_of(e, "tid"));
    }
    if (ph != "X")
      continue;
    if (number_of(e, "pid") == 1) {
      host_begin = std::min(host_begin, number_of(e, "ts"));
      host_end = std::max(host_end, number_of(e, "ts") + number_of(e, "dur"));
      continue;
    }
    EXPECT_EQ(number_of(e, "pid"), 100.0);
    EXPECT_EQ(named_streams.count(number_of(e, "tid")), 1u) << "a stream track without a name";
    EXPECT_GE(number_of(e, "dur"), 0.0);
    kernels += string_of(e, "cat") == "kernel" ? 1 : 0;
    copies += string_of(e, "cat") == "copy" ? 1 : 0;
    if (string_of(e, "cat") == "copy") {
      EXPECT_GT(number_of(*e.find("args"), "bytes"), 0.0);
    }
  }
  EXPECT_GE(kernels, 16); // a store kernel per block
  EXPECT_GE(copies, 16);  // and its copy to the host
  EXPECT_GE(named_streams.size(), 2u);
  // GPU times come from events tied to the trace's clock: they fall within the host's events
  // (a millisecond allowed for the tie).
  for (const Json& e : events)
    if (string_of(e, "ph") == "X" && number_of(e, "pid") >= 100) {
      EXPECT_GE(number_of(e, "ts"), host_begin - 1000.0);
      EXPECT_LE(number_of(e, "ts") + number_of(e, "dur"), host_end + 1000.0);
    }
}

TEST(CudaTrace, DeviceMemoryIsCounted) {
  SKIP_WITHOUT_DEVICE();
  Generator g(8);
  const auto x = g.normal<double, Cuda>(Shape{4096, 4096}, Chunks{1024, 1024});
  X kept;
  const auto events = traced("chunked-trace-cuda-persist.json",
                             [&](ComputeOptions& o) { kept = (x + 1.0).persist(o); });
  double device = 0;
  for (const Json& e : events)
    if (string_of(e, "ph") == "C")
      device = std::max(device, number_of(*e.find("args"), "device"));
  // The persisted blocks are on the device when the computation ends.
  EXPECT_GE(device, 4096.0 * 4096.0 * 8.0);
}

} // namespace
