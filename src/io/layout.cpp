// SPDX-License-Identifier: Apache-2.0
// Box copies and layout changes of dense buffers.
#include "io/layout.hpp"

#include <cstring>

namespace chunked::io {

index_t element_count(const std::vector<index_t>& shape) {
  index_t n = 1;
  for (const index_t e : shape)
    n *= e;
  return n;
}

namespace {
/// Strides in elements of a C-order buffer of `shape`.
std::vector<index_t> c_strides(const std::vector<index_t>& shape) {
  std::vector<index_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;)
    s[i - 1] = s[i] * shape[i];
  return s;
}

void copy_rows(const char* src, const std::vector<index_t>& ss, char* dst,
               const std::vector<index_t>& ds, const std::vector<index_t>& box, std::size_t axis,
               std::size_t es) {
  if (axis + 1 == box.size()) {
    std::memcpy(dst, src, static_cast<std::size_t>(box[axis]) * es);
    return;
  }
  for (index_t i = 0; i < box[axis]; ++i)
    copy_rows(src + static_cast<std::size_t>(i * ss[axis]) * es, ss,
              dst + static_cast<std::size_t>(i * ds[axis]) * es, ds, box, axis + 1, es);
}
} // namespace

void copy_corner(const void* src, const std::vector<index_t>& src_shape, void* dst,
                 const std::vector<index_t>& dst_shape, const std::vector<index_t>& box,
                 std::size_t element_size) {
  if (element_count(box) == 0)
    return;
  if (box.empty()) {
    std::memcpy(dst, src, element_size);
    return;
  }
  copy_rows(static_cast<const char*>(src), c_strides(src_shape), static_cast<char*>(dst),
            c_strides(dst_shape), box, 0, element_size);
}

void fortran_to_c(const void* src, void* dst, const std::vector<index_t>& shape,
                  std::size_t element_size) {
  const auto n = static_cast<std::size_t>(element_count(shape));
  const std::size_t nd = shape.size();
  // Walk the destination in C order, keeping the source offset (Fortran strides) alongside.
  std::vector<index_t> fstride(nd, 1);
  for (std::size_t i = 1; i < nd; ++i)
    fstride[i] = fstride[i - 1] * shape[i - 1];
  std::vector<index_t> idx(nd, 0);
  index_t off = 0;
  const auto* s = static_cast<const char*>(src);
  auto* d = static_cast<char*>(dst);
  for (std::size_t k = 0; k < n; ++k) {
    std::memcpy(d + k * element_size, s + static_cast<std::size_t>(off) * element_size,
                element_size);
    for (std::size_t a = nd; a-- > 0;) {
      off += fstride[a];
      if (++idx[a] < shape[a])
        break;
      off -= fstride[a] * shape[a];
      idx[a] = 0;
    }
  }
}

void fill_elements(void* dst, std::size_t count, const void* value, std::size_t element_size) {
  auto* d = static_cast<char*>(dst);
  for (std::size_t i = 0; i < count; ++i)
    std::memcpy(d + i * element_size, value, element_size);
}

} // namespace chunked::io
