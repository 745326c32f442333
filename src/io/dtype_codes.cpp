// SPDX-License-Identifier: Apache-2.0
// Dtype spellings of npy, Zarr v2 and Zarr v3.
#include "io/dtype_codes.hpp"

#include "io/byte_order.hpp"

#include <chunked/core/error.hpp>

namespace chunked::io {

StoredType parse_numpy_type(std::string_view text, std::string_view where) {
  auto unknown = [&]() -> StoredType {
    throw ValueError(std::string(where) + ": dtype '" + std::string(text) +
                     "' is not supported (chunked reads bool '|b1', int32 '<i4', int64 '<i8', "
                     "float32 '<f4' and float64 '<f8', either byte order)");
  };
  if (text.size() != 3)
    return unknown();
  StoredType t;
  const char order = text[0];
  const std::string_view code = text.substr(1);
  if (order == '>')
    t.big_endian = true;
  else if (order == '<' || order == '|')
    t.big_endian = false;
  else if (order == '=')
    t.big_endian = !host_little_endian;
  else
    return unknown();
  if (code == "b1")
    t.dtype = DType::bool_;
  else if (code == "i4")
    t.dtype = DType::int32;
  else if (code == "i8")
    t.dtype = DType::int64;
  else if (code == "f4")
    t.dtype = DType::float32;
  else if (code == "f8")
    t.dtype = DType::float64;
  else
    return unknown();
  if (order == '|' && t.dtype != DType::bool_)
    return unknown(); // '|' is for types without byte order only
  return t;
}

std::string numpy_type(DType dtype) {
  switch (dtype) {
  case DType::bool_:
    return "|b1";
  case DType::int32:
    return "<i4";
  case DType::int64:
    return "<i8";
  case DType::float32:
    return "<f4";
  default:
    return "<f8";
  }
}

DType parse_v3_type(std::string_view name, std::string_view where) {
  for (const DType t : {DType::bool_, DType::int32, DType::int64, DType::float32, DType::float64})
    if (name == v3_type(t))
      return t;
  throw ValueError(std::string(where) + ": data_type \"" + std::string(name) +
                   "\" is not supported (chunked reads bool, int32, int64, float32 and float64)");
}

std::string v3_type(DType dtype) { return std::string(dtype_name(dtype)); }

void check_dtype(DType found, DType expected, std::string_view where) {
  if (found != expected)
    throw ValueError(std::string(where) + " holds " + std::string(dtype_name(found)) +
                     " elements, but " + std::string(dtype_name(expected)) +
                     " was asked for (the element type T must match the file's dtype)");
}

} // namespace chunked::io
