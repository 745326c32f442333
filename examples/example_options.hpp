// SPDX-License-Identifier: Apache-2.0
// What the examples share: reading "--name value" options from the command line. It is not part
// of chunked; it lives here so that each example reads as the library code it shows.
#pragma once

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

namespace example {

/// Parses `text` as a positive integer, the whole of it, into `out`; false for anything else.
inline bool parse_positive(std::string_view text, std::int64_t& out) {
  try {
    std::size_t used = 0;
    const std::string s(text);
    const long long value = std::stoll(s, &used);
    if (used != s.size() || value <= 0)
      return false;
    out = value;
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

/// Reads the arguments as "--name value" pairs, handing each to take(name, value), which says
/// whether it took it. Prints `usage` and returns 0 for --help or -h (to stdout) and 2 for a name
/// without a value or one that take refused (to stderr); returns -1 when it took every pair.
template <class Take> int parse_options(int argc, char** argv, const char* usage, Take take) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view name = argv[i];
    if (name == "--help" || name == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
    if (i + 1 >= argc || !take(name, std::string_view(argv[i + 1]))) {
      std::fputs(usage, stderr);
      return 2;
    }
    ++i;
  }
  return -1;
}

} // namespace example
