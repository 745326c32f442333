// SPDX-License-Identifier: Apache-2.0
// Formatting and drawing of the progress bar and of its log lines.
#include "runtime/progress_bar.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>

#if __has_include(<sys/ioctl.h>) && __has_include(<unistd.h>)
#include <sys/ioctl.h>
#include <unistd.h>
#define CHUNKED_HAVE_IOCTL_WINSIZE 1
#endif

namespace chunked::runtime {

namespace {

std::string printf_string(const char* format, auto... args) {
  char buffer[64];
  const int n = std::snprintf(buffer, sizeof buffer, format, args...);
  return std::string(buffer, static_cast<std::size_t>(std::clamp(n, 0, 63)));
}

/// `$COLUMNS` as a width, or 0 when it is unset or not a plain positive decimal number ("80x",
/// "-5", "" and out-of-range values are someone else's garbage, not a terminal width).
int columns_from_environment() {
  const char* columns = std::getenv("COLUMNS");
  if (columns == nullptr || *columns < '0' || *columns > '9')
    return 0;
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(columns, &end, 10);
  if (errno != 0 || *end != '\0' || n <= 0)
    return 0;
  return static_cast<int>(std::min<long>(n, max_terminal_width));
}

int terminal_width(std::FILE* out) {
  if (const int n = columns_from_environment(); n > 0)
    return n;
#ifdef CHUNKED_HAVE_IOCTL_WINSIZE
  winsize ws{};
  if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return std::min<int>(ws.ws_col, max_terminal_width);
#else
  (void)out;
#endif
  return 80;
}

bool is_terminal(std::FILE* out) {
#ifdef CHUNKED_HAVE_IOCTL_WINSIZE
  return isatty(fileno(out)) != 0;
#else
  (void)out;
  return true; // no way to tell: keep the redrawn line
#endif
}

/// Floored, so that 100 % means done.
int percent_done(const Progress& p) {
  return static_cast<int>(std::floor(std::clamp(p.fraction(), 0.0, 1.0) * 100.0));
}

/// What follows the percentage: "350/1000 blocks  1.21 GB/s  elapsed 12.0s  ETA 22.3s".
std::string progress_counts(const Progress& p) {
  const double fraction = std::clamp(p.fraction(), 0.0, 1.0);
  const double rate =
      p.elapsed_seconds > 0 ? static_cast<double>(p.bytes_done) / p.elapsed_seconds : 0.0;
  std::string eta;
  if (fraction >= 1.0)
    eta = format_duration(0);
  else if (p.blocks_done <= 0)
    eta = "?";
  else
    eta = format_duration(p.elapsed_seconds * (1.0 - fraction) / fraction);
  return std::to_string(p.blocks_done) + "/" + std::to_string(p.blocks_total) + " blocks  " +
         format_bytes(rate) + "/s" + "  elapsed " + format_duration(p.elapsed_seconds) + "  ETA " +
         eta;
}

} // namespace

std::string format_bytes(double bytes) {
  static constexpr const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  if (!(bytes >= 0) || std::isinf(bytes))
    return "? B";
  int unit = 0;
  while (bytes >= 999.5 && unit < 6) {
    bytes /= 1000;
    ++unit;
  }
  if (unit == 0)
    return printf_string("%.0f B", bytes);
  const char* format = bytes < 9.995 ? "%.2f %s" : bytes < 99.95 ? "%.1f %s" : "%.0f %s";
  return printf_string(format, bytes, units[unit]);
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || std::isinf(seconds))
    return "?";
  if (seconds < 59.95)
    return printf_string("%.1fs", seconds);
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 3600)
    return printf_string("%lldm%02llds", whole / 60, whole % 60);
  return printf_string("%lldh%02lldm", whole / 3600, whole / 60 % 60);
}

std::string format_progress_line(const Progress& p, int width) {
  if (width <= 0)
    return {};
  const double fraction = std::clamp(p.fraction(), 0.0, 1.0);
  const std::string text = printf_string(" %3d%%  ", percent_done(p)) + progress_counts(p);

  constexpr int min_bar = 10; // narrower bars say nothing the percentage does not
  const int bar = width - static_cast<int>(text.size()) - 2;
  std::string line;
  if (bar >= min_bar) {
    const int filled = static_cast<int>(std::floor(fraction * bar));
    line = "[" + std::string(static_cast<std::size_t>(filled), '#') +
           std::string(static_cast<std::size_t>(bar - filled), '.') + "]" + text;
  } else {
    line = text.substr(1); // drop the space that separated it from the bar
  }
  // Always exactly `width` wide, so a redraw covers a longer previous line.
  line.resize(static_cast<std::size_t>(width), ' ');
  return line;
}

std::string format_progress_log_line(const Progress& p) {
  return printf_string("chunked: %d%%  ", percent_done(p)) + progress_counts(p);
}

ProgressBar::ProgressBar(std::FILE* out, int width, ProgressBarMode mode)
    : out_(out), width_(width > 0 ? std::min(width, max_terminal_width)
                                  : std::max(1, terminal_width(out) - 1)),
      mode_(mode != ProgressBarMode::automatic ? mode
            : is_terminal(out)                 ? ProgressBarMode::terminal
                                               : ProgressBarMode::log) {}

void ProgressBar::write(const std::string& text) {
  // One write per line: a line assembled from several writes can be torn by other output.
  std::fwrite(text.data(), 1, text.size(), out_);
  std::fflush(out_);
}

void ProgressBar::draw(const Progress& progress) {
  if (mode_ == ProgressBarMode::log) {
    const int step = percent_done(progress) / 10;
    if (step > logged_step_) {
      logged_step_ = step;
      write(format_progress_log_line(progress) + "\n");
    }
    return;
  }
  std::string line = format_progress_line(progress, width_);
  if (line == drawn_)
    return;
  write("\r" + line);
  drawn_ = std::move(line);
}

void ProgressBar::finish(const Progress& progress) {
  if (mode_ == ProgressBarMode::log) {
    if (logged_step_ < 10)
      write(format_progress_log_line(progress) + "\n");
    logged_step_ = 0;
    return;
  }
  const std::string line = format_progress_line(progress, width_);
  write(line == drawn_ ? std::string("\n") : "\r" + line + "\n");
  drawn_.clear();
}

void ProgressBar::abandon() {
  if (mode_ == ProgressBarMode::log) {
    logged_step_ = 0; // every line it wrote is whole
    return;
  }
  if (drawn_.empty())
    return;
  write("\n");
  drawn_.clear();
}

} // namespace chunked::runtime
