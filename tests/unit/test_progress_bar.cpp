// SPDX-License-Identifier: Apache-2.0
// Tests of the progress bar: formatting, redraws on a terminal, and log lines elsewhere.
#include "runtime/progress_bar.hpp"
#include <chunked/runtime/compute_options.hpp>
#include <chunked/runtime/progress.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace chunked::runtime {
namespace {

TEST(ProgressFormat, Bytes) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(999), "999 B");
  EXPECT_EQ(format_bytes(1000), "1.00 kB");
  EXPECT_EQ(format_bytes(1234), "1.23 kB");
  EXPECT_EQ(format_bytes(12345678), "12.3 MB");
  EXPECT_EQ(format_bytes(123.4e9), "123 GB");
  EXPECT_EQ(format_bytes(999.9e9), "1.00 TB");
  EXPECT_EQ(format_bytes(2e18), "2.00 EB");
  EXPECT_EQ(format_bytes(-1), "? B");
}

TEST(ProgressFormat, Duration) {
  EXPECT_EQ(format_duration(0), "0.0s");
  EXPECT_EQ(format_duration(12.34), "12.3s");
  EXPECT_EQ(format_duration(59.9), "59.9s");
  EXPECT_EQ(format_duration(59.97), "1m00s");
  EXPECT_EQ(format_duration(245), "4m05s");
  EXPECT_EQ(format_duration(7620), "2h07m");
  EXPECT_EQ(format_duration(-1), "?");
}

TEST(ProgressFormat, LineWithBar) {
  Progress p;
  p.blocks_done = 350;
  p.blocks_total = 1000;
  p.bytes_done = 12'100'000'000;
  p.elapsed_seconds = 10;
  const std::string text = "  35%  350/1000 blocks  1.21 GB/s  elapsed 10.0s  ETA 18.6s";
  const std::string line = format_progress_line(p, 90);
  ASSERT_EQ(line.size(), 90u);
  const int bar = 90 - static_cast<int>(text.size()) - 2;
  const int filled = static_cast<int>(0.35 * bar);
  EXPECT_EQ(line, "[" + std::string(filled, '#') + std::string(bar - filled, '.') + "]" + text);
}

TEST(ProgressFormat, StartAndEnd) {
  Progress p;
  p.blocks_total = 4;
  std::string line = format_progress_line(p, 80);
  EXPECT_NE(line.find("[....."), std::string::npos) << line;
  EXPECT_NE(line.find("  0%  0/4 blocks  0 B/s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA ?"), std::string::npos) << line;

  p.blocks_done = 4;
  p.bytes_done = 4000;
  p.elapsed_seconds = 2;
  line = format_progress_line(p, 80);
  EXPECT_NE(line.find("#####]"), std::string::npos) << line;
  EXPECT_EQ(line.substr(0, line.find(']')).find('.'), std::string::npos) << line; // full bar
  EXPECT_NE(line.find("100%  4/4 blocks  2.00 kB/s  elapsed 2.0s  ETA 0.0s"), std::string::npos)
      << line;

  // 99.9 % is not 100 %.
  p.blocks_done = 999;
  p.blocks_total = 1000;
  EXPECT_NE(format_progress_line(p, 80).find(" 99%"), std::string::npos);
}

TEST(ProgressFormat, AlwaysExactlyWidthAndNarrowDropsBar) {
  Progress p{7, 9, 123456, 3.5};
  for (int width = 1; width < 200; ++width)
    ASSERT_EQ(format_progress_line(p, width).size(), static_cast<std::size_t>(width));
  EXPECT_EQ(format_progress_line(p, 0), "");
  const std::string narrow = format_progress_line(p, 40);
  EXPECT_EQ(narrow.find('['), std::string::npos);
  EXPECT_EQ(narrow.substr(0, 20), " 77%  7/9 blocks  35");
}

/// Everything written to `file` so far; closes it.
std::string read_and_close(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string out;
  for (int c; (c = std::fgetc(file)) != EOF;)
    out.push_back(static_cast<char>(c));
  std::fclose(file);
  return out;
}

/// The lines of `text`, each without its '\n'; a last line without one is kept too.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  for (std::size_t end; (end = text.find('\n', begin)) != std::string::npos; begin = end + 1)
    lines.push_back(text.substr(begin, end - begin));
  if (begin < text.size())
    lines.push_back(text.substr(begin));
  return lines;
}

/// The percentage a log line starts with ("chunked: 30%  ..." gives 30), or -1.
int logged_percent(const std::string& line) {
  const std::string prefix = "chunked: ";
  if (line.compare(0, prefix.size(), prefix) != 0)
    return -1;
  const std::size_t end = line.find('%', prefix.size());
  if (end == std::string::npos || end == prefix.size())
    return -1;
  return std::stoi(line.substr(prefix.size(), end - prefix.size()));
}

/// `done` of `total` blocks after `seconds`, 1 MB per block.
Progress at(index_t done, index_t total, double seconds) {
  return Progress{done, total, static_cast<std::uint64_t>(done) * 1'000'000, seconds};
}

TEST(ProgressBar, TerminalModeRedrawsWithCarriageReturnAndEndsWithNewline) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressBar bar(file, 60, ProgressBarMode::terminal);
    EXPECT_EQ(bar.mode(), ProgressBarMode::terminal);
    bar.draw(Progress{1, 4, 10, 1.0});
    bar.draw(Progress{2, 4, 20, 2.0});
    bar.finish(Progress{4, 4, 40, 3.0});
  }
  const std::string out = read_and_close(file);
  ASSERT_EQ(out.size(), 3 * 61u + 1);
  EXPECT_EQ(out[0], '\r');
  EXPECT_EQ(out[61], '\r');
  EXPECT_EQ(out[122], '\r');
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line, redrawn";
  EXPECT_NE(out.find("100%  4/4 blocks"), std::string::npos);
}

// A redraw of the text on screen would only make it flicker: it writes nothing, and the final
// draw of an unchanged line only ends it.
TEST(ProgressBar, TerminalModeRedrawsOnlyChangedText) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressBar bar(file, 60, ProgressBarMode::terminal);
    bar.draw(Progress{1, 4, 10, 1.0});
    bar.draw(Progress{1, 4, 10, 1.0});
    bar.draw(Progress{1, 4, 10, 1.01}); // the same text: times show tenths of a second
    bar.draw(Progress{4, 4, 40, 3.0});
    bar.finish(Progress{4, 4, 40, 3.0});
  }
  const std::string out = read_and_close(file);
  ASSERT_EQ(out.size(), 2 * 61u + 1);
  EXPECT_EQ(out[0], '\r');
  EXPECT_EQ(out[61], '\r');
  EXPECT_EQ(out.substr(62, 60), format_progress_line(Progress{4, 4, 40, 3.0}, 60));
  EXPECT_EQ(out.back(), '\n');
}

TEST(ProgressBar, AbandonEndsLineOnlyIfDrawn) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  ProgressBar bar(file, 30, ProgressBarMode::terminal);
  bar.abandon();
  EXPECT_EQ(std::ftell(file), 0);
  bar.draw(Progress{1, 4, 10, 1.0});
  bar.abandon();
  EXPECT_EQ(std::ftell(file), 32);
  bar.abandon();
  EXPECT_EQ(std::ftell(file), 32) << "the line was ended already";
  std::fclose(file);
}

TEST(ProgressFormat, LogLine) {
  EXPECT_EQ(format_progress_log_line(Progress{300, 1000, 12'100'000'000, 10}),
            "chunked: 30%  300/1000 blocks  1.21 GB/s  elapsed 10.0s  ETA 23.3s");
  EXPECT_EQ(format_progress_log_line(Progress{4, 4, 4000, 2}),
            "chunked: 100%  4/4 blocks  2.00 kB/s  elapsed 2.0s  ETA 0.0s");
}

// A file is not a terminal: the bar writes log lines there unless told otherwise.
TEST(ProgressBar, AutomaticModeOnAFileIsLog) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(ProgressBar(file).mode(), ProgressBarMode::log);
  EXPECT_EQ(ProgressBar(file, 0, ProgressBarMode::terminal).mode(), ProgressBarMode::terminal);
  std::fclose(file);
}

// A pseudo-terminal is a terminal: the bar redraws there.
TEST(ProgressBar, AutomaticModeOnATerminalRedraws) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) {
    if (master >= 0)
      ::close(master);
    GTEST_SKIP() << "no pseudo-terminal here";
  }
  const char* name = ::ptsname(master);
  std::FILE* tty = name ? std::fopen(name, "w") : nullptr;
  if (tty == nullptr) {
    ::close(master);
    GTEST_SKIP() << "cannot open the pseudo-terminal's other end";
  }
  EXPECT_EQ(ProgressBar(tty, 40).mode(), ProgressBarMode::terminal);
  std::fclose(tty);
  ::close(master);
}

// Every block reported, as a fast computation's reports could be: a line at each 10 % step,
// the last one 100 %, and no '\r'.
TEST(ProgressBar, LogModeWritesALinePerTenPercent) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressBar bar(file, 80, ProgressBarMode::log);
    for (index_t done = 0; done <= 1000; ++done)
      bar.draw(at(done, 1000, 0.01 * static_cast<double>(done)));
    bar.finish(at(1000, 1000, 10.0));
  }
  const std::string out = read_and_close(file);
  EXPECT_EQ(out.find('\r'), std::string::npos);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
  const auto lines = lines_of(out);
  ASSERT_EQ(lines.size(), 10u) << out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto done = static_cast<index_t>(100 * (i + 1));
    EXPECT_EQ(lines[i], format_progress_log_line(at(done, 1000, 0.01 * static_cast<double>(done))))
        << "the first report at " << 10 * (i + 1) << " %";
  }
}

// Reports that jump over steps, as throttled ones of a slow computation do: one line per step
// reached, percentages increasing, and the final line at 100 % written by finish().
TEST(ProgressBar, LogModeSkipsStepsAndFinishesAtOneHundred) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressBar bar(file, 80, ProgressBarMode::log);
    for (const index_t done : {0, 3, 50, 99, 341, 345, 399, 400, 870, 999})
      bar.draw(at(done, 1000, 1.0));
    bar.finish(at(1000, 1000, 2.0));
    bar.abandon(); // nothing to end: every line it wrote is whole
  }
  const std::string out = read_and_close(file);
  EXPECT_EQ(out.find('\r'), std::string::npos);
  const auto lines = lines_of(out);
  std::vector<int> percents;
  for (const auto& line : lines)
    percents.push_back(logged_percent(line));
  EXPECT_EQ(percents, (std::vector<int>{34, 40, 87, 99, 100})) << out;
  EXPECT_EQ(lines.back(), format_progress_log_line(at(1000, 1000, 2.0)));
}

// A 100 % line already written is not written again at the end; a failed computation's bar
// writes nothing more.
TEST(ProgressBar, LogModeWritesOneHundredOnce) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressBar bar(file, 80, ProgressBarMode::log);
    bar.draw(at(4, 4, 1.0));
    bar.draw(at(4, 4, 1.5));
    bar.finish(at(4, 4, 2.0));
    ProgressBar failed(file, 80, ProgressBarMode::log);
    failed.draw(at(1, 4, 1.0));
    failed.abandon();
  }
  const auto lines = lines_of(read_and_close(file));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], format_progress_log_line(at(4, 4, 1.0)));
  EXPECT_EQ(lines[1], format_progress_log_line(at(1, 4, 1.0)));
}

/// Sets $COLUMNS (or unsets it for nullptr) for one scope; ctest runs each case in its own
/// process, so no other test sees it.
class ColumnsScope {
public:
  explicit ColumnsScope(const char* value) {
    if (const char* old = std::getenv("COLUMNS"))
      old_ = old;
    if (value)
      ::setenv("COLUMNS", value, 1);
    else
      ::unsetenv("COLUMNS");
  }
  ~ColumnsScope() {
    if (old_)
      ::setenv("COLUMNS", old_->c_str(), 1);
    else
      ::unsetenv("COLUMNS");
  }
  ColumnsScope(const ColumnsScope&) = delete;
  ColumnsScope& operator=(const ColumnsScope&) = delete;

private:
  std::optional<std::string> old_;
};

// A file is not a terminal, so without a usable $COLUMNS the width is 80 - 1.
TEST(ProgressBar, WidthFromColumnsIsParsedAndBounded) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  const std::pair<const char*, int> cases[] = {{"120", 119},
                                               {"1", 1},
                                               {"2147483647", max_terminal_width - 1}, // clamped
                                               // Not a plain positive decimal number: ignored.
                                               {"99999999999999999999", 79},
                                               {"abc", 79},
                                               {"80x", 79},
                                               {"-5", 79},
                                               {"0", 79},
                                               {"", 79},
                                               {" 90", 79},
                                               {nullptr, 79}};
  for (const auto& [value, width] : cases) {
    SCOPED_TRACE(value ? std::string("COLUMNS=") + value : std::string("COLUMNS unset"));
    const ColumnsScope columns(value);
    ProgressBar bar(file);
    EXPECT_EQ(bar.width(), width);
  }
  {
    // Every redraw writes one bounded line.
    const ColumnsScope columns("2147483647");
    const long before = std::ftell(file);
    ProgressBar bar(file, 0, ProgressBarMode::terminal);
    bar.draw(Progress{1, 4, 10, 1.0});
    EXPECT_EQ(std::ftell(file) - before, max_terminal_width);
  }
  EXPECT_EQ(ProgressBar(file, 5000).width(), max_terminal_width);
  EXPECT_EQ(ProgressBar(file, 7).width(), 7);
  std::fclose(file);
}

/// Points stderr (fd 2) at a temporary file for one scope.
class StderrToFile {
public:
  StderrToFile() : file_(std::tmpfile()) {
    std::fflush(stderr);
    saved_ = ::dup(2);
    if (file_ != nullptr && saved_ >= 0)
      redirected_ = ::dup2(::fileno(file_), 2) >= 0;
  }
  ~StderrToFile() {
    restore();
    if (file_ != nullptr)
      std::fclose(file_);
  }
  StderrToFile(const StderrToFile&) = delete;
  StderrToFile& operator=(const StderrToFile&) = delete;

  bool redirected() const { return redirected_; }

  /// Points stderr back where it was and returns what was written to the file.
  std::string restore() {
    std::fflush(stderr);
    if (saved_ >= 0) {
      ::dup2(saved_, 2);
      ::close(saved_);
      saved_ = -1;
    }
    std::string out;
    if (file_ != nullptr) {
      std::rewind(file_);
      for (int c; (c = std::fgetc(file_)) != EOF;)
        out.push_back(static_cast<char>(c));
    }
    return out;
  }

private:
  std::FILE* file_;
  int saved_ = -1;
  bool redirected_ = false;
};

// ComputeOptions::progress_bar with stderr sent to a log file, reporting after every one of 1000
// blocks: ten lines, not a thousand '\r' redraws.
TEST(ProgressReporter, BarOnAFileWritesAtMostElevenLines) {
  ComputeOptions options;
  options.progress_bar = true;
  StderrToFile log;
  ASSERT_TRUE(log.redirected());
  {
    ProgressReporter reporter(options, 1000, std::chrono::nanoseconds(0));
    for (int i = 0; i < 1000; ++i) {
      reporter.add(1, 4096);
      reporter.maybe_report();
    }
    reporter.finish();
  }
  const std::string out = log.restore();
  EXPECT_EQ(out.find('\r'), std::string::npos);
  const auto lines = lines_of(out);
  ASSERT_FALSE(lines.empty());
  EXPECT_LE(lines.size(), 11u) << out;
  int last = 0;
  for (const auto& line : lines) {
    const int percent = logged_percent(line);
    EXPECT_GE(percent / 10, last / 10 + 1) << "a new 10 % step per line: " << line;
    last = percent;
  }
  EXPECT_EQ(last, 100);
  EXPECT_NE(lines.back().find("1000/1000 blocks"), std::string::npos) << lines.back();
}

} // namespace
} // namespace chunked::runtime
