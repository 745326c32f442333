// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the benchmark drivers: argument parsing, machine description, JSON, medians.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace chunked::bench {

inline std::int64_t parse_int(std::string_view flag, std::string_view text, std::int64_t min) {
  try {
    std::size_t used = 0;
    const std::int64_t v = std::stoll(std::string(text), &used);
    if (used == text.size() && v >= min)
      return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(
      fmt::format("{} expects an integer >= {}, got '{}'", flag, min, text));
}

inline double parse_positive(std::string_view flag, std::string_view text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(std::string(text), &used);
    if (used == text.size() && v > 0)
      return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(fmt::format("{} expects a positive number, got '{}'", flag, text));
}

inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos)
        return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

inline std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

inline std::string json_escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\')
      out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20)
      out += fmt::format("\\u{:04x}", static_cast<int>(ch));
    else
      out += ch;
  }
  return out;
}

/// A JSON array of numbers.
inline std::string json_list(const std::vector<double>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    out += fmt::format("{}{:.6g}", i ? ", " : "", v[i]);
  return out + "]";
}

inline double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Seconds of wall time of one call of f (every compute call returns after its work is done,
/// GPU work included, so a host clock times it correctly).
template <class F> double seconds_of(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Element i of the arrays the drivers store: varied values near 1, periodic so that sums have a
/// closed form (see pattern_sum).
inline double pattern_value(std::int64_t i) { return 1.0 + static_cast<double>(i % 977) * 1e-3; }

/// The exact sum of pattern_value(i) for i in [0, n), rounded once.
inline double pattern_sum(std::int64_t n) {
  const std::int64_t q = n / 977, r = n % 977;
  const std::int64_t residues = q * (976 * 977 / 2) + r * (r - 1) / 2;
  return static_cast<double>(n) + 1e-3 * static_cast<double>(residues);
}

} // namespace chunked::bench
