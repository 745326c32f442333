// SPDX-License-Identifier: Apache-2.0
// Runs the programs gen_programs.py wrote through chunked and compares every checked value with
// NumPy's (tests/differential/run.sh drives both).
//
//   chunked-differential-runner PROGRAMS [--backends cpu,auto] [--auto-programs N]
//                               [--extra-ulps N] [--max-reports N]
//
// --auto-programs runs only the first N programs on Auto: with a GPU, Auto compiles a kernel for
// each fused program with NVRTC (cached on disk), which costs far more than running it.
//
// Exits 0 when every program matches, 1 when some do not (each reported with its text), 2 on
// bad usage or input.
#include "values.hpp"

#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace chunked::differential {
namespace {

struct Options {
  std::string path;
  bool cpu = true;
  bool automatic = true;
  long auto_programs = -1; // all
  std::int64_t extra_ulps = 0;
  int max_reports = 10;
  bool exact_sums = false; ///< ComputeOptions::exact_sums for every check
};

/// What was expected of a statement that must raise, against what was thrown.
bool error_matches(const std::string& expected, const Error& e) {
  if (expected == "ShapeError")
    return dynamic_cast<const ShapeError*>(&e) != nullptr;
  if (expected == "IndexError")
    return dynamic_cast<const IndexError*>(&e) != nullptr;
  if (expected == "ValueError")
    return dynamic_cast<const ValueError*>(&e) != nullptr;
  return expected == "Error";
}

/// CUDA's math functions are documented within 4 ulp, the C library's within 2: the programs'
/// ulp tolerances assume the latter.
constexpr std::int64_t gpu_extra_ulps = 2;

/// Runs one program on backend B, allowing `extra_ulps` beyond the programs' ulp tolerances;
/// returns what went wrong, or an empty string.
template <class B> std::string run(const Program& p, const Options& o, std::int64_t extra_ulps) {
  Values<B> values;
  std::ostringstream problems;
  for (const Statement& s : p.statements) {
    try {
      Value<B> v = evaluate<B>(s, values);
      if (s.error) {
        problems << "  " << s.text << ": chunked raised nothing, NumPy " << *s.error << "\n";
        continue;
      }
      values.insert_or_assign(s.name, std::move(v));
    } catch (const ProgramError&) {
      throw;
    } catch (const Error& e) {
      if (!s.error || !error_matches(*s.error, e))
        problems << "  " << s.text << ": chunked raised '" << e.what() << "'"
                 << (s.error ? ", NumPy " + *s.error : std::string(", NumPy nothing")) << "\n";
    }
  }
  ComputeOptions options;
  options.exact_sums = o.exact_sums;
  for (const Check& c : p.checks) {
    const auto it = values.find(c.name);
    if (it == values.end())
      continue; // its statement already failed above
    try {
      if (const std::string d = compare<B>(it->second, c, options, o.extra_ulps + extra_ulps);
          !d.empty())
        problems << "  " << c.name << ": " << d << "\n";
    } catch (const Error& e) {
      problems << "  " << c.name << ": compute() raised '" << e.what() << "'\n";
    }
  }
  return problems.str();
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw ProgramError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--backends") {
      const std::string b = value();
      o.cpu = b.find("cpu") != std::string::npos;
      o.automatic = b.find("auto") != std::string::npos;
    } else if (a == "--auto-programs") {
      o.auto_programs = std::stol(value());
    } else if (a == "--extra-ulps") {
      o.extra_ulps = std::stoll(value());
    } else if (a == "--exact-sums") {
      o.exact_sums = true;
    } else if (a == "--max-reports") {
      o.max_reports = std::stoi(value());
    } else if (o.path.empty() && !a.starts_with("--")) {
      o.path = a;
    } else {
      throw ProgramError("unknown argument " + a);
    }
  }
  if (o.path.empty() || !(o.cpu || o.automatic))
    throw ProgramError("usage: chunked-differential-runner PROGRAMS [--backends cpu,auto] "
                       "[--auto-programs N] [--extra-ulps N] [--max-reports N] [--exact-sums]");
  return o;
}

int main_checked(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::ifstream in(o.path);
  if (!in)
    throw ProgramError("cannot read " + o.path);
  int programs = 0, failed = 0;
  std::map<std::string, int> failed_tags;
  for (Program p; read_program(in, p);) {
    ++programs;
    std::string problems;
    try {
      if (o.cpu)
        if (const auto d = run<Cpu>(p, o, 0); !d.empty())
          problems += " on Cpu:\n" + d;
      if (o.automatic && (o.auto_programs < 0 || programs <= o.auto_programs))
        if (const auto d = run<Auto>(p, o, cuda_available() ? gpu_extra_ulps : 0); !d.empty())
          problems += " on Auto:\n" + d;
    } catch (const ProgramError& e) {
      throw ProgramError("program " + std::to_string(p.id) + ": " + e.what() + "\n" + p.text);
    }
    if (problems.empty())
      continue;
    ++failed;
    ++failed_tags[p.tags];
    if (failed <= o.max_reports)
      std::cout << "program " << p.id << " differs from NumPy" << problems << p.text << "\n";
  }
  if (failed == 0) {
    std::cout << "differential: " << programs << " programs match NumPy\n";
    return 0;
  }
  std::cout << "differential: " << failed << " of " << programs
            << " programs differ from NumPy; by tags:\n";
  for (const auto& [tags, n] : failed_tags)
    std::cout << "  " << n << "  " << tags << "\n";
  return 1;
}

} // namespace
} // namespace chunked::differential

int main(int argc, char** argv) {
  try {
    return chunked::differential::main_checked(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "differential: " << e.what() << "\n";
    return 2;
  }
}
