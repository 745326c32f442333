// SPDX-License-Identifier: Apache-2.0
// Reading blocks of npy files with pread and writing them with pwrite.
#include "io/npy_file.hpp"

#include "io/byte_order.hpp"
#include "io/layout.hpp"

#include <chunked/core/error.hpp>

#include <algorithm>
#include <cstring>

namespace chunked::io {

namespace {

/// The runs of consecutive file elements that make up the box (`lo`, `extent`) of a C-order
/// array of `shape`: calls f(file element offset, run length, position of the run in the box's
/// C order) for each. A run covers the last axes the box spans whole, and a part of the next.
template <class F>
void for_each_run(const std::vector<index_t>& shape, const std::vector<index_t>& lo,
                  const std::vector<index_t>& extent, F f) {
  const std::size_t nd = shape.size();
  if (element_count(extent) == 0)
    return;
  if (nd == 0) {
    f(0, 1, 0);
    return;
  }
  std::vector<index_t> stride(nd, 1);
  for (std::size_t i = nd; i-- > 1;)
    stride[i - 1] = stride[i] * shape[i];
  // Axes [inner, nd) form one run: every axis after `inner` is whole in the box.
  std::size_t inner = nd - 1;
  index_t run = extent[inner];
  while (inner > 0 && extent[inner] == shape[inner]) {
    --inner;
    run *= extent[inner];
  }
  std::vector<index_t> idx(inner, 0);
  index_t box_pos = 0;
  while (true) {
    index_t off = 0;
    for (std::size_t a = 0; a < nd; ++a)
      off += (lo[a] + (a < inner ? idx[a] : 0)) * stride[a];
    f(off, run, box_pos);
    box_pos += run;
    // The next outer index (axes before `inner`), in C order.
    std::size_t a = inner;
    while (true) {
      if (a == 0)
        return;
      --a;
      if (++idx[a] < extent[a])
        break;
      idx[a] = 0;
    }
  }
}

std::vector<index_t> reversed(std::vector<index_t> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

} // namespace

NpySource::NpySource(const std::string& path) : path_(path), file_(open_for_reading(path)) {
  const std::uint64_t size = file_.size();
  std::string prefix(static_cast<std::size_t>(std::min<std::uint64_t>(size, 12)), '\0');
  file_.read_at(prefix.data(), prefix.size(), 0);
  const std::uint64_t header_size = npy_header_size(prefix, "'" + path + "'");
  if (header_size > size)
    throw Error("'" + path + "': not a valid npy file: it ends inside its header");
  std::string header(static_cast<std::size_t>(header_size), '\0');
  file_.read_at(header.data(), header.size(), 0);
  header_ = parse_npy_header(header, "'" + path + "'");
  const std::uint64_t data_bytes =
      static_cast<std::uint64_t>(header_.shape.size()) * dtype_size(header_.type.dtype);
  if (size < header_.data_offset + data_bytes)
    throw Error("'" + path + "' is truncated: its header says shape " + header_.shape.to_string() +
                " of " + std::string(dtype_name(header_.type.dtype)) + " (" +
                std::to_string(data_bytes) + " bytes of data), but it holds " +
                std::to_string(size - header_.data_offset) + " bytes after the header");
}

std::string NpySource::describe() const { return "npy file '" + path_ + "'"; }

void NpySource::read_box(const std::vector<index_t>& shape, const std::vector<index_t>& lo,
                         const std::vector<index_t>& extent, void* out) const {
  const std::size_t es = dtype_size(header_.type.dtype);
  auto* dst = static_cast<char*>(out);
  for_each_run(shape, lo, extent, [&](index_t off, index_t run, index_t pos) {
    file_.read_at(dst + static_cast<std::size_t>(pos) * es, static_cast<std::size_t>(run) * es,
                  header_.data_offset + static_cast<std::uint64_t>(off) * es);
  });
}

void NpySource::read(const std::vector<index_t>& /*block*/, const std::vector<index_t>& lo,
                     const std::vector<index_t>& extent, void* out) const {
  const std::size_t es = dtype_size(header_.type.dtype);
  const auto n = static_cast<std::size_t>(element_count(extent));
  if (!header_.fortran_order) {
    read_box(header_.shape.extents(), lo, extent, out);
  } else {
    // A Fortran-order file is the C-order file of the reversed axes: read the reversed box,
    // which is the block in Fortran order, then lay it out in C order.
    std::vector<char> tmp(n * es);
    read_box(reversed(header_.shape.extents()), reversed(lo), reversed(extent), tmp.data());
    fortran_to_c(tmp.data(), out, extent, es);
  }
  to_native(out, n, es, header_.type.big_endian);
}

NpySink::NpySink(const std::string& path, DType dtype, const Shape& shape)
    : file_(path), dtype_(dtype), shape_(shape.extents()) {
  const std::string header = format_npy_header(dtype, shape);
  data_offset_ = header.size();
  file_.resize(data_offset_ + static_cast<std::uint64_t>(shape.size()) * dtype_size(dtype));
  file_.file().write_at(header.data(), header.size(), 0);
}

NpySink::NpySink(const std::string& path, const std::string& temp, DType dtype, const Shape& shape,
                 const std::string& what)
    : file_(path, temp, what), dtype_(dtype), shape_(shape.extents()),
      data_offset_(format_npy_header(dtype, shape).size()) {}

void NpySink::write(const std::vector<index_t>& /*block*/, const std::vector<index_t>& lo,
                    const std::vector<index_t>& extent, const void* data) {
  const std::size_t es = dtype_size(dtype_);
  const char* src = static_cast<const char*>(data);
  std::vector<char> swapped;
  if (!host_little_endian) { // npy files are written little-endian
    const auto n = static_cast<std::size_t>(element_count(extent));
    swapped.assign(src, src + n * es);
    swap_bytes(swapped.data(), n, es);
    src = swapped.data();
  }
  for_each_run(shape_, lo, extent, [&](index_t off, index_t run, index_t pos) {
    file_.file().write_at(src + static_cast<std::size_t>(pos) * es,
                          static_cast<std::size_t>(run) * es,
                          data_offset_ + static_cast<std::uint64_t>(off) * es);
  });
}

} // namespace chunked::io
