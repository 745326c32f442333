// SPDX-License-Identifier: Apache-2.0
// Formatting and drawing of the terminal progress bar.
#include "runtime/progress_bar.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

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
  // Floor, so that 100 % means done.
  const int percent = static_cast<int>(std::floor(fraction * 100.0));
  const double rate =
      p.elapsed_seconds > 0 ? static_cast<double>(p.bytes_done) / p.elapsed_seconds : 0.0;
  std::string eta;
  if (fraction >= 1.0)
    eta = format_duration(0);
  else if (p.blocks_done <= 0)
    eta = "?";
  else
    eta = format_duration(p.elapsed_seconds * (1.0 - fraction) / fraction);

  std::string text = printf_string(" %3d%%  ", percent) + std::to_string(p.blocks_done) + "/" +
                     std::to_string(p.blocks_total) + " blocks  " + format_bytes(rate) + "/s" +
                     "  elapsed " + format_duration(p.elapsed_seconds) + "  ETA " + eta;

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

ProgressBar::ProgressBar(std::FILE* out, int width)
    : out_(out), width_(width > 0 ? std::min(width, max_terminal_width)
                                  : std::max(1, terminal_width(out) - 1)) {}

void ProgressBar::draw(const Progress& progress) {
  const std::string line = format_progress_line(progress, width_);
  std::fputc('\r', out_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::finish(const Progress& progress) {
  draw(progress);
  std::fputc('\n', out_);
  std::fflush(out_);
  drawn_ = false;
}

void ProgressBar::abandon() {
  if (!drawn_)
    return;
  std::fputc('\n', out_);
  std::fflush(out_);
  drawn_ = false;
}

} // namespace chunked::runtime
