// SPDX-License-Identifier: Apache-2.0
// How stored formats spell chunked's dtypes: NumPy type strings ('<f8', '|b1') for npy and Zarr
// v2, data type names ("float64") for Zarr v3.
#pragma once

#include <chunked/core/dtype.hpp>

#include <string>
#include <string_view>

namespace chunked::io {

/// A dtype with the byte order its file stores it in.
struct StoredType {
  DType dtype{};
  bool big_endian = false;
};

/// Parses a NumPy type string ('<f8', '>i4', '|b1', '=f4'...); ValueError naming it when it is
/// not one of chunked's dtypes (`where` names the file).
StoredType parse_numpy_type(std::string_view text, std::string_view where);
/// The little-endian NumPy type string of a dtype: '<f8', '<i4', '|b1'.
std::string numpy_type(DType dtype);

/// Parses a Zarr v3 data type name ("float64", "int32", "bool"); ValueError naming it otherwise.
DType parse_v3_type(std::string_view name, std::string_view where);
/// The Zarr v3 data type name of a dtype.
std::string v3_type(DType dtype);

/// ValueError unless `found` is `expected`, naming both and the file.
void check_dtype(DType found, DType expected, std::string_view where);

} // namespace chunked::io
