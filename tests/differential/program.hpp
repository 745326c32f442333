// SPDX-License-Identifier: Apache-2.0
// A differential-test program as gen_programs.py writes it: statements that make arrays, the
// errors some of them must raise, and the values NumPy computed for them.
#pragma once

#include <chunked/core/types.hpp>

#include <cstdint>
#include <cstdlib>
#include <istream>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace chunked::differential {

/// `vK = OP ARGS...`, optionally followed by `error vK CLASS`: building vK must raise CLASS
/// (ShapeError, IndexError, ValueError, or Error for any chunked::Error).
struct Statement {
  std::string name;
  std::string op;
  std::vector<std::string> args;
  std::optional<std::string> error;
  std::string text; ///< the line as written, for reports
};

/// How closely chunked's values must match NumPy's (numpy_model.py explains each).
enum class Tolerance { exact, ulp, abs };

/// `check vK DTYPE SHAPE MODE`, then `tolerance ...` for abs, then `values ...`.
struct Check {
  std::string name;
  std::string dtype;
  std::vector<index_t> shape;
  Tolerance mode = Tolerance::exact;
  std::int64_t ulps = 0;
  std::vector<double> tolerance; ///< per element, for Tolerance::abs
  std::vector<std::string> values;
};

struct Program {
  std::int64_t id = -1;
  std::string tags; ///< comma-separated, "-" for none
  std::vector<Statement> statements;
  std::vector<Check> checks;
  std::string text; ///< the program as written, for reports
};

/// Reads the next program; false at the end of the input. Throws std::runtime_error naming the
/// line on malformed input.
bool read_program(std::istream& in, Program& program);

/// "2,3" -> {2, 3}; "-" -> {} (rank 0).
std::vector<index_t> parse_extents(const std::string& text);

/// A number as the generator writes it (a value of an array or of a check), converted to T.
template <class T> T parse_number(const std::string& text) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(std::strtod(text.c_str(), nullptr));
  else if constexpr (std::is_same_v<T, bool>)
    return text != "0";
  else
    return static_cast<T>(std::strtoll(text.c_str(), nullptr, 10));
}

} // namespace chunked::differential
