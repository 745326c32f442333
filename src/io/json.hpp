// SPDX-License-Identifier: Apache-2.0
// A small JSON value with a reader and a writer, for storage metadata (.zarray, zarr.json).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace chunked::io {

/// A JSON value. Integers that fit int64 stay exact; other numbers are doubles. Objects keep the
/// order of their keys, so that attributes are written back as they were given.
class Json {
public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;

  Json() = default; // null
  Json(std::nullptr_t) {}
  Json(bool b) : v_(b) {}
  Json(int i) : v_(static_cast<std::int64_t>(i)) {}
  Json(std::int64_t i) : v_(i) {}
  Json(double d) : v_(d) {}
  Json(const char* s) : v_(std::string(s)) {}
  Json(std::string s) : v_(std::move(s)) {}
  Json(Array a) : v_(std::make_shared<Array>(std::move(a))) {}
  Json(Object o) : v_(std::make_shared<Object>(std::move(o))) {}

  bool is_null() const { return v_.index() == 0; }
  bool is_bool() const { return v_.index() == 1; }
  bool is_int() const { return v_.index() == 2; }
  bool is_double() const { return v_.index() == 3; }
  bool is_number() const { return is_int() || is_double(); }
  bool is_string() const { return v_.index() == 4; }
  bool is_array() const { return v_.index() == 5; }
  bool is_object() const { return v_.index() == 6; }

  /// The value as each type; a chunked::ValueError naming `what` when it is of another type.
  bool as_bool(std::string_view what) const;
  std::int64_t as_int(std::string_view what) const;
  /// Integers convert to double.
  double as_double(std::string_view what) const;
  const std::string& as_string(std::string_view what) const;
  const Array& as_array(std::string_view what) const;
  const Object& as_object(std::string_view what) const;

  /// The member `key` of an object, or null when absent (or when this is not an object).
  const Json* find(std::string_view key) const;
  /// Appends (or replaces) a member of an object.
  void set(const std::string& key, Json value);

  /// A short name of the type for messages: "null", "a boolean", "a string"...
  std::string type_name() const;

  /// Parses RFC 8259 JSON, plus the bare tokens NaN, Infinity and -Infinity that Python's json
  /// module writes. chunked::ValueError with the offset and what was expected on bad input.
  static Json parse(std::string_view text);
  /// Serialises: `indent` > 0 pretty-prints with that many spaces. Doubles are written in the
  /// shortest form that reads back to the same bits (with ".0" so they read back as doubles);
  /// non-finite ones as NaN, Infinity, -Infinity.
  std::string dump(int indent = 0) const;

private:
  void dump_to(std::string& out, int indent, int depth) const;
  std::variant<std::monostate, bool, std::int64_t, double, std::string, std::shared_ptr<Array>,
               std::shared_ptr<Object>>
      v_;
};

} // namespace chunked::io
