// SPDX-License-Identifier: Apache-2.0
// fmt formatters for Shape, Chunks, ChunkGrid, NDArray (values, truncated like NumPy) and
// ChunkedArray (a summary; formatting never computes). The only public header that includes fmt;
// <chunked/chunked.hpp> includes it for host compilers, and a .cu file includes it itself.
#pragma once

#include <chunked/array.hpp>

// fmt before version 10 turns constexpr off under nvcc, and its C++20 format-string checks then
// call non-constexpr functions from constexpr ones, which the host compiler rejects (Debian 12's
// fmt 9.1 with `nvcc -std=c++20`). fmt 10 and later keep constexpr on under nvcc in C++20; this
// makes the older ones do the same. It must come before fmt's first inclusion in the file.
#if defined(__NVCC__) && !defined(FMT_USE_CONSTEXPR) && __cplusplus >= 202002L
#define FMT_USE_CONSTEXPR 1
#endif
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace chunked::detail {
/// NumPy-like text of n values of a C-order array: nested brackets, "..." past 1000 elements.
template <class T> std::string format_values(const T* data, const Shape& shape) {
  const index_t nd = shape.ndim();
  const bool truncate = shape.size() > 1000;
  std::string out;
  auto value = [](T v) {
    if constexpr (std::is_same_v<T, bool>)
      return std::string(v ? "true" : "false");
    else
      return fmt::format("{}", v);
  };
  if (nd == 0)
    return value(data[0]);
  const auto strides = shape.strides();
  auto rec = [&](auto&& self, index_t axis, index_t offset) -> void {
    out += '[';
    const index_t n = shape.extents()[axis];
    for (index_t i = 0; i < n; ++i) {
      if (truncate && n > 6 && i == 3) {
        out += "..., ";
        i = n - 3;
      }
      if (axis + 1 == nd)
        out += value(data[offset + i * strides[axis]]);
      else
        self(self, axis + 1, offset + i * strides[axis]);
      if (i + 1 < n)
        out += axis + 1 == nd ? ", " : ",\n" + std::string(static_cast<std::size_t>(axis + 1), ' ');
    }
    out += ']';
  };
  rec(rec, 0, 0);
  return out;
}
} // namespace chunked::detail

template <> struct fmt::formatter<chunked::Shape> : fmt::formatter<std::string> {
  auto format(const chunked::Shape& s, format_context& ctx) const {
    return fmt::formatter<std::string>::format(s.to_string(), ctx);
  }
};
template <> struct fmt::formatter<chunked::Chunks> : fmt::formatter<std::string> {
  auto format(const chunked::Chunks& c, format_context& ctx) const {
    return fmt::formatter<std::string>::format(c.to_string(), ctx);
  }
};
template <> struct fmt::formatter<chunked::ChunkGrid> : fmt::formatter<std::string> {
  auto format(const chunked::ChunkGrid& g, format_context& ctx) const {
    return fmt::formatter<std::string>::format(g.to_string(), ctx);
  }
};
template <class T> struct fmt::formatter<chunked::NDArray<T>> : fmt::formatter<std::string> {
  auto format(const chunked::NDArray<T>& a, format_context& ctx) const {
    return fmt::formatter<std::string>::format(chunked::detail::format_values(a.data(), a.shape()),
                                               ctx);
  }
};
template <class T, class B>
struct fmt::formatter<chunked::ChunkedArray<T, B>> : fmt::formatter<std::string> {
  /// The largest block's shape, as Dask prints it: grids of sliced arrays are ragged and long.
  static chunked::Shape chunksize(const chunked::ChunkGrid& g) {
    std::vector<chunked::index_t> c;
    for (chunked::index_t k = 0; k < g.ndim(); ++k) {
      chunked::index_t m = 0;
      for (chunked::index_t l : g.lengths(k))
        m = std::max(m, l);
      c.push_back(m);
    }
    return chunked::Shape(std::move(c));
  }
  auto format(const chunked::ChunkedArray<T, B>& x, format_context& ctx) const {
    return fmt::formatter<std::string>::format(
        fmt::format("ChunkedArray<{}, {}>(shape={}, chunksize={}, blocks={})",
                    chunked::dtype_name(x.dtype()), chunked::backend_traits<B>::name, x.shape(),
                    chunksize(x.chunks()), x.numblocks()),
        ctx);
  }
};
