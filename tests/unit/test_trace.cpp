// SPDX-License-Identifier: Apache-2.0
// ComputeOptions::trace_path and report_path: the trace file parses, has a track per worker with
// each block task on it, tasks that follow one another on each track, times in order, memory
// counters and planning; bad paths and failing computations.
#include "support/errors.hpp"
#include "support/trace_events.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace chunked;
using io::Json;
using test::number_of;
using test::string_of;

std::string temp_path(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / name).string();
}

std::string read_text(const std::string& path) {
  wait_for_diagnostics();
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The "X" events of `category`.
std::vector<Json> spans(const std::vector<Json>& events, const std::string& category) {
  std::vector<Json> out;
  for (const Json& e : events)
    if (string_of(e, "ph") == "X" && string_of(e, "cat") == category)
      out.push_back(e);
  return out;
}

TEST(Trace, EachBlockTaskIsOnItsWorkersTrackWithItsProgramAndBlock) {
  const std::string path = temp_path("chunked-trace-cpu.json");
  Generator g(3);
  const auto x = g.normal<double, Cpu>(Shape{512, 512}, Chunks{128, 128});
  ComputeOptions o;
  o.num_threads = 3;
  o.trace_path = path;
  const double s = x(slice(none, none, 2), slice(none, none)).sum().item(o);
  EXPECT_EQ(s, x(slice(none, none, 2), slice(none, none)).sum().item());

  const std::vector<Json> events = test::trace_events(path);
  const auto tasks = spans(events, "task");
  int programs = 0;
  std::set<std::string> blocks;
  for (const Json& t : tasks) {
    EXPECT_GE(number_of(t, "ts"), 0.0);
    EXPECT_GE(number_of(t, "dur"), 0.0);
    EXPECT_EQ(number_of(t, "pid"), 1.0);
    const double tid = number_of(t, "tid");
    EXPECT_TRUE(tid >= 0 && tid < 3) << tid;
    const Json* args = t.find("args");
    ASSERT_NE(args, nullptr);
    // The first program generates and sums; the last copies the sum into the caller's memory.
    if (string_of(*args, "kind") == "program" && string_of(t, "name").rfind("program 0:", 0) == 0) {
      ++programs;
      EXPECT_NE(string_of(t, "name").find("normal"), std::string::npos) << string_of(t, "name");
      EXPECT_NE(string_of(t, "name").find("sum"), std::string::npos) << string_of(t, "name");
      // Its iteration box: a block's 64 rows of every second row, 128 columns, float64.
      EXPECT_EQ(number_of(*args, "bytes"), 64.0 * 128.0 * 8.0);
      blocks.insert(string_of(*args, "block"));
    }
  }
  EXPECT_EQ(programs, 16);
  EXPECT_EQ(blocks.size(), 16u);
  EXPECT_EQ(blocks.count("(0, 0)"), 1u);
  EXPECT_EQ(blocks.count("(3, 3)"), 1u);
  EXPECT_GT(tasks.size(), 16u); // and combines

  // A name for the host and for each worker whose track has events.
  std::set<double> named;
  for (const Json& e : events)
    if (string_of(e, "ph") == "M" && string_of(e, "name") == "thread_name" &&
        number_of(e, "pid") == 1.0)
      named.insert(number_of(e, "tid"));
  for (const Json& t : tasks)
    EXPECT_EQ(named.count(number_of(t, "tid")), 1u);

  EXPECT_EQ(spans(events, "plan").size(), 1u);
  int counters = 0;
  for (const Json& e : events)
    if (string_of(e, "ph") == "C") {
      ++counters;
      EXPECT_EQ(string_of(e, "name"), "memory");
      const Json* args = e.find("args");
      ASSERT_NE(args, nullptr);
      for (const char* kind : {"host", "pinned", "device", "spilled"})
        EXPECT_GE(number_of(*args, kind), 0.0) << kind;
    }
  EXPECT_GE(counters, 2); // at the start and at the end at least
}

TEST(Trace, TimesAreInOrderAndSpansOnATrackFollowOneAnother) {
  const std::string path = temp_path("chunked-trace-order.json");
  Generator g(4);
  const auto x = g.uniform<float, Cpu>(Shape{300, 700}, Chunks{37, 101});
  ComputeOptions o;
  o.num_threads = 4;
  o.trace_path = path;
  (void)(x * 2.0F + 1.0F).mean(Axes{1}).compute(o);

  const std::vector<Json> events = test::trace_events(path);
  double last = -1;
  std::map<std::pair<double, double>, std::vector<std::pair<double, double>>> tracks;
  for (const Json& e : events) {
    if (string_of(e, "ph") == "M")
      continue;
    const double ts = number_of(e, "ts");
    EXPECT_GE(ts, last) << "events are sorted by time";
    last = ts;
    if (string_of(e, "ph") == "X")
      tracks[{number_of(e, "pid"), number_of(e, "tid")}].emplace_back(ts, ts + number_of(e, "dur"));
  }
  ASSERT_FALSE(tracks.empty());
  for (const auto& [track, list] : tracks)
    for (std::size_t i = 1; i < list.size(); ++i) {
      // On one track a span either nests in the one before or starts after it ends (a
      // nanosecond of rounding allowed).
      const bool follows = list[i].first >= list[i - 1].second - 1e-3;
      const bool nests = list[i].second <= list[i - 1].second + 1e-3;
      EXPECT_TRUE(follows || nests)
          << "track " << track.second << ": [" << list[i - 1].first << ", " << list[i - 1].second
          << ") then [" << list[i].first << ", " << list[i].second << ")";
    }
}

TEST(Trace, SingleThreadedRunsAndPersistRecordEveryPlan) {
  const std::string path = temp_path("chunked-trace-persist.json");
  const auto x = arange<double, Cpu>(0.0, 1000.0, 1.0, 100);
  ComputeOptions o;
  o.scheduler = Scheduler::single_threaded;
  o.trace_path = path;
  const auto p = (x * 3.0).persist(o);
  EXPECT_EQ(p.sum().item(), 3.0 * 999.0 * 1000.0 / 2.0);
  const std::vector<Json> events = test::trace_events(path);
  int programs = 0;
  for (const Json& t : spans(events, "task")) {
    EXPECT_EQ(number_of(t, "tid"), 0.0);
    programs += string_of(t, "name").find("arange") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(programs, 10);
}

TEST(Trace, AnUnwritablePathIsAnErrorNamingItAndTheRuntimeStaysUsable) {
  const auto x = arange<double, Cpu>(0.0, 10.0, 1.0, 3);
  ComputeOptions o;
  o.trace_path = temp_path("no-such-directory/x/trace.json");
  test::expect_error<Error>([&] { (void)x.sum().item(o); },
                            {"trace_path", "no-such-directory/x/trace.json"});
  ComputeOptions r;
  r.report_path = temp_path("no-such-directory/y/report.html");
  test::expect_error<Error>([&] { (void)x.sum().item(r); },
                            {"report_path", "no-such-directory/y/report.html"});
  EXPECT_EQ(x.sum().item(), 45.0);
}

TEST(Trace, AFailedComputationStillWritesItsTraceAndRaisesItsOwnError) {
  const std::string path = temp_path("chunked-trace-failed.json");
  std::filesystem::remove(path);
  const auto x = arange<double, Cpu>(0.0, 100.0, 1.0, 10);
  const auto y = map_blocks<double>(
      [](const BlockInfo& info, BlockView<double> out, BlockView<const double> in) {
        if (info.block[0] == 7)
          throw std::runtime_error("block seven refuses");
        for (index_t i = 0; i < in.size(); ++i)
          out.data[i] = in.data[i];
      },
      x);
  ComputeOptions o;
  o.trace_path = path;
  o.num_threads = 2;
  test::expect_error<Error>([&] { (void)y.sum().item(o); }, {"block seven refuses"});
  const std::vector<Json> events = test::trace_events(path);
  EXPECT_FALSE(spans(events, "task").empty());
  EXPECT_EQ(x.sum().item(), 4950.0);
}

TEST(Trace, AFileAppearsWholeReplacingTheEarlierOneAndLeavesNothingBeside) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "chunked-whole";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "trace.json").string();
  std::ofstream(path) << "an earlier file";
  const auto x = arange<double, Cpu>(0.0, 1000.0, 1.0, 10);
  ComputeOptions o;
  o.trace_path = path;
  o.num_threads = 2;
  // More computations than the writer queues: each hands its file over in turn.
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ((x + static_cast<double>(i)).sum().item(o), 499500.0 + 1000.0 * i);
  const std::vector<Json> events = test::trace_events(path);
  EXPECT_GE(spans(events, "task").size(), 100u);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"trace.json"});
  std::filesystem::remove_all(dir);
}

TEST(Trace, ADeviceIsWrittenInPlaceNotReplaced) {
  if (!std::filesystem::is_character_file("/dev/null"))
    GTEST_SKIP() << "no /dev/null";
  ComputeOptions o;
  o.trace_path = "/dev/null";
  const auto x = arange<double, Cpu>(0.0, 10.0, 1.0, 3);
  EXPECT_EQ(x.sum().item(o), 45.0);
  wait_for_diagnostics();
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
}

TEST(Trace, AFileThatCannotBeWrittenAtTheEndIsRaisedByTheWait) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "chunked-gone";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "trace.json").string();
  // The directory is there when the computation starts, and gone when its file is written.
  const auto x = arange<double, Cpu>(0.0, 100.0, 1.0, 10);
  const auto y = map_blocks<double>(
      [dir](const BlockInfo&, BlockView<double> out, BlockView<const double> in) {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
        for (index_t i = 0; i < in.size(); ++i)
          out.data[i] = in.data[i];
      },
      x);
  ComputeOptions o;
  o.trace_path = path;
  EXPECT_EQ(y.sum().item(o), 4950.0);
  test::expect_error<Error>([] { wait_for_diagnostics(); }, {"trace_path", path});
  wait_for_diagnostics(); // the error was raised once
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(Trace, AReportIsOneHtmlPage) {
  const std::string path = temp_path("chunked-report.html");
  Generator g(5);
  ComputeOptions o;
  o.report_path = path;
  (void)g.normal<double, Cpu>(Shape{200, 200}, Chunks{50, 50}).sum().item(o);
  const std::string html = read_text(path);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("Cpu"), std::string::npos);
}

} // namespace
