// SPDX-License-Identifier: Apache-2.0
// The terminal progress bar drawn on stderr when ComputeOptions::progress_bar is set.
#pragma once

#include <chunked/runtime/progress.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace chunked::runtime {

/// One progress line of exactly `width` characters (for `width >= 1`), for example
/// `[#######.............]  35%  350/1000 blocks  1.21 GB/s  elapsed 12.0s  ETA 22.3s`.
/// The bar takes the room the text leaves; on narrow widths it is dropped and the text is cut.
std::string format_progress_line(const Progress& progress, int width);

/// A byte count with a decimal unit and three significant digits: "512 B", "1.21 kB", "34.5 GB".
std::string format_bytes(double bytes);

/// A duration for humans: "12.3s", "4m05s", "2h07m".
std::string format_duration(double seconds);

/// The widest line a ProgressBar draws: a wider one says nothing more, and a bound keeps a stray
/// `COLUMNS=2147483647` from making every redraw write gigabytes.
inline constexpr int max_terminal_width = 1000;

/// Redraws one line with '\r'. Not thread-safe: ProgressReporter serializes the calls.
class ProgressBar {
public:
  /// Draws on `out`, `width` characters wide (at most `max_terminal_width`); `width <= 0` uses
  /// the terminal's width minus one, so the cursor never wraps. The terminal's width is `$COLUMNS`
  /// when that is a positive decimal number, else what the terminal reports, else 80.
  explicit ProgressBar(std::FILE* out = stderr, int width = 0);

  /// Characters per drawn line.
  int width() const { return width_; }

  /// Redraws the line.
  void draw(const Progress& progress);
  /// Draws the line a last time and ends it with a newline.
  void finish(const Progress& progress);
  /// Ends the line if anything was drawn, leaving it as it was.
  void abandon();

private:
  std::FILE* out_;
  int width_;
  bool drawn_ = false;
};

} // namespace chunked::runtime
