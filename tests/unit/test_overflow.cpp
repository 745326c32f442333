// SPDX-License-Identifier: Apache-2.0
// Counts that leave int64 in core: shapes, byte counts, chunk grids, host allocations and the
// checked-arithmetic helpers. Run under UBSan (the asan preset), where an unchecked overflow
// fails the test even when it happens to give a plausible number.
#include "core/checked.hpp"
#include <chunked/chunked.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace chunked;

constexpr index_t max64 = std::numeric_limits<index_t>::max();
constexpr index_t min64 = std::numeric_limits<index_t>::min();

/// f() throws E with every word in its message.
template <class E, class F> void expect_error(F&& f, std::initializer_list<std::string> words) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    for (const auto& w : words)
      EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << e.what() << " lacks " << w;
  }
}

TEST(Overflow, ShapesWhoseSizeLeavesInt64AreValueErrors) {
  expect_error<ValueError>(
      [] {
        (void)Shape{index_t{1} << 32, index_t{1} << 32};
      },
      {"(4294967296, 4294967296)", "1.84467e+19", "int64"});
  expect_error<ValueError>([] { (void)Shape{max64, 2}; }, {"(9223372036854775807, 2)"});
  expect_error<ValueError>([] { (void)Shape{index_t{1} << 31, index_t{1} << 31, 2}; }, {"int64"});
  // Zero extents do not excuse the others, as in NumPy: no stride or block may overflow either.
  expect_error<ValueError>(
      [] {
        (void)Shape{0, index_t{1} << 40, index_t{1} << 40};
      },
      {"non-zero"});
  EXPECT_EQ((Shape{max64}.size()), max64);
  EXPECT_EQ((Shape{0, max64}.size()), 0);
  EXPECT_EQ((Shape{index_t{1} << 31, index_t{1} << 31}.size()), index_t{1} << 62);
  EXPECT_EQ((Shape{3, max64 / 3}.strides()), (std::vector<index_t>{max64 / 3, 1}));
}

TEST(Overflow, ByteCountsPastInt64AreValueErrorsAndHugeAllocationsOutOfMemory) {
  // NumPy's limit: size * itemsize within int64.
  EXPECT_EQ(detail::array_nbytes(Shape{index_t{1} << 60}, 4), std::size_t{1} << 62);
  expect_error<ValueError>([] { (void)detail::array_nbytes(Shape{index_t{1} << 60}, 8); },
                           {"(1152921504606846976,)", "8-byte", "bytes"});
  // As for elements, zero extents do not excuse the others (NumPy: "array is too big").
  EXPECT_THROW((void)detail::array_nbytes(Shape{0, max64}, 8), ValueError);
  EXPECT_EQ(detail::array_nbytes(Shape{0, max64}, 1), 0u);
  // Used to be a segfault (the size wrapped to -2, then 16 bytes were allocated and zeroed).
  EXPECT_THROW((NDArray<double>(Shape{max64 / 8 + 1})), ValueError);
  EXPECT_THROW((void)NDArray<double>::uninitialized(Shape{index_t{1} << 61}), ValueError);
  // Counts that fit but can never be allocated (rounding them up would have wrapped).
  EXPECT_THROW((NDArray<bool>(Shape{(index_t{1} << 62) + 1})), OutOfMemory);
  EXPECT_THROW((void)make_host_buffer(std::numeric_limits<std::size_t>::max()), OutOfMemory);
  EXPECT_THROW((void)make_host_buffer(std::numeric_limits<std::size_t>::max() - 63), OutOfMemory);
}

TEST(Overflow, RegularGridsNearInt64MaxAreCountedNotStepped) {
  // start += chunk passed INT64_MAX here.
  const ChunkGrid g(Shape{max64}, std::vector<index_t>{max64 - 1});
  EXPECT_EQ(g.lengths(0), (std::vector<index_t>{max64 - 1, 1}));
  EXPECT_EQ(g.offsets(0), (std::vector<index_t>{0, max64 - 1, max64}));
  const ChunkGrid h(Shape{max64, 0}, std::vector<index_t>{max64 / 2 + 1, max64});
  EXPECT_EQ(h.lengths(0), (std::vector<index_t>{max64 / 2 + 1, max64 / 2}));
  EXPECT_EQ(h.numblocks(), 2);
  EXPECT_EQ(h.block_containing(0, max64 - 1), 1);
}

TEST(Overflow, ExplicitGridsWhoseLengthsOrBlocksOverflowAreValueErrors) {
  expect_error<ValueError>(
      [] {
        (void)ChunkGrid(std::vector<std::vector<index_t>>{{max64, 1}});
      },
      {"int64"});
  expect_error<ValueError>(
      [] {
        (void)ChunkGrid(std::vector<std::vector<index_t>>{{index_t{1} << 32}, {index_t{1} << 32}});
      },
      {"(4294967296, 4294967296)"});
}

TEST(Overflow, CheckedArithmeticNamesItsContext) {
  EXPECT_EQ(detail::checked_add(max64 - 1, 1), max64);
  EXPECT_EQ(detail::checked_mul(min64 / 2, 2), min64);
  expect_error<ValueError>([] { (void)detail::checked_add(max64, 1, "a block offset"); },
                           {"a block offset", "9223372036854775807 + 1"});
  expect_error<ValueError>([] { (void)detail::checked_mul(min64, -1, "a stride"); },
                           {"a stride", "-9223372036854775808 * -1"});
  index_t r = 0;
  EXPECT_TRUE(detail::mul_overflows(index_t{1} << 32, index_t{1} << 31, r));
  EXPECT_FALSE(detail::add_overflows(-5, 3, r));
  EXPECT_EQ(r, -2);
}

} // namespace
