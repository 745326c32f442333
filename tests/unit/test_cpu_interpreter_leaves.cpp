// SPDX-License-Identifier: Apache-2.0
// The CPU tile interpreter's leaves and index maps against naive per-element references.

#include <gtest/gtest.h>

#include "unit/cpu_interpreter_support.hpp"

namespace chunked::test::interp {
namespace {

const std::vector<std::vector<index_t>> test_boxes = {{},
                                                      {1},
                                                      {0},
                                                      {7},
                                                      {2048},
                                                      {4099},
                                                      {3, 0},
                                                      {1, 1},
                                                      {3, 700},
                                                      {700, 3},
                                                      {2049, 2},
                                                      {2, 3, 5},
                                                      {5, 1, 433},
                                                      {2, 3, 4, 171},
                                                      {1, 2, 1, 2049},
                                                      {3, 2, 1, 5}};

TEST(CpuInterpreter, LeavesThroughOddMapsAndStridedStores) {
  std::mt19937_64 rng(7);
  for (const auto& extent : test_boxes) {
    for (int variant = 0; variant < 4; ++variant) {
      BlockProgram p = box_program(extent);
      StoredInput a = random_stored(DType::float64, extent, rng);
      StoredInput b = random_stored(DType::int32, extent, rng);
      Leaf ar;
      ar.kind = LeafKind::arange;
      ar.dtype = variant % 2 ? DType::float32 : DType::int64;
      ar.a = {0.25, -5};
      ar.b = {-1.5, 3};
      ar.map = random_stored(DType::bool_, extent, rng).map;
      p.leaves = {stored_leaf(DType::float64, 0, a.map), stored_leaf(DType::int32, 1, b.map), ar,
                  constant_leaf(DType::float64, 1.5, 0)};
      // v4 = cast(b) ; v5 = a * v4 ; v6 = cast(arange) ; v7 = v5 + v6 ; v8 = v7 - 1.5
      p.instrs = {instr(OpCode::cast, DType::float64, 1), instr(OpCode::mul, DType::float64, 0, 4),
                  instr(OpCode::cast, DType::float64, 2), instr(OpCode::add, DType::float64, 5, 6),
                  instr(OpCode::sub, DType::float64, 7, 3)};
      // Output layout: C order of a permuted box, stretched by 2 and reversed on odd variants.
      std::vector<index_t> order(extent.size());
      for (std::size_t k = 0; k < order.size(); ++k)
        order[k] = static_cast<index_t>(k);
      std::shuffle(order.begin(), order.end(), rng);
      std::vector<index_t> permuted;
      for (index_t k : order)
        permuted.push_back(extent[k]);
      const auto strides = c_strides(permuted);
      const index_t n = box_size(extent);
      const index_t stretch = variant >= 2 ? 2 : 1;
      const index_t sign = variant % 2 ? -1 : 1;
      AffineMap out;
      out.base = sign < 0 ? stretch * std::max<index_t>(n - 1, 0) : 1;
      for (std::size_t k = 0; k < order.size(); ++k)
        out.coef[order[k]] = sign * stretch * strides[k];
      p.sink.map = out;
      check_store(p, {&a.buffer, &b.buffer}, stretch * n + 2);
    }
  }
}

// Leaves that repeat along the outer axes (a column mean broadcast down a block, a random row,
// an arange along the last axes) are filled once per program and reused by every tile; periods
// that divide the tile and those that do not, periods longer than a tile, inner axes of length
// one and reversed or stretched outputs.
TEST(CpuInterpreter, LeavesRepeatingAlongOuterAxesGiveEveryTileTheirValues) {
  std::mt19937_64 rng(21);
  const std::vector<std::pair<std::vector<index_t>, int>> boxes = {
      // extents, number of outer axes along which the leaves repeat
      {{4099, 3}, 1}, {{700, 64}, 1}, {{33, 100}, 1},      {{5, 7, 11}, 1},  {{5, 7, 11}, 2},
      {{3, 2049}, 1}, {{2050, 1}, 1}, {{2, 3, 4, 171}, 2}, {{9, 1, 300}, 1}, {{1000, 2, 1}, 1}};
  for (const auto& [extent, outer] : boxes) {
    for (int variant = 0; variant < 3; ++variant) {
      BlockProgram p = box_program(extent);
      StoredInput x = random_stored(DType::float64, extent, rng);
      StoredInput m = random_stored(DType::float64, extent, rng);
      for (int k = 0; k < outer; ++k)
        m.map.coef[k] = 0; // repeats along the outer axes (the buffer still holds every read)
      Leaf r;
      r.kind = LeafKind::normal;
      r.dtype = DType::float64;
      r.seed = 5;
      r.stream = 2;
      r.a = {1.0, 0};
      r.b = {2.0, 0};
      r.map = amap(7, c_strides(extent));
      for (int k = 0; k < outer; ++k)
        r.map.coef[k] = 0;
      Leaf ar;
      ar.kind = LeafKind::arange;
      ar.dtype = DType::int64;
      ar.a = {0.0, 3};
      ar.b = {0.0, -2};
      ar.map = r.map;
      p.leaves = {stored_leaf(DType::float64, 0, x.map), stored_leaf(DType::float64, 1, m.map), r,
                  ar};
      // v4 = x - m ; v5 = v4 * r ; v6 = cast(ar) ; v7 = v5 + v6
      p.instrs = {instr(OpCode::sub, DType::float64, 0, 1),
                  instr(OpCode::mul, DType::float64, 4, 2), instr(OpCode::cast, DType::float64, 3),
                  instr(OpCode::add, DType::float64, 5, 6)};
      const index_t n = box_size(extent);
      if (variant == 1) {
        p.sink.map.base = n - 1;
        for (std::size_t k = 0; k < extent.size(); ++k)
          p.sink.map.coef[k] = -p.sink.map.coef[k];
      } else if (variant == 2) {
        p.sink.map.base = 1;
        for (std::size_t k = 0; k < extent.size(); ++k)
          p.sink.map.coef[k] *= 2;
      }
      SCOPED_TRACE(::testing::Message() << "box of " << n << " positions, " << outer
                                        << " outer axes, variant " << variant);
      check_store(p, {&x.buffer, &m.buffer}, (variant == 2 ? 2 : 1) * n + 1);
    }
  }
}

TEST(CpuInterpreter, ReversedAndEveryOtherReadsOfEightByteLeaves) {
  // x[::-1] and x[::2] of float64 and int64 go through whole-vector gathers: every length around
  // the vector widths, read from buffers that end at the last element read (so that a read past
  // it shows under the address sanitizer), against the element-by-element definition.
  for (const DType t : {DType::float64, DType::int64})
    for (const index_t step : {-1, 2})
      for (index_t n = 1; n <= 40; ++n) {
        const index_t span = step == 2 ? 2 * n - 1 : n;
        std::vector<std::int64_t> src(static_cast<std::size_t>(span));
        for (index_t k = 0; k < span; ++k)
          src[static_cast<std::size_t>(k)] = k * 1000003 + 7; // float64: any bits will do
        BlockProgram p = box_program({n});
        p.leaves = {stored_leaf(t, 0, amap(step < 0 ? span - 1 : 0, {step}))};
        std::vector<std::int64_t> out(static_cast<std::size_t>(n), -1);
        const void* in[] = {src.data()};
        run_program(p, in, out.data());
        for (index_t k = 0; k < n; ++k)
          ASSERT_EQ(out[static_cast<std::size_t>(k)],
                    src[static_cast<std::size_t>(step < 0 ? span - 1 - k : 2 * k)])
              << dtype_name(t) << " step " << step << " length " << n << " element " << k;
      }
}

TEST(CpuInterpreter, LastAxisReductionsReadEveryLayoutOfAStoredBlock) {
  // Reducing the last axis cuts each tile into rows; a block laid out in C order is then read in
  // place across the rows, any other layout (rows further apart, columns first) through the tile
  // buffer. Each row's max and min must be those of its own values.
  std::mt19937_64 rng(41);
  const index_t rows = 37, cols = 300, pitch = 301;
  std::vector<double> x(static_cast<std::size_t>(rows * pitch));
  for (double& v : x)
    v = std::normal_distribution<double>()(rng);
  struct Layout {
    const char* name;
    AffineMap map;
    index_t at(index_t r, index_t c) const { return map.base + map.coef[0] * r + map.coef[1] * c; }
  };
  for (const Layout& layout :
       {Layout{"C order", amap(0, {cols, 1})}, Layout{"rows apart", amap(1, {pitch, 1})},
        Layout{"columns first", amap(0, {1, rows})}})
    for (const ReduceOp op : {ReduceOp::max, ReduceOp::min}) {
      BlockProgram p = box_program({rows, cols});
      p.leaves = {stored_leaf(DType::float64, 0, layout.map)};
      p.sink.kind = Sink::Kind::reduce;
      p.sink.op = op;
      p.sink.reduced_axes = 1;
      p.sink.map = amap(0, {1, 0});
      p.sink.num_partials = rows;
      std::vector<PartialWord> got(static_cast<std::size_t>(rows));
      const void* in[] = {x.data()};
      run_program(p, in, got.data());
      for (index_t r = 0; r < rows; ++r) {
        double want = op == ReduceOp::max ? -inf_v : inf_v;
        for (index_t c = 0; c < cols; ++c) {
          const double v = x[static_cast<std::size_t>(layout.at(r, c))];
          want = op == ReduceOp::max ? std::max(want, v) : std::min(want, v);
        }
        ASSERT_EQ(got[static_cast<std::size_t>(r)].f, want)
            << layout.name << " " << reduce_op_name(op) << " row " << r;
      }
    }
}

TEST(CpuInterpreter, ArangeInEveryDtype) {
  for (DType t : all_dtypes) {
    BlockProgram p = box_program({3, 1500});
    Leaf ar;
    ar.kind = LeafKind::arange;
    ar.dtype = t;
    ar.a = {-7.5, i64_max - 5};
    ar.b = {0.1, 7};
    ar.map = amap(11, {-1500, 1});
    p.leaves = {ar};
    check_store(p, {}, 4500);
  }
}

TEST(CpuInterpreter, ConstantsInEveryDtypeAndSingleLeafPrograms) {
  for (DType t : all_dtypes) {
    BlockProgram p = box_program({5000});
    p.leaves = {constant_leaf(t, -2.75, -3)};
    check_store(p, {}, 5000);
  }
  // A program of several leaves and no instructions yields its last leaf.
  BlockProgram p = box_program({9});
  Buffer x(DType::int64, 9);
  for (index_t k = 0; k < 9; ++k)
    x.set(k, std::int64_t{k * k});
  p.leaves = {constant_leaf(DType::float64, 1, 0), stored_leaf(DType::int64, 0, amap(8, {-1}))};
  check_store(p, {&x}, 9);
}

TEST(CpuInterpreter, RandomLeavesEqualThePerElementDistributions) {
  for (DType t : {DType::float64, DType::float32, DType::int32, DType::int64}) {
    for (LeafKind kind : {LeafKind::normal, LeafKind::uniform, LeafKind::integers}) {
      if (kind == LeafKind::integers && is_floating(t))
        continue;
      if (kind != LeafKind::integers && !is_floating(t))
        continue;
      for (const AffineMap& m : {amap(1, {3000, 1}), amap(4, {2, 1000}), amap(20001, {-7, -2}),
                                 amap(5, {0, 1}), amap(0, {1, 0})}) {
        BlockProgram p = box_program({3, 999});
        Leaf r;
        r.kind = kind;
        r.dtype = t;
        r.seed = 0x1234'5678'9abc'def0ull;
        r.stream = 3;
        r.a = {10.0, -1000};
        r.b = {2.0, 1000};
        r.map = m;
        p.leaves = {r};
        check_store(p, {}, 3 * 999);
      }
    }
  }
}

TEST(CpuInterpreter, DeadValuesAndReusedBuffers) {
  // A long chain whose intermediate values die early, plus an unused leaf whose input is null:
  // buffers are reused and the dead leaf is never read.
  BlockProgram p = box_program({5001});
  Buffer x(DType::float64, 5001);
  for (index_t k = 0; k < 5001; ++k)
    x.set(k, 0.001 * static_cast<double>(k) - 2);
  p.leaves = {stored_leaf(DType::float64, 0, amap(0, {1})), constant_leaf(DType::float64, 0.5, 0),
              stored_leaf(DType::float64, 1, amap(0, {1}))};
  std::int16_t last = 0;
  for (int j = 0; j < 40; ++j) {
    const auto op = j % 3 == 0 ? OpCode::add : j % 3 == 1 ? OpCode::mul : OpCode::sin;
    p.instrs.push_back(instr(op, DType::float64, last, op == OpCode::sin ? -1 : 1));
    last = static_cast<std::int16_t>(3 + j);
  }
  p.instrs.push_back(instr(OpCode::add, DType::float64, last, 0));
  Buffer out(DType::float64, 5001);
  const void* in[] = {x.data(), nullptr};
  run_program(p, in, out.data());
  std::vector<const Buffer*> inputs = {&x, &x};
  for (index_t k = 0; k < 5001; k += 37) {
    std::vector<index_t> i = {k};
    EXPECT_TRUE(same_value(out.get(k), ref_result(p, i, inputs))) << k;
  }
}

TEST(CpuInterpreter, RejectsMalformedPrograms) {
  BlockProgram p = box_program({4});
  p.leaves = {constant_leaf(DType::float64, 1, 0)};
  p.instrs = {instr(OpCode::add, DType::float64, 0, 1)}; // reads itself
  double out[4];
  EXPECT_THROW(run_program(p, {}, out), ValueError);
  p.instrs = {instr(OpCode::sqrt, DType::int64, 0)}; // result dtype wrong
  EXPECT_THROW(run_program(p, {}, out), ValueError);
  p.leaves = {constant_leaf(DType::int64, 1, 0)};
  p.instrs = {instr(OpCode::sqrt, DType::int64, 0)}; // sqrt of integers
  EXPECT_THROW(run_program(p, {}, out), ValueError);
  p.leaves = {stored_leaf(DType::float64, 2, amap(0, {1}))};
  p.instrs.clear();
  EXPECT_THROW(run_program(p, {}, out), ValueError);
  p.leaves = {constant_leaf(DType::float64, 1, 0)};
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = ReduceOp::sum;
  p.sink.num_partials = 2;
  p.sink.map = amap(0, {1}); // entries 0..3 but only 2 partials
  EXPECT_THROW(run_program(p, {}, out), ValueError);
}

} // namespace
} // namespace chunked::test::interp
