// SPDX-License-Identifier: Apache-2.0
// The trace of a Cuda computation: a track per GPU stream with the kernels and copies of its
// tasks, timed by CUDA events within the computation's time, and device memory counted.
#include "io/json.hpp"
#include "support/cuda_test.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace chunked;
using io::Json;
using X = ChunkedArray<double, Cuda>;

std::string str(const Json& e, const char* key) {
  const Json* v = e.find(key);
  return v && v->is_string() ? v->as_string(key) : std::string();
}

double num(const Json& e, const char* key) {
  const Json* v = e.find(key);
  return v && v->is_number() ? v->as_double(key) : -1.0;
}

std::vector<Json> traced(const std::string& name, const std::function<void(ComputeOptions&)>& f) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
  ComputeOptions o;
  o.trace_path = path;
  f(o);
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return Json::parse(s.str()).find("traceEvents")->as_array("traceEvents");
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
    const std::string ph = str(e, "ph");
    if (ph == "M" && str(e, "name") == "thread_name" && num(e, "pid") >= 100) {
      EXPECT_NE(str(*e.find("args"), "name").find("GPU 0 stream"), std::string::npos);
      named_streams.insert(num(e, "tid"));
    }
    if (ph != "X")
      continue;
    if (num(e, "pid") == 1) {
      host_begin = std::min(host_begin, num(e, "ts"));
      host_end = std::max(host_end, num(e, "ts") + num(e, "dur"));
      continue;
    }
    EXPECT_EQ(num(e, "pid"), 100.0);
    EXPECT_EQ(named_streams.count(num(e, "tid")), 1u) << "a stream track without a name";
    EXPECT_GE(num(e, "dur"), 0.0);
    kernels += str(e, "cat") == "kernel" ? 1 : 0;
    copies += str(e, "cat") == "copy" ? 1 : 0;
    if (str(e, "cat") == "copy")
      EXPECT_GT(num(*e.find("args"), "bytes"), 0.0);
  }
  EXPECT_GE(kernels, 16); // a store kernel per block
  EXPECT_GE(copies, 16);  // and its copy to the host
  EXPECT_GE(named_streams.size(), 2u);
  // GPU times come from events tied to the trace's clock: they fall within the host's events
  // (a millisecond allowed for the tie).
  for (const Json& e : events)
    if (str(e, "ph") == "X" && num(e, "pid") >= 100) {
      EXPECT_GE(num(e, "ts"), host_begin - 1000.0);
      EXPECT_LE(num(e, "ts") + num(e, "dur"), host_end + 1000.0);
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
    if (str(e, "ph") == "C")
      device = std::max(device, num(*e.find("args"), "device"));
  // The persisted blocks are on the device when the computation ends.
  EXPECT_GE(device, 4096.0 * 4096.0 * 8.0);
}

} // namespace
