// SPDX-License-Identifier: Apache-2.0
// The CPU tile interpreter's stores (direct, strided, streamed), and block programs' text forms.

#include <gtest/gtest.h>

#include "unit/cpu_interpreter_support.hpp"

namespace chunked::test::interp {
namespace {

TEST(CpuInterpreter, ContiguousStoresWriteTheOutputDirectlyAndOnlyTheirElements) {
  // out[r, c] = x[r, c] * y[c] - x[r, c] into every other row of a wider output: tiles that are
  // one run write the output from the instruction loop, tiles that cut rows go through the tile
  // buffer; neither may touch the rows or columns the map skips.
  for (const auto& [rows, cols] :
       std::vector<std::pair<index_t, index_t>>{{1, 5000}, {3, 2048}, {5, 1000}, {2, 4097}}) {
    std::vector<double> x(static_cast<std::size_t>(rows * cols)), y(static_cast<std::size_t>(cols));
    for (std::size_t k = 0; k < x.size(); ++k)
      x[k] = 0.25 * static_cast<double>(k % 97) - 3.0;
    for (std::size_t k = 0; k < y.size(); ++k)
      y[k] = 1.0 + 0.125 * static_cast<double>(k % 13);
    BlockProgram p = box_program({rows, cols});
    p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1})),
                stored_leaf(DType::float64, 1, amap(0, {0, 1}))};
    p.instrs = {instr(OpCode::mul, DType::float64, 0, 1), instr(OpCode::sub, DType::float64, 2, 0)};
    const index_t pitch = cols + 3;
    p.sink.map = amap(1, {2 * pitch, 1});
    std::vector<double> out(static_cast<std::size_t>(2 * rows * pitch), -7.0);
    const void* in[] = {x.data(), y.data()};
    run_program(p, in, out.data());
    for (index_t k = 0; k < static_cast<index_t>(out.size()); ++k) {
      const index_t r = k / (2 * pitch), c = k % (2 * pitch) - 1;
      double want = -7.0;
      if (c >= 0 && c < cols) {
        const double xv = x[static_cast<std::size_t>(r * cols + c)];
        want = xv * y[static_cast<std::size_t>(c)] - xv;
      }
      ASSERT_EQ(out[static_cast<std::size_t>(k)], want) << rows << "x" << cols << " at " << k;
    }
  }
}

TEST(CpuInterpreter, StridedCopiesReadAndWriteEveryLayout) {
  // Pure copy programs through reversed, every-other and broadcast leaves into reversed or
  // stretched outputs, with tiles of one element and tiles that cut rows.
  for (const auto& [rows, cols] :
       std::vector<std::pair<index_t, index_t>>{{1, 1}, {1, 5000}, {3, 1023}, {2049, 1}, {4, 2048}})
    for (index_t lstep : {1, -1, 2, 0, 3})
      for (index_t sstep : {1, -1, 2}) {
        const index_t span = std::max<index_t>(lstep < 0 ? -lstep : lstep, 1) * cols;
        std::vector<double> x(static_cast<std::size_t>(rows * span));
        for (std::size_t k = 0; k < x.size(); ++k)
          x[k] = static_cast<double>(k) + 0.5;
        BlockProgram p = box_program({rows, cols});
        const index_t lbase = lstep < 0 ? -lstep * (cols - 1) : 0;
        p.leaves = {stored_leaf(DType::float64, 0, amap(lbase, {span, lstep}))};
        const index_t ospan = (sstep < 0 ? -sstep : sstep) * cols;
        p.sink.map = amap(sstep < 0 ? -sstep * (cols - 1) : 0, {ospan, sstep});
        std::vector<double> out(static_cast<std::size_t>(rows * ospan), -1.0);
        const void* in[] = {x.data()};
        run_program(p, in, out.data());
        for (index_t r = 0; r < rows; ++r)
          for (index_t c = 0; c < cols; ++c) {
            const index_t i[2] = {r, c};
            ASSERT_EQ(out[static_cast<std::size_t>(p.sink.map.at(i, 2))],
                      x[static_cast<std::size_t>(p.leaves[0].map.at(i, 2))])
                << rows << "x" << cols << " leaf step " << lstep << " store step " << sstep;
          }
      }
}

TEST(CpuInterpreter, LargeReversedAndEveryOtherCopiesWriteExactlyTheirElements) {
  // Copies of x[:, ::-1] and x[:, ::2] into blocks of 4 MiB and more go from the input straight
  // to the output by whole vectors: rows that start anywhere in a line, of lengths that are no
  // multiple of a vector, next to cells that must keep their value.
  const index_t cols = 1027, rows = (index_t{5} << 20) / (8 * cols) + 1; // over 5 MiB out
  for (const index_t step : {-1, 2})
    for (const index_t shift : {index_t{0}, index_t{1}, index_t{3}}) {
      const index_t span = step == 2 ? 2 * cols : cols;
      std::vector<double> x(static_cast<std::size_t>(rows * span));
      for (std::size_t k = 0; k < x.size(); ++k)
        x[k] = static_cast<double>(k) + 0.25;
      BlockProgram p = box_program({rows, cols});
      p.leaves = {stored_leaf(DType::float64, 0, amap(step < 0 ? cols - 1 : 0, {span, step}))};
      const index_t pitch = cols + 3;
      p.sink.map = amap(shift, {pitch, 1});
      std::vector<double> out(static_cast<std::size_t>(rows * pitch + shift + 8), -7.0);
      const void* in[] = {x.data()};
      run_program(p, in, out.data());
      for (index_t r = 0; r < rows; ++r)
        for (index_t c = -shift; c < pitch - shift; ++c) {
          const double got = out[static_cast<std::size_t>(shift + r * pitch + c)];
          const double want =
              c < 0 || c >= cols
                  ? -7.0
                  : x[static_cast<std::size_t>(r * span + (step < 0 ? cols - 1 - c : 2 * c))];
          ASSERT_EQ(got, want) << "step " << step << " shift " << shift << " row " << r
                               << " column " << c;
        }
    }
}

TEST(CpuInterpreter, LargeStoresBypassingTheCachesWriteExactlyTheirElements) {
  // Blocks of 4 MiB and more leave through non-temporal stores, which write whole aligned lines
  // and leave the ragged ends of each run to ordinary stores: outputs of 1, 4 and 8-byte
  // elements, rows whose length is no multiple of a line and output rows that start anywhere in
  // one, next to cells that must keep their value.
  for (const DType t : {DType::bool_, DType::int32, DType::float64}) {
    SCOPED_TRACE(static_cast<int>(t));
    const index_t size = static_cast<index_t>(dtype_size(t));
    const index_t cols = 4099, rows = (index_t{5} << 20) / (size * cols) + 1; // over 5 MiB
    for (const index_t shift : {index_t{0}, index_t{1}, index_t{3}}) {
      std::vector<double> x(static_cast<std::size_t>(cols));
      for (std::size_t k = 0; k < x.size(); ++k)
        x[k] = static_cast<double>(k % 7) - 2.0;
      BlockProgram p = box_program({rows, cols});
      // out[r, c] = cast(x[c] * (r + 1)): the leaf repeats its row, the product differs by row.
      Leaf row;
      row.kind = LeafKind::arange; // r + 1 at row r
      row.dtype = DType::float64;
      row.a = {1.0, 0};
      row.b = {1.0, 0};
      row.map = amap(0, {1, 0});
      p.leaves = {stored_leaf(DType::float64, 0, amap(0, {0, 1})), row};
      p.instrs = {instr(OpCode::mul, DType::float64, 0, 1), instr(OpCode::cast, t, 2)};
      const index_t pitch = cols + 5;
      p.sink.map = amap(shift, {pitch, 1});
      const std::size_t bytes = static_cast<std::size_t>((rows * pitch + shift) * size);
      std::vector<unsigned char> out(bytes + 64, 0xab);
      const void* in[] = {x.data()};
      run_program(p, in, out.data());
      for (index_t r = 0; r < rows; ++r)
        for (index_t c = -shift; c < pitch - shift; ++c) {
          const unsigned char* cell = out.data() + (shift + r * pitch + c) * size;
          if (c < 0 || c >= cols) {
            for (index_t b = 0; b < size; ++b)
              ASSERT_EQ(cell[b], 0xab) << "row " << r << " column " << c << " was written";
            continue;
          }
          const double v = x[static_cast<std::size_t>(c)] * static_cast<double>(r + 1);
          if (t == DType::float64) {
            double got;
            std::memcpy(&got, cell, 8);
            ASSERT_EQ(got, v) << r << ", " << c;
          } else if (t == DType::int32) {
            std::int32_t got;
            std::memcpy(&got, cell, 4);
            ASSERT_EQ(got, static_cast<std::int32_t>(v)) << r << ", " << c;
          } else {
            ASSERT_EQ(cell[0], v != 0.0 ? 1 : 0) << r << ", " << c;
          }
        }
      for (std::size_t b = bytes; b < out.size(); ++b)
        ASSERT_EQ(out[b], 0xab) << "written past the output";
    }
  }
}

TEST(CpuInterpreter, LargeArithmeticStoresStreamTheirResultsExactly) {
  // The last float64 add/sub/mul/div, or a fused pair of them, of a block of 4 MiB and more
  // writes the output itself with non-temporal stores where a tile is one run: rows longer than
  // a tile whose output starts anywhere in a line, with cells around them that must keep their
  // value, and the same bits as the operations one by one.
  const index_t cols = 4099, rows = (index_t{5} << 20) / (8 * cols) + 1;
  std::vector<double> x(static_cast<std::size_t>(cols)), y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    x[k] = static_cast<double>(k % 7) - 2.5 + 1e-3 * static_cast<double>(k);
    y[k] = 0.75 + static_cast<double>(k % 5);
  }
  Leaf row; // r + 1 at row r
  row.kind = LeafKind::arange;
  row.dtype = DType::float64;
  row.a = {1.0, 0};
  row.b = {1.0, 0};
  row.map = amap(0, {1, 0});
  for (const bool pair : {false, true})
    for (const index_t shift : {index_t{0}, index_t{1}, index_t{3}}) {
      SCOPED_TRACE(std::string(pair ? "pair" : "single") + " shift " + std::to_string(shift));
      BlockProgram p = box_program({rows, cols});
      p.leaves = {stored_leaf(DType::float64, 0, amap(0, {0, 1})), row,
                  stored_leaf(DType::float64, 1, amap(0, {0, 1}))};
      if (pair) // (x - (r + 1)) / y
        p.instrs = {instr(OpCode::sub, DType::float64, 0, 1),
                    instr(OpCode::div, DType::float64, 3, 2)};
      else // x / (r + 1)
        p.instrs = {instr(OpCode::div, DType::float64, 0, 1)};
      const index_t pitch = cols + 5;
      p.sink.map = amap(shift, {pitch, 1});
      const std::size_t n = static_cast<std::size_t>(rows * pitch + shift);
      std::vector<double> out(n + 8, -7.0);
      const void* in[] = {x.data(), y.data()};
      run_program(p, in, out.data());
      for (index_t r = 0; r < rows; ++r)
        for (index_t c = -shift; c < pitch - shift; ++c) {
          const double got = out[static_cast<std::size_t>(shift + r * pitch + c)];
          if (c < 0 || c >= cols) {
            ASSERT_EQ(got, -7.0) << "row " << r << " column " << c << " was written";
            continue;
          }
          const double xc = x[static_cast<std::size_t>(c)], rr = static_cast<double>(r + 1);
          const double want = pair ? (xc - rr) / y[static_cast<std::size_t>(c)] : xc / rr;
          ASSERT_TRUE(same_bits_or_nan(got, want))
              << r << ", " << c << ": " << got << " vs " << want;
        }
      for (std::size_t k = n; k < out.size(); ++k)
        ASSERT_EQ(out[k], -7.0) << "written past the output";
    }
}

// ---- Text forms ------------------------------------------------------------------------------

TEST(BlockProgramText, StructureKeyIgnoresConstantsMapsAndExtents) {
  BlockProgram p = box_program({3, 4});
  p.leaves = {stored_leaf(DType::float64, 0, amap(0, {4, 1})), constant_leaf(DType::float64, 1, 0)};
  p.instrs = {instr(OpCode::add, DType::float64, 0, 1)};
  BlockProgram q = p;
  q.extent = {5, 6};
  q.leaves[0].map = amap(7, {-1, 2});
  q.leaves[1].a.f = 2;
  q.sink.map = amap(3, {1, 5});
  EXPECT_EQ(p.structure_key(), q.structure_key());
  EXPECT_NE(p.describe(), q.describe());
  BlockProgram r = p;
  r.instrs[0].op = OpCode::mul;
  EXPECT_NE(p.structure_key(), r.structure_key());
  r = p;
  r.sink.kind = Sink::Kind::reduce;
  EXPECT_NE(p.structure_key(), r.structure_key());
  EXPECT_NE(p.describe().find("add float64 (v0, v1)"), std::string::npos) << p.describe();
  EXPECT_EQ(opcode_name(OpCode::bit_xor), "bit_xor");
  EXPECT_EQ(reduce_op_name(ReduceOp::argmax), "argmax");
}

} // namespace
} // namespace chunked::test::interp
