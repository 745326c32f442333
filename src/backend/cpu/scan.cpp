// SPDX-License-Identifier: Apache-2.0
// The CPU's block scan (scan.hpp). Along the last axis each row is a sequential loop; along any
// other axis whole rows are combined elementwise, contiguous and vectorised, a tile of columns
// at a time so that the running row stays in L1. Both loops compute every element as
// carry (+) (x_0 (+) x_1 (+) ... (+) x_i) folded left to right, so vectorising changes nothing.
#include "backend/cpu/scan.hpp"

#include "backend/cpu/exact_scan.hpp"

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

/// Rows scanned together along the last axis: each row's running value is a chain of dependent
/// adds or multiplies, so interleaving independent rows hides their latency. Each row is still
/// folded in its own index order, so the bits do not depend on the grouping.
constexpr index_t interleaved_rows = 4;

/// Along the last axis: rows [o0, o0 + R) of `length` values each, with their carries.
template <Op O, class T, index_t R>
void scan_row_group(const plan::ScanBlock& b, index_t o0, const T* in, const T* carry, T* out) {
  T s[R], c[R];
  for (index_t r = 0; r < R; ++r) {
    const index_t o = o0 + r;
    s[r] = in[o * b.length];
    if (carry)
      c[r] = carry[o * b.carry_length + b.carry_length - 1];
    out[o * b.length] = carry ? combine<O>(c[r], s[r]) : s[r];
  }
  for (index_t i = 1; i < b.length; ++i)
    for (index_t r = 0; r < R; ++r) {
      const index_t at = (o0 + r) * b.length + i;
      s[r] = combine<O>(s[r], in[at]);
      out[at] = carry ? combine<O>(c[r], s[r]) : s[r];
    }
}

template <Op O, class T>
void scan_rows(const plan::ScanBlock& b, const T* in, const T* carry, T* out) {
  index_t o = 0;
  for (; o + interleaved_rows <= b.outer; o += interleaved_rows)
    scan_row_group<O, T, interleaved_rows>(b, o, in, carry, out);
  for (; o < b.outer; ++o)
    scan_row_group<O, T, 1>(b, o, in, carry, out);
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
  if (op == Op::exact_sum)
    return exact_scan_block(dtype, b, in, carry, out);
  if (b.size() == 0)
    return;
  if (op == Op::sum)
    scan_dtype<Op::sum>(dtype, b, in, carry, out);
  else
    scan_dtype<Op::prod>(dtype, b, in, carry, out);
}

} // namespace chunked::cpu
