// SPDX-License-Identifier: Apache-2.0
// The header of a NumPy .npy file (format versions 1.0, 2.0 and 3.0): parsing and writing.
#pragma once

#include "io/dtype_codes.hpp"

#include <chunked/core/shape.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace chunked::io {

/// What an npy header says: the stored type, the layout, the shape and where the data starts.
struct NpyHeader {
  StoredType type;
  bool fortran_order = false;
  Shape shape;
  /// Byte offset of the first element in the file.
  std::uint64_t data_offset = 0;
  int major = 1;
};

/// Reads the header from the start of an npy file (`bytes` holds at least the whole header, or
/// the whole file when shorter). chunked::Error naming `where` when it is not an npy header;
/// ValueError for a dtype chunked does not have.
NpyHeader parse_npy_header(std::string_view bytes, std::string_view where);
/// Bytes to read from a file's start to parse its header: the fixed prefix gives the length.
/// chunked::Error naming `where` when `prefix` (the first 12 bytes or fewer) is not npy.
std::uint64_t npy_header_size(std::string_view prefix, std::string_view where);

/// The header NumPy writes for a C-order little-endian array: version 1.0 (2.0 when it does not
/// fit 1.0's 16-bit length), the dict in NumPy's key order and padding, data aligned to 64 bytes.
std::string format_npy_header(DType dtype, const Shape& shape);

} // namespace chunked::io
