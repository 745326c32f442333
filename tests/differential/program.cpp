// SPDX-License-Identifier: Apache-2.0
// Reading the programs gen_programs.py writes.
#include "program.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace chunked::differential {

namespace {

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;)
    words.push_back(w);
  return words;
}

[[noreturn]] void malformed(const std::string& line, const std::string& why) {
  throw std::runtime_error("differential: malformed program line '" + line + "': " + why);
}

/// The words after the first, which must be `keyword`.
std::vector<std::string> after(const std::string& line, const std::string& keyword) {
  auto words = split(line);
  if (words.empty() || words[0] != keyword)
    malformed(line, "expected '" + keyword + " ...'");
  words.erase(words.begin());
  return words;
}

Check read_check(std::istream& in, const std::string& line, std::string& text) {
  const auto words = after(line, "check");
  if (words.size() < 4)
    malformed(line, "expected 'check NAME DTYPE SHAPE MODE'");
  Check c;
  c.name = words[0];
  c.dtype = words[1];
  c.shape = parse_extents(words[2]);
  if (words[3] == "exact") {
    c.mode = Tolerance::exact;
  } else if (words[3] == "ulp" && words.size() == 5) {
    c.mode = Tolerance::ulp;
    c.ulps = std::stoll(words[4]);
  } else if (words[3] == "abs") {
    c.mode = Tolerance::abs;
  } else {
    malformed(line, "unknown tolerance '" + words[3] + "'");
  }
  std::string next;
  if (!std::getline(in, next))
    malformed(line, "no values follow");
  text += next + "\n";
  if (c.mode == Tolerance::abs) {
    for (const auto& t : after(next, "tolerance"))
      c.tolerance.push_back(std::strtod(t.c_str(), nullptr)); // stod rejects subnormals
    if (!std::getline(in, next))
      malformed(line, "no values follow");
    text += next + "\n";
  }
  c.values = after(next, "values");
  return c;
}

} // namespace

std::vector<index_t> parse_extents(const std::string& text) {
  std::vector<index_t> out;
  if (text == "-")
    return out;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    out.push_back(std::stoll(part));
  return out;
}

bool read_program(std::istream& in, Program& program) {
  program = Program{};
  std::string line;
  while (std::getline(in, line) && line.empty()) {
  }
  if (!in)
    return false;
  const auto head = after(line, "program");
  if (head.size() != 3 || head[1] != "tags")
    malformed(line, "expected 'program ID tags TAGS'");
  program.id = std::stoll(head[0]);
  program.tags = head[2];
  program.text = line + "\n";
  while (std::getline(in, line)) {
    program.text += line + "\n";
    const auto words = split(line);
    if (words.empty())
      continue;
    if (words[0] == "end")
      return true;
    if (words[0] == "error") {
      if (words.size() != 3 || program.statements.empty() ||
          program.statements.back().name != words[1])
        malformed(line, "an error must follow the statement it names");
      program.statements.back().error = words[2];
    } else if (words[0] == "check") {
      program.checks.push_back(read_check(in, line, program.text));
    } else {
      if (words.size() < 3 || words[1] != "=")
        malformed(line, "expected 'NAME = OP ARGS...'");
      Statement s;
      s.name = words[0];
      s.op = words[2];
      s.args.assign(words.begin() + 3, words.end());
      s.text = line;
      program.statements.push_back(std::move(s));
    }
  }
  throw std::runtime_error("differential: program " + std::to_string(program.id) +
                           " has no 'end' line");
}

} // namespace chunked::differential
