// SPDX-License-Identifier: Apache-2.0
// Parsing and writing npy headers: a magic string, a version, a length, and a Python dict literal.
#include "io/npy_header.hpp"

#include <chunked/core/error.hpp>

#include <cstring>
#include <vector>

namespace chunked::io {

namespace {

constexpr std::string_view magic = "\x93NUMPY";
constexpr std::size_t array_align = 64;
// NumPy leaves room for the growth axis to take this many digits (numpy.lib.format).
constexpr std::size_t growth_axis_max_digits = 21;

[[noreturn]] void bad(std::string_view where, const std::string& what) {
  throw Error(std::string(where) + ": not a valid npy file: " + what);
}

/// Reads the dict literal NumPy writes: {'descr': '<f8', 'fortran_order': False, 'shape': (3,)}.
class DictReader {
public:
  DictReader(std::string_view text, std::string_view where) : s_(text), where_(where) {}

  NpyHeader read() {
    NpyHeader h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      space();
      if (peek() == '}')
        break;
      const std::string key = quoted();
      space();
      expect(':');
      space();
      if (key == "descr") {
        h.type = parse_numpy_type(quoted(), where_);
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        have_order = true;
      } else if (key == "shape") {
        h.shape = Shape(tuple());
        have_shape = true;
      } else {
        bad(where_, "unexpected key '" + key + "' in the header");
      }
      space();
      if (peek() == ',')
        ++pos_;
    }
    if (!have_descr || !have_order || !have_shape)
      bad(where_, "the header lacks 'descr', 'fortran_order' or 'shape'");
    return h;
  }

private:
  char peek() const {
    if (pos_ >= s_.size())
      bad(where_, "the header dict ends early");
    return s_[pos_];
  }
  void space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t'))
      ++pos_;
  }
  void expect(char c) {
    if (peek() != c)
      bad(where_, std::string("expected '") + c + "' at header offset " + std::to_string(pos_));
    ++pos_;
  }
  std::string quoted() {
    const char q = peek();
    if (q != '\'' && q != '"')
      bad(where_, "expected a quoted string at header offset " + std::to_string(pos_));
    const std::size_t end = s_.find(q, pos_ + 1);
    if (end == std::string_view::npos)
      bad(where_, "unterminated string in the header");
    std::string out(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    bad(where_, "'fortran_order' must be True or False");
  }
  std::vector<index_t> tuple() {
    std::vector<index_t> out;
    expect('(');
    while (true) {
      space();
      if (peek() == ')') {
        ++pos_;
        return out;
      }
      index_t v = 0;
      const std::size_t start = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        if (v > (INT64_MAX - 9) / 10)
          bad(where_, "a shape extent is too large");
        v = v * 10 + (s_[pos_++] - '0');
      }
      if (pos_ == start)
        bad(where_, "expected a non-negative integer in 'shape'");
      if (pos_ < s_.size() && s_[pos_] == 'L') // Python 2's long integers
        ++pos_;
      out.push_back(v);
      space();
      if (peek() == ',')
        ++pos_;
    }
  }

  std::string_view s_;
  std::string_view where_;
  std::size_t pos_ = 0;
};

std::uint32_t read_le(std::string_view bytes, std::size_t at, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

} // namespace

std::uint64_t npy_header_size(std::string_view prefix, std::string_view where) {
  if (prefix.size() < 10 || prefix.substr(0, 6) != magic)
    bad(where, "the file does not start with the npy magic string");
  const int major = static_cast<unsigned char>(prefix[6]);
  if (major == 1)
    return 10 + std::uint64_t{read_le(prefix, 8, 2)};
  if (major == 2 || major == 3) {
    if (prefix.size() < 12)
      bad(where, "the file ends inside its header");
    return 12 + std::uint64_t{read_le(prefix, 8, 4)};
  }
  bad(where, "format version " + std::to_string(major) + "." +
                 std::to_string(static_cast<unsigned char>(prefix[7])) +
                 " is not one of 1.0, 2.0, 3.0");
}

NpyHeader parse_npy_header(std::string_view bytes, std::string_view where) {
  const std::uint64_t size = npy_header_size(bytes, where);
  if (bytes.size() < size)
    bad(where, "the file ends inside its header");
  const int major = static_cast<unsigned char>(bytes[6]);
  const std::size_t dict_at = major == 1 ? 10 : 12;
  NpyHeader h = DictReader(bytes.substr(dict_at, size - dict_at), where).read();
  h.data_offset = size;
  h.major = major;
  return h;
}

std::string format_npy_header(DType dtype, const Shape& shape) {
  std::string dict = "{'descr': '" + numpy_type(dtype) + "', 'fortran_order': False, 'shape': (";
  for (index_t i = 0; i < shape.ndim(); ++i)
    dict += std::to_string(shape[i]) + (i + 1 < shape.ndim() || shape.ndim() == 1 ? ", " : "");
  if (shape.ndim() == 1)
    dict.resize(dict.size() - 1); // "(5,)" as Python writes a 1-tuple
  dict += "), }";
  if (shape.ndim() > 0)
    dict.append(growth_axis_max_digits - std::to_string(shape[0]).size(), ' ');
  const std::size_t dict_len = dict.size() + 1; // with the final newline
  for (const int major : {1, 2}) {
    const std::size_t prefix = major == 1 ? 10 : 12;
    const std::size_t pad = array_align - ((prefix + dict_len) % array_align);
    const std::size_t header_len = dict_len + pad;
    if (major == 1 && header_len > 0xFFFF)
      continue;
    std::string out(magic);
    out += static_cast<char>(major);
    out += '\0';
    for (std::size_t i = 0; i < prefix - 8; ++i)
      out += static_cast<char>((header_len >> (8 * i)) & 0xFF);
    out += dict;
    out.append(pad, ' ');
    out += '\n';
    return out;
  }
  throw ValueError("npy header too long"); // unreachable: version 2.0 holds 4 GiB of header
}

} // namespace chunked::io
