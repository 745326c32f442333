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

/// Redraws one line with '\r'. Not thread-safe: ProgressReporter serializes the calls.
class ProgressBar {
public:
  /// Draws on `out`, `width` characters wide; `width <= 0` uses the terminal's width (from
  /// `$COLUMNS` or the terminal itself, else 80) minus one, so the cursor never wraps.
  explicit ProgressBar(std::FILE* out = stderr, int width = 0);

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
