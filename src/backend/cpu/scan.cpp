// SPDX-License-Identifier: Apache-2.0
// The CPU's block scan (scan.hpp). Along the last axis each row is a sequential loop; along any
// other axis whole rows are combined elementwise, contiguous and vectorised, a tile of columns
// at a time so that the running row stays in L1. Both loops compute every element as
// carry (+) (x_0 (+) x_1 (+) ... (+) x_i) folded left to right, so vectorising changes nothing.
#include "backend/cpu/scan.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace chunked::cpu {

namespace {

using Op = graph::ScanParams::Op;

/// Columns of one tile when scanning along an outer axis: 4 KiB of doubles per running row.
constexpr index_t tile_columns = 512;

/// The combine of the scan in the arithmetic of T: int64 goes through uint64, which wraps as
/// NumPy's int64 does, without undefined behaviour.
template <Op O, class T> inline T combine(T a, T b) {
  if constexpr (std::is_same_v<T, std::int64_t>) {
    const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    return static_cast<T>(O == Op::sum ? ua + ub : ua * ub);
  } else {
    return O == Op::sum ? a + b : a * b;
  }
}

/// Along the last axis: row o of `length` values, its carry c (when `has_carry`).
template <Op O, class T>
void scan_rows(const plan::ScanBlock& b, const T* in, const T* carry, T* out) {
  for (index_t o = 0; o < b.outer; ++o) {
    const T* x = in + o * b.length;
    T* y = out + o * b.length;
    if (b.length == 0)
      continue;
    T s = x[0];
    if (!carry) {
      y[0] = s;
      for (index_t i = 1; i < b.length; ++i)
        y[i] = s = combine<O>(s, x[i]);
      continue;
    }
    const T c = carry[o * b.carry_length + b.carry_length - 1];
    y[0] = combine<O>(c, s);
    for (index_t i = 1; i < b.length; ++i) {
      s = combine<O>(s, x[i]);
      y[i] = combine<O>(c, s);
    }
  }
}

/// Along an outer axis: each tile of columns walks down the axis with its running row `s`.
template <Op O, class T>
void scan_columns(const plan::ScanBlock& b, const T* in, const T* carry, T* out) {
  T s[tile_columns];
  const index_t row = b.inner;
  for (index_t o = 0; o < b.outer; ++o) {
    const T* x = in + o * b.length * row;
    T* y = out + o * b.length * row;
    const T* c = carry ? carry + (o * b.carry_length + b.carry_length - 1) * row : nullptr;
    for (index_t j0 = 0; j0 < row; j0 += tile_columns) {
      const index_t w = std::min(tile_columns, row - j0);
      for (index_t i = 0; i < b.length; ++i) {
        const T* xi = x + i * row + j0;
        T* yi = y + i * row + j0;
        if (i == 0)
          std::memcpy(s, xi, static_cast<std::size_t>(w) * sizeof(T));
        else
          for (index_t j = 0; j < w; ++j)
            s[j] = combine<O>(s[j], xi[j]);
        if (c)
          for (index_t j = 0; j < w; ++j)
            yi[j] = combine<O>(c[j0 + j], s[j]);
        else
          std::memcpy(yi, s, static_cast<std::size_t>(w) * sizeof(T));
      }
    }
  }
}

template <Op O, class T>
void scan_typed(const plan::ScanBlock& b, const void* in, const void* carry, void* out) {
  const T* c = b.carry_length > 0 ? static_cast<const T*>(carry) : nullptr;
  if (b.inner == 1)
    scan_rows<O>(b, static_cast<const T*>(in), c, static_cast<T*>(out));
  else
    scan_columns<O>(b, static_cast<const T*>(in), c, static_cast<T*>(out));
}

template <Op O>
void scan_dtype(DType dtype, const plan::ScanBlock& b, const void* in, const void* carry,
                void* out) {
  switch (dtype) {
  case DType::int64:
    return scan_typed<O, std::int64_t>(b, in, carry, out);
  case DType::float32:
    return scan_typed<O, float>(b, in, carry, out);
  case DType::float64:
    return scan_typed<O, double>(b, in, carry, out);
  default:
    throw ValueError("internal: a scan of " + std::string(dtype_name(dtype)) +
                     " values; scans accumulate int64, float or double");
  }
}

} // namespace

void scan_block(Op op, DType dtype, const plan::ScanBlock& b, const void* in, const void* carry,
                void* out) {
  if (b.size() == 0)
    return;
  if (op == Op::sum)
    scan_dtype<Op::sum>(dtype, b, in, carry, out);
  else
    scan_dtype<Op::prod>(dtype, b, in, carry, out);
}

} // namespace chunked::cpu
