// SPDX-License-Identifier: Apache-2.0
// The progress drawn on stderr when ComputeOptions::progress_bar is set: a bar redrawn on a
// terminal, a line per 10 % step in a log.
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

/// One progress line for a log, without bar, padding or newline, for example
/// `chunked: 30%  300/1000 blocks  1.21 GB/s  elapsed 12.0s  ETA 22.3s`.
std::string format_progress_log_line(const Progress& progress);

/// A byte count with a decimal unit and three significant digits: "512 B", "1.21 kB", "34.5 GB".
std::string format_bytes(double bytes);

/// A duration for humans: "12.3s", "4m05s", "2h07m".
std::string format_duration(double seconds);

/// The widest line a ProgressBar draws: a wider one says nothing more, and a bound keeps a stray
/// `COLUMNS=2147483647` from making every redraw write gigabytes.
inline constexpr int max_terminal_width = 1000;

/// How a ProgressBar writes.
enum class ProgressBarMode : std::uint8_t {
  automatic, ///< `terminal` where the stream is a terminal, else `log`
  /// Redraws one line with '\r', whenever its text changes.
  terminal,
  /// A line per 10 % step the progress crosses and nothing else, so that a log file or a pipe
  /// gets at most 11 lines per computation and no '\r' redraws to garble it.
  log,
};

/// Draws progress on a stream, as ProgressBarMode says. Not thread-safe: ProgressReporter
/// serializes the calls.
class ProgressBar {
public:
  /// Draws on `out`, `width` characters wide (at most `max_terminal_width`); `width <= 0` uses
  /// the terminal's width minus one, so the cursor never wraps. The terminal's width is `$COLUMNS`
  /// when that is a positive decimal number, else what the terminal reports, else 80. Log lines
  /// take the room their text needs.
  explicit ProgressBar(std::FILE* out = stderr, int width = 0,
                       ProgressBarMode mode = ProgressBarMode::automatic);

  /// Characters per drawn line.
  int width() const { return width_; }
  /// The mode in use: never `automatic`.
  ProgressBarMode mode() const { return mode_; }

  /// Redraws the line (terminal), or writes one if a new 10 % step was reached (log).
  void draw(const Progress& progress);
  /// Draws the line a last time and ends it with a newline (terminal), or writes the final line
  /// unless its 100 % line was written already (log).
  void finish(const Progress& progress);
  /// Ends the line if anything was drawn, leaving it as it was (terminal); nothing (log).
  void abandon();

private:
  void write(const std::string& text);

  std::FILE* out_;
  int width_;
  ProgressBarMode mode_;
  /// Terminal: the line on screen, "" when none; a redraw of the same text would only flicker.
  std::string drawn_;
  /// Log: the highest 10 % step written (1 to 10), 0 before the first line.
  int logged_step_ = 0;
};

} // namespace chunked::runtime
