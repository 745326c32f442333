// SPDX-License-Identifier: Apache-2.0
// The JSON reader and writer of storage metadata.
#include "io/json.hpp"

#include <chunked/core/error.hpp>

#include <charconv>
#include <cmath>
#include <limits>

namespace chunked::io {

namespace {

/// A recursive-descent reader over one text; errors name the byte offset.
class Reader {
public:
  explicit Reader(std::string_view text) : s_(text) {}

  Json document() {
    Json v = value(0);
    skip_space();
    if (pos_ != s_.size())
      fail("the end of the text after the value");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string& expected) const {
    std::string found = pos_ < s_.size() ? "'" + std::string(1, s_[pos_]) + "'" : "the end";
    throw ValueError("invalid JSON at offset " + std::to_string(pos_) + ": expected " + expected +
                     ", found " + found);
  }

  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  bool take(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }

  Json value(int depth) {
    if (depth > 512)
      fail("at most 512 nested arrays and objects");
    skip_space();
    if (pos_ >= s_.size())
      fail("a value");
    const char c = s_[pos_];
    if (c == '{')
      return object(depth);
    if (c == '[')
      return array(depth);
    if (c == '"')
      return Json(string());
    if (take("true"))
      return Json(true);
    if (take("false"))
      return Json(false);
    if (take("null"))
      return Json();
    if (take("NaN"))
      return Json(std::numeric_limits<double>::quiet_NaN());
    if (take("Infinity"))
      return Json(std::numeric_limits<double>::infinity());
    if (take("-Infinity"))
      return Json(-std::numeric_limits<double>::infinity());
    if (c == '-' || (c >= '0' && c <= '9'))
      return number();
    fail("a value");
  }

  Json object(int depth) {
    ++pos_;
    Json::Object members;
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return Json(std::move(members));
    }
    while (true) {
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '"')
        fail("a string key");
      std::string key = string();
      skip_space();
      if (!take(":"))
        fail("':'");
      members.emplace_back(std::move(key), value(depth + 1));
      skip_space();
      if (take("}"))
        return Json(std::move(members));
      if (!take(","))
        fail("',' or '}'");
    }
  }

  Json array(int depth) {
    ++pos_;
    Json::Array items;
    skip_space();
    if (take("]"))
      return Json(std::move(items));
    while (true) {
      items.push_back(value(depth + 1));
      skip_space();
      if (take("]"))
        return Json(std::move(items));
      if (!take(","))
        fail("',' or ']'");
    }
  }

  unsigned hex4() {
    if (pos_ + 4 > s_.size())
      fail("four hexadecimal digits");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<unsigned>(c - 'A' + 10);
      else
        fail("a hexadecimal digit");
      ++pos_;
    }
    return v;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  void escape(std::string& out) {
    if (pos_ >= s_.size())
      fail("an escaped character");
    const char c = s_[pos_++];
    switch (c) {
    case '"':
    case '\\':
    case '/':
      out += c;
      return;
    case 'b':
      out += '\b';
      return;
    case 'f':
      out += '\f';
      return;
    case 'n':
      out += '\n';
      return;
    case 'r':
      out += '\r';
      return;
    case 't':
      out += '\t';
      return;
    case 'u':
      break;
    default:
      --pos_;
      fail("one of \" \\ / b f n r t u after '\\'");
    }
    unsigned cp = hex4();
    if (cp >= 0xD800 && cp < 0xDC00) { // a high surrogate: its low half must follow
      if (!take("\\u"))
        fail("the low surrogate '\\u' of a surrogate pair");
      const unsigned low = hex4();
      if (low < 0xDC00 || low >= 0xE000) {
        pos_ -= 4;
        fail("a low surrogate (DC00-DFFF)");
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp < 0xE000) {
      pos_ -= 4;
      fail("a high surrogate before a low one");
    }
    append_utf8(out, cp);
  }

  std::string string() {
    ++pos_; // the opening quote
    std::string out;
    while (true) {
      if (pos_ >= s_.size())
        fail("the closing '\"' of a string");
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        fail("an escaped control character in a string");
      ++pos_;
      if (c == '\\')
        escape(out);
      else
        out += c;
    }
  }

  Json number() {
    const std::size_t start = pos_;
    bool integral = true;
    if (s_[pos_] == '-')
      ++pos_;
    auto digits = [&] {
      const std::size_t from = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')
        ++pos_;
      if (pos_ == from)
        fail("a digit");
    };
    if (pos_ < s_.size() && s_[pos_] == '0')
      ++pos_;
    else
      digits();
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      integral = false;
      digits();
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      integral = false;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-'))
        ++pos_;
      digits();
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    if (integral) {
      std::int64_t i = 0;
      const auto r = std::from_chars(first, last, i);
      if (r.ec == std::errc() && r.ptr == last)
        return Json(i);
    }
    double d = 0;
    const auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc::result_out_of_range) // beyond double's range: +-inf, as Python reads it
      return Json(*first == '-' ? -std::numeric_limits<double>::infinity()
                                : std::numeric_limits<double>::infinity());
    if (r.ec != std::errc() || r.ptr != last) {
      pos_ = start;
      fail("a number");
    }
    return Json(d);
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

void dump_string(std::string& out, const std::string& s) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20) {
      out += "\\u00";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

void dump_double(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "NaN";
    return;
  }
  if (std::isinf(d)) {
    out += d < 0 ? "-Infinity" : "Infinity";
    return;
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  out += s;
}

void newline(std::string& out, int indent, int depth) {
  if (indent <= 0)
    return;
  out += '\n';
  out.append(static_cast<std::size_t>(indent) * static_cast<std::size_t>(depth), ' ');
}

} // namespace

Json Json::parse(std::string_view text) { return Reader(text).document(); }

std::string Json::type_name() const {
  static constexpr const char* names[] = {"null",     "a boolean", "an integer", "a number",
                                          "a string", "an array",  "an object"};
  return names[v_.index()];
}

namespace {
[[noreturn]] void wrong_type(std::string_view what, const char* expected, const Json& j) {
  throw ValueError(std::string(what) + " must be " + expected + ", not " + j.type_name());
}
} // namespace

bool Json::as_bool(std::string_view what) const {
  if (!is_bool())
    wrong_type(what, "a boolean", *this);
  return std::get<bool>(v_);
}
std::int64_t Json::as_int(std::string_view what) const {
  if (!is_int())
    wrong_type(what, "an integer", *this);
  return std::get<std::int64_t>(v_);
}
double Json::as_double(std::string_view what) const {
  if (is_int())
    return static_cast<double>(std::get<std::int64_t>(v_));
  if (!is_double())
    wrong_type(what, "a number", *this);
  return std::get<double>(v_);
}
const std::string& Json::as_string(std::string_view what) const {
  if (!is_string())
    wrong_type(what, "a string", *this);
  return std::get<std::string>(v_);
}
const Json::Array& Json::as_array(std::string_view what) const {
  if (!is_array())
    wrong_type(what, "an array", *this);
  return *std::get<std::shared_ptr<Array>>(v_);
}
const Json::Object& Json::as_object(std::string_view what) const {
  if (!is_object())
    wrong_type(what, "an object", *this);
  return *std::get<std::shared_ptr<Object>>(v_);
}

const Json* Json::find(std::string_view key) const {
  if (!is_object())
    return nullptr;
  for (const auto& [k, v] : *std::get<std::shared_ptr<Object>>(v_))
    if (k == key)
      return &v;
  return nullptr;
}

void Json::set(const std::string& key, Json value) {
  if (!is_object())
    v_ = std::make_shared<Object>();
  auto& shared = std::get<std::shared_ptr<Object>>(v_);
  if (shared.use_count() > 1) // copies share their members: write to a copy of our own
    shared = std::make_shared<Object>(*shared);
  for (auto& [k, v] : *shared)
    if (k == key) {
      v = std::move(value);
      return;
    }
  shared->emplace_back(key, std::move(value));
}

std::string Json::dump(int indent) const {
  std::string out;
  dump_to(out, indent, 0);
  return out;
}

void Json::dump_to(std::string& out, int indent, int depth) const {
  switch (v_.index()) {
  case 0:
    out += "null";
    return;
  case 1:
    out += std::get<bool>(v_) ? "true" : "false";
    return;
  case 2:
    out += std::to_string(std::get<std::int64_t>(v_));
    return;
  case 3:
    dump_double(out, std::get<double>(v_));
    return;
  case 4:
    dump_string(out, std::get<std::string>(v_));
    return;
  case 5: {
    const auto& a = *std::get<std::shared_ptr<Array>>(v_);
    out += '[';
    for (std::size_t i = 0; i < a.size(); ++i) {
      out += i ? (indent > 0 ? "," : ", ") : "";
      newline(out, indent, depth + 1);
      a[i].dump_to(out, indent, depth + 1);
    }
    if (!a.empty())
      newline(out, indent, depth);
    out += ']';
    return;
  }
  default: {
    const auto& o = *std::get<std::shared_ptr<Object>>(v_);
    out += '{';
    for (std::size_t i = 0; i < o.size(); ++i) {
      out += i ? (indent > 0 ? "," : ", ") : "";
      newline(out, indent, depth + 1);
      dump_string(out, o[i].first);
      out += ": ";
      o[i].second.dump_to(out, indent, depth + 1);
    }
    if (!o.empty())
      newline(out, indent, depth);
    out += '}';
  }
  }
}

} // namespace chunked::io
