// SPDX-License-Identifier: Apache-2.0
// Zarr fill values: JSON to element bytes and back.
#include "io/zarr_meta.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace chunked::io {

namespace {
template <class T> std::array<unsigned char, 8> bytes_of(T v) {
  std::array<unsigned char, 8> out{};
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}
template <class T> T value_of(const std::array<unsigned char, 8>& b) {
  T v;
  std::memcpy(&v, b.data(), sizeof(T));
  return v;
}

/// The double of a float fill value spelled as a string.
double special_float(const std::string& s, DType dtype, const std::string& where) {
  if (s == "NaN")
    return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity")
    return std::numeric_limits<double>::infinity();
  if (s == "-Infinity")
    return -std::numeric_limits<double>::infinity();
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { // v3: the raw bits
    std::uint64_t bits = 0;
    const auto r = std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size())
      bad_metadata(where, "fill_value \"" + s + "\" is not a hexadecimal bit pattern");
    return dtype == DType::float32
               ? static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)))
               : std::bit_cast<double>(bits);
  }
  bad_metadata(where,
               "fill_value \"" + s + "\" is not a number, \"NaN\", \"Infinity\" or \"-Infinity\"");
}
} // namespace

std::array<unsigned char, 8> fill_bytes(double value, DType dtype) {
  return visit_dtype(dtype, [&](auto t) { return bytes_of(static_cast<decltype(t)>(value)); });
}

std::array<unsigned char, 8> parse_fill_value(const Json& json, DType dtype,
                                              const std::string& where) {
  if (dtype == DType::bool_) {
    if (json.is_bool())
      return bytes_of(json.as_bool("fill_value"));
    if (json.is_int())
      return bytes_of(json.as_int("fill_value") != 0);
    bad_metadata(where,
                 "fill_value of a bool array must be true or false, not " + json.type_name());
  }
  if (is_integral(dtype)) {
    if (!json.is_int())
      bad_metadata(where,
                   "fill_value of an integer array must be an integer, not " + json.type_name());
    const std::int64_t v = json.as_int("fill_value");
    if (dtype == DType::int32) {
      if (v < std::numeric_limits<std::int32_t>::min() ||
          v > std::numeric_limits<std::int32_t>::max())
        bad_metadata(where, "fill_value " + std::to_string(v) + " does not fit int32");
      return bytes_of(static_cast<std::int32_t>(v));
    }
    return bytes_of(v);
  }
  double d = 0;
  if (json.is_string())
    d = special_float(json.as_string("fill_value"), dtype, where);
  else if (json.is_number())
    d = json.as_double("fill_value");
  else
    bad_metadata(where, "fill_value of a float array must be a number or \"NaN\", not " +
                            json.type_name());
  return fill_bytes(d, dtype);
}

Json fill_value_json(const std::array<unsigned char, 8>& fill, DType dtype) {
  switch (dtype) {
  case DType::bool_:
    return Json(value_of<bool>(fill));
  case DType::int32:
    return Json(static_cast<std::int64_t>(value_of<std::int32_t>(fill)));
  case DType::int64:
    return Json(value_of<std::int64_t>(fill));
  default:
    break;
  }
  const double d =
      dtype == DType::float32 ? static_cast<double>(value_of<float>(fill)) : value_of<double>(fill);
  if (std::isnan(d))
    return Json("NaN");
  if (std::isinf(d))
    return Json(d < 0 ? "-Infinity" : "Infinity");
  return Json(d);
}

} // namespace chunked::io
