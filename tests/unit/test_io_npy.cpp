// SPDX-License-Identifier: Apache-2.0
// npy files: headers of each format version, order and byte order; blocks read from their
// regions; blocks written at their offsets and published whole.
#include "io/byte_order.hpp"
#include "io/npy_file.hpp"
#include "support/errors.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

namespace {

using namespace chunked;
using chunked::test::expect_error;
using chunked::test::TempDir;
using chunked::test::write_bytes;

/// An npy file's bytes with the given version and dict text (padded to 64 bytes as NumPy does).
std::string npy_bytes(int major, const std::string& dict, std::string_view data) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < prefix - 8; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + std::string(data);
}

/// Element i of the test array of shape (rows, cols), C order.
double value(index_t r, index_t c) { return static_cast<double>(r * 100 + c); }

/// The (rows, cols) test array as T, in C or Fortran order, in little or big endian.
template <class T> std::string data_of(index_t rows, index_t cols, bool fortran, bool big) {
  std::vector<T> v;
  if (fortran) {
    for (index_t c = 0; c < cols; ++c)
      for (index_t r = 0; r < rows; ++r)
        v.push_back(static_cast<T>(value(r, c)));
  } else {
    for (index_t r = 0; r < rows; ++r)
      for (index_t c = 0; c < cols; ++c)
        v.push_back(static_cast<T>(value(r, c)));
  }
  if (big == io::host_little_endian)
    io::swap_bytes(v.data(), v.size(), sizeof(T));
  return {reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)};
}

/// Reads every block of (lo, extent) boxes from the file and checks each element.
template <class T>
void check_blocks(const io::NpySource& src, index_t rows, index_t cols, index_t br, index_t bc) {
  for (index_t r0 = 0; r0 < rows; r0 += br)
    for (index_t c0 = 0; c0 < cols; c0 += bc) {
      const std::vector<index_t> lo{r0, c0};
      const std::vector<index_t> ext{std::min(br, rows - r0), std::min(bc, cols - c0)};
      std::vector<T> out(static_cast<std::size_t>(ext[0] * ext[1]));
      src.read({r0 / br, c0 / bc}, lo, ext, out.data());
      for (index_t r = 0; r < ext[0]; ++r)
        for (index_t c = 0; c < ext[1]; ++c)
          ASSERT_EQ(out[static_cast<std::size_t>(r * ext[1] + c)],
                    static_cast<T>(value(r0 + r, c0 + c)))
              << "block at " << r0 << "," << c0 << " element " << r << "," << c;
    }
}

template <class T> void round_trip_each_layout(const char* code) {
  TempDir dir;
  const index_t rows = 5, cols = 7;
  for (const int major : {1, 2, 3})
    for (const bool fortran : {false, true})
      for (const bool big : {false, true}) {
        const std::string descr = std::string(sizeof(T) == 1 ? "|" : big ? ">" : "<") + code;
        const std::string dict = "{'descr': '" + descr +
                                 "', 'fortran_order': " + (fortran ? "True" : "False") +
                                 ", 'shape': (5, 7), }";
        const std::string path = dir / ("a" + std::to_string(major) + descr + ".npy");
        write_bytes(path, npy_bytes(major, dict, data_of<T>(rows, cols, fortran, big)));
        const io::NpySource src(path);
        SCOPED_TRACE(path + (fortran ? " F" : " C"));
        EXPECT_EQ(src.header().major, major);
        EXPECT_EQ(src.header().type.dtype, dtype_v<T>);
        EXPECT_EQ(src.header().shape, Shape({5, 7}));
        for (const auto& [br, bc] : std::vector<std::pair<index_t, index_t>>{
                 {5, 7}, {2, 3}, {1, 1}, {5, 2}, {2, 7}, {4, 7}})
          check_blocks<T>(src, rows, cols, br, bc);
      }
}

TEST(IoNpy, ReadsEachVersionOrderAndByteOrderOfEveryDtype) {
  round_trip_each_layout<double>("f8");
  round_trip_each_layout<float>("f4");
  round_trip_each_layout<std::int64_t>("i8");
  round_trip_each_layout<std::int32_t>("i4");
}

TEST(IoNpy, ReadsBoolZeroDimensionalAndEmptyArrays) {
  TempDir dir;
  write_bytes(dir / "b.npy",
              npy_bytes(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
                        std::string("\1\0\0\1", 4)));
  bool b[4];
  io::NpySource(dir / "b.npy").read({0}, {0}, {4}, b);
  EXPECT_TRUE(b[0] && !b[1] && !b[2] && b[3]);
  const double x = 2.5;
  write_bytes(dir / "s.npy", npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                                       std::string(reinterpret_cast<const char*>(&x), 8)));
  double y = 0;
  const io::NpySource s(dir / "s.npy");
  EXPECT_EQ(s.header().shape.ndim(), 0);
  s.read({}, {}, {}, &y);
  EXPECT_EQ(y, 2.5);
  write_bytes(dir / "e.npy",
              npy_bytes(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (0, 3), }", ""));
  EXPECT_EQ(io::NpySource(dir / "e.npy").header().shape, Shape({0, 3}));
}

TEST(IoNpy, HeaderIsWrittenAsNumPyWritesIt) {
  const std::string h = io::format_npy_header(DType::float64, Shape{3, 4});
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }";
  ASSERT_EQ(h.size(), 128u);
  EXPECT_EQ(h.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  EXPECT_EQ(h.substr(10), dict + std::string(127 - 10 - dict.size(), ' ') + "\n");
  EXPECT_NE(io::format_npy_header(DType::int32, Shape{5}).find("'shape': (5,), }"),
            std::string::npos);
  EXPECT_NE(io::format_npy_header(DType::bool_, Shape{}).find("'descr': '|b1'"), std::string::npos);
  for (const Shape& s : {Shape{}, Shape{0}, Shape{7}, Shape{123456789, 2, 3}}) {
    const std::string hh = io::format_npy_header(DType::float32, s);
    EXPECT_EQ(hh.size() % 64, 0u);
    const io::NpyHeader back = io::parse_npy_header(hh, "x");
    EXPECT_EQ(back.shape, s);
    EXPECT_EQ(back.data_offset, hh.size());
    EXPECT_FALSE(back.fortran_order);
  }
  // A header longer than 65535 bytes (a 25000-axis shape) needs version 2.0.
  EXPECT_EQ(io::format_npy_header(DType::float64, Shape(std::vector<index_t>(25000, 1)))[6], 2);
}

TEST(IoNpy, SinkWritesBlocksAtTheirOffsetsAndPublishesOnCommit) {
  TempDir dir;
  const std::string path = dir / "out.npy";
  write_bytes(path, "old");
  std::vector<double> all(5 * 7);
  for (index_t r = 0; r < 5; ++r)
    for (index_t c = 0; c < 7; ++c)
      all[static_cast<std::size_t>(r * 7 + c)] = value(r, c);
  {
    io::NpySink sink(path, DType::float64, Shape{5, 7});
    for (index_t r0 = 0; r0 < 5; r0 += 2)
      for (index_t c0 = 0; c0 < 7; c0 += 3) {
        const index_t er = std::min<index_t>(2, 5 - r0), ec = std::min<index_t>(3, 7 - c0);
        std::vector<double> block;
        for (index_t r = 0; r < er; ++r)
          for (index_t c = 0; c < ec; ++c)
            block.push_back(value(r0 + r, c0 + c));
        sink.write({r0 / 2, c0 / 3}, {r0, c0}, {er, ec}, block.data());
      }
    EXPECT_EQ(*io::read_whole_file(path), "old") << "nothing is visible before commit";
    sink.commit();
  }
  const io::NpySource src(path);
  check_blocks<double>(src, 5, 7, 5, 7);
  EXPECT_EQ(chunked::test::listing(dir.path()), "out.npy ");
  { io::NpySink abandoned(path, DType::float64, Shape{2}); }
  EXPECT_EQ(chunked::test::listing(dir.path()), "out.npy ") << "an uncommitted file is removed";
  check_blocks<double>(io::NpySource(path), 5, 7, 5, 7);
}

TEST(IoNpy, BadFilesNameThePathAndWhatIsWrong) {
  TempDir dir;
  expect_error<Error>([&] { io::NpySource(dir / "missing.npy"); }, {"missing.npy", "No such file"});
  write_bytes(dir / "text.npy", "hello, this is not npy at all");
  expect_error<Error>([&] { io::NpySource(dir / "text.npy"); }, {"text.npy", "magic"});
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }";
  write_bytes(dir / "short.npy", npy_bytes(1, dict, std::string(95, 'x')));
  expect_error<Error>([&] { io::NpySource(dir / "short.npy"); },
                      {"short.npy", "truncated", "(3, 4)", "96 bytes", "95 bytes"});
  write_bytes(dir / "cut.npy", npy_bytes(1, dict, "").substr(0, 40));
  expect_error<Error>([&] { io::NpySource(dir / "cut.npy"); }, {"cut.npy", "header"});
  write_bytes(dir / "c16.npy",
              npy_bytes(1, "{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", "x"));
  expect_error<ValueError>([&] { io::NpySource(dir / "c16.npy"); }, {"c16.npy", "'<c16'"});
  write_bytes(dir / "v9.npy", npy_bytes(9, dict, ""));
  expect_error<Error>([&] { io::NpySource(dir / "v9.npy"); }, {"v9.npy", "version 9.0"});
  write_bytes(dir / "key.npy",
              npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shap': (1,), }", ""));
  expect_error<Error>([&] { io::NpySource(dir / "key.npy"); }, {"key.npy", "'shap'"});
}

} // namespace
