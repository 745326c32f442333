// SPDX-License-Identifier: Apache-2.0
// The CPU tile interpreter's fast paths against its element-by-element fold, bit for bit.

#include <gtest/gtest.h>

#include "unit/cpu_interpreter_support.hpp"

namespace chunked::test::interp {
namespace {

// ---- Fast paths against the element-by-element fold ----------------------------------------

/// The four operations of the wide arithmetic loops, and one of them on two values.
constexpr OpCode arith_ops[] = {OpCode::add, OpCode::sub, OpCode::mul, OpCode::div};
template <class T> T apply(OpCode op, T x, T y) {
  return op == OpCode::add ? x + y : op == OpCode::sub ? x - y : op == OpCode::mul ? x * y : x / y;
}

/// Values with zeros of both signs, infinities, NaNs and ordinary numbers, by a seeded draw.
std::vector<double> awkward_values(index_t n, std::mt19937_64& rng, bool specials) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) {
    const auto k = rng() % 40;
    x = !specials || k > 5 ? std::normal_distribution<double>(0.5, 2.0)(rng)
        : k == 0           ? 0.0
        : k == 1           ? -0.0
        : k == 2           ? nan_v
        : k == 3           ? -nan_v
        : k == 4           ? inf_v
                           : -inf_v;
  }
  return v;
}

TEST(CpuInterpreter, KeptAxisReductionsEqualTheElementFoldBitForBit) {
  // Reducing axis 0 of a (rows, cols) box accumulates whole rows into contiguous entries; each
  // entry must see exactly the scalar fold of its column in row order.
  std::mt19937_64 rng(23);
  const ReduceOp ops[] = {ReduceOp::sum, ReduceOp::mean, ReduceOp::prod, ReduceOp::min,
                          ReduceOp::max, ReduceOp::var,  ReduceOp::any,  ReduceOp::all};
  // Eight rows and more also take var's several-rows-at-once loop: whole groups, leftover rows,
  // and non-finite values in some rows of a group.
  const std::vector<std::pair<index_t, index_t>> shapes = {
      {1, 1},    {1, 2049}, {2049, 2}, {3, 700},  {5, 2048},
      {7, 2047}, {300, 13}, {8, 64},   {37, 300}, {16, 4100}};
  for (ReduceOp op : ops)
    for (const auto& [rows, cols] : shapes)
      for (bool specials : {false, true}) {
        const std::vector<double> x = awkward_values(rows * cols, rng, specials);
        BlockProgram p = box_program({rows, cols});
        p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1}))};
        p.sink.kind = Sink::Kind::reduce;
        p.sink.op = op;
        p.sink.reduced_axes = 1;
        p.sink.map = amap(0, {0, 1});
        p.sink.num_partials = cols;
        const int words = partial_layout(op, DType::float64).words;
        std::vector<PartialWord> got(static_cast<std::size_t>(cols * words));
        std::vector<PartialWord> want(got.size());
        const void* in[] = {x.data()};
        run_program(p, in, got.data());
        cpu::init_partials(op, DType::float64, want.data(), cols);
        for (index_t r = 0; r < rows; ++r)
          for (index_t c = 0; c < cols; ++c) {
            PartialWord* e = want.data() + c * words;
            const double v = x[static_cast<std::size_t>(r * cols + c)];
            switch (op) {
            case ReduceOp::sum:
            case ReduceOp::mean:
              e->f += v;
              break;
            case ReduceOp::prod:
              e->f *= v;
              break;
            case ReduceOp::min:
              e->f = cpu::detail::nan_min(e->f, v);
              break;
            case ReduceOp::max:
              e->f = cpu::detail::nan_max(e->f, v);
              break;
            case ReduceOp::var:
              cpu::detail::merge_moments(e, 1.0, v, 0.0);
              break;
            case ReduceOp::any:
              e->i = e->i != 0 || v != 0;
              break;
            default:
              e->i = e->i != 0 && v != 0;
              break;
            }
          }
        for (std::size_t k = 0; k < got.size(); ++k) {
          const bool ok = partial_layout(op, DType::float64).floating
                              ? same_bits_or_nan(got[k].f, want[k].f)
                              : got[k].i == want[k].i;
          ASSERT_TRUE(ok) << reduce_op_name(op) << " " << rows << "x" << cols << " word " << k
                          << ": " << got[k].f << " vs " << want[k].f;
        }
      }
}

TEST(CpuInterpreter, ColumnMomentsOfRowGroupsEqualTheElementFoldBitForBit) {
  // var over axis 0 of a stored block folds eight rows at a time while every value is finite; a
  // rare infinity or NaN (or an overflow) sends the entries from its block on to the one-row
  // loops, within a group and from then on; the entries of a row past its last whole block take
  // the eight rows a vector at a time, and the last few (fewer than a vector) together. Widths:
  // blocks and a few entries (4100), blocks and vectors (75), vectors and a tail (10), a tail
  // alone (3). Each entry must still see the scalar fold of its column in order.
  std::mt19937_64 rng(31);
  const index_t rows = 29;
  for (const index_t cols : {4100, 75, 10, 3})
    for (const auto& specials : std::vector<std::vector<std::tuple<index_t, index_t, double>>>{
             // (row, column counted from the right when negative, value)
             {},
             {{11, 1000, nan_v}},
             {{3, 70, inf_v}, {20, 3000, -inf_v}},
             {{0, 0, nan_v}},
             {{28, -1, inf_v}},
             {{5, -2, nan_v}, {13, -3, -inf_v}},
             // finite values whose squared deviation overflows: m2 becomes infinite, and the
             // blocks holding them take the one-row loops though nothing was infinite before
             {{9, 200, 1e300}, {10, 200, -1e300}, {2, -1, 1e300}}}) {
      std::vector<double> x = awkward_values(rows * cols, rng, false);
      for (const auto& [r, c, v] : specials)
        x[static_cast<std::size_t>(r * cols + (c < 0 ? cols + c : c % cols))] = v;
      BlockProgram p = box_program({rows, cols});
      p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1}))};
      p.sink.kind = Sink::Kind::reduce;
      p.sink.op = ReduceOp::var;
      p.sink.reduced_axes = 1;
      p.sink.map = amap(0, {0, 1});
      p.sink.num_partials = cols;
      std::vector<PartialWord> got(static_cast<std::size_t>(cols * 3)), want(got.size());
      const void* in[] = {x.data()};
      run_program(p, in, got.data());
      cpu::init_partials(ReduceOp::var, DType::float64, want.data(), cols);
      for (index_t r = 0; r < rows; ++r)
        for (index_t c = 0; c < cols; ++c)
          cpu::detail::merge_moments(want.data() + c * 3, 1.0,
                                     x[static_cast<std::size_t>(r * cols + c)], 0.0);
      for (std::size_t k = 0; k < got.size(); ++k)
        ASSERT_TRUE(same_bits_or_nan(got[k].f, want[k].f))
            << cols << " columns, " << specials.size() << " specials, word " << k << ": "
            << got[k].f << " vs " << want[k].f;
    }
}

TEST(CpuInterpreter, KeptAxisSumsOfAnArithmeticResultEqualTheElementFoldBitForBit) {
  // sum/mean(Axes{0}) of a op b (+, -, *, /) with x's three leaves: the last instruction folds
  // straight into the sum rows, and must give each entry the fold of its rounded values in row
  // order, as a separate instruction and sum would. One operand is itself an instruction.
  std::mt19937_64 rng(29);
  const std::vector<std::pair<index_t, index_t>> shapes = {{1, 1},   {1, 2049}, {2049, 2},
                                                           {3, 700}, {7, 2047}, {300, 13}};
  for (ReduceOp sink : {ReduceOp::sum, ReduceOp::mean})
    for (OpCode op : arith_ops)
      for (const auto& [rows, cols] : shapes)
        for (bool specials : {false, true}) {
          const std::vector<double> a = awkward_values(rows * cols, rng, specials);
          const std::vector<double> b = awkward_values(rows * cols, rng, specials);
          const std::vector<double> c = awkward_values(cols, rng, specials);
          BlockProgram p = box_program({rows, cols});
          p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1})),
                      stored_leaf(DType::float64, 1, amap(0, {cols, 1})),
                      stored_leaf(DType::float64, 2, amap(0, {0, 1}))}; // c broadcast over rows
          p.instrs = {{OpCode::mul, DType::float64, {0, 1, -1}}, {op, DType::float64, {3, 2, -1}}};
          p.sink.kind = Sink::Kind::reduce;
          p.sink.op = sink;
          p.sink.reduced_axes = 1;
          p.sink.map = amap(0, {0, 1});
          p.sink.num_partials = cols;
          std::vector<PartialWord> got(static_cast<std::size_t>(cols));
          std::vector<PartialWord> want(got.size());
          const void* in[] = {a.data(), b.data(), c.data()};
          run_program(p, in, got.data());
          cpu::init_partials(sink, DType::float64, want.data(), cols);
          for (index_t r = 0; r < rows; ++r)
            for (index_t k = 0; k < cols; ++k) {
              const auto j = static_cast<std::size_t>(r * cols + k);
              const double ab = a[j] * b[j], ck = c[static_cast<std::size_t>(k)];
              want[static_cast<std::size_t>(k)].f += apply(op, ab, ck);
            }
          for (std::size_t k = 0; k < got.size(); ++k)
            ASSERT_TRUE(same_bits_or_nan(got[k].f, want[k].f))
                << opcode_name(op) << " " << rows << "x" << cols << " entry " << k << ": "
                << got[k].f << " vs " << want[k].f;
        }
}

TEST(CpuInterpreter, ArithmeticPairsEqualTheSeparateOperationsBitForBit) {
  // (a op1 b) op2 c and c op2 (a op1 b) for every pair of +, -, *, /, stored into a strided and
  // a contiguous output and reduced, with a broadcast c: the wide loops run each such pair as one
  // pass, whose values must be the two separately rounded operations'. An intermediate read
  // twice, or by two instructions, stays a value of its own.
  std::mt19937_64 rng(31);
  const index_t rows = 5, cols = 2051;
  const std::vector<double> a = awkward_values(rows * cols, rng, true);
  const std::vector<double> b = awkward_values(rows * cols, rng, true);
  const std::vector<double> c = awkward_values(cols, rng, true);
  const void* in[] = {a.data(), b.data(), c.data()};
  for (OpCode op1 : arith_ops)
    for (OpCode op2 : arith_ops)
      for (bool left : {true, false}) {
        BlockProgram p = box_program({rows, cols});
        p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1})),
                    stored_leaf(DType::float64, 1, amap(0, {cols, 1})),
                    stored_leaf(DType::float64, 2, amap(0, {0, 1}))};
        p.instrs = {{op1, DType::float64, {0, 1, -1}},
                    {op2,
                     DType::float64,
                     {static_cast<std::int16_t>(left ? 3 : 2),
                      static_cast<std::int16_t>(left ? 2 : 3), -1}}};
        std::vector<double> want(static_cast<std::size_t>(rows * cols));
        for (index_t r = 0; r < rows; ++r)
          for (index_t k = 0; k < cols; ++k) {
            const auto j = static_cast<std::size_t>(r * cols + k);
            const double t = apply(op1, a[j], b[j]), ck = c[static_cast<std::size_t>(k)];
            want[j] = left ? apply(op2, t, ck) : apply(op2, ck, t);
          }
        for (bool strided : {false, true}) {
          p.sink.map = strided ? amap(rows * cols - 1, {-cols, -1}) : amap(0, {cols, 1});
          std::vector<double> got(want.size());
          run_program(p, in, got.data());
          for (std::size_t j = 0; j < got.size(); ++j) {
            const double w = strided ? want[want.size() - 1 - j] : want[j];
            ASSERT_TRUE(same_bits_or_nan(got[j], w))
                << opcode_name(op1) << ", " << opcode_name(op2) << (left ? " left" : " right")
                << (strided ? " strided" : "") << " element " << j << ": " << got[j] << " vs " << w;
          }
        }
      }
  // t = a - b read twice (t * t), and t read by two instructions ((t + c) * t): no pair.
  BlockProgram p = box_program({rows, cols});
  p.leaves = {stored_leaf(DType::float64, 0, amap(0, {cols, 1})),
              stored_leaf(DType::float64, 1, amap(0, {cols, 1})),
              stored_leaf(DType::float64, 2, amap(0, {0, 1}))};
  p.instrs = {{OpCode::sub, DType::float64, {0, 1, -1}},
              {OpCode::mul, DType::float64, {3, 3, -1}},
              {OpCode::add, DType::float64, {4, 2, -1}},
              {OpCode::mul, DType::float64, {5, 3, -1}}};
  p.sink.map = amap(0, {cols, 1});
  std::vector<double> got(static_cast<std::size_t>(rows * cols));
  run_program(p, in, got.data());
  for (index_t r = 0; r < rows; ++r)
    for (index_t k = 0; k < cols; ++k) {
      const auto j = static_cast<std::size_t>(r * cols + k);
      const double t = a[j] - b[j];
      ASSERT_TRUE(same_bits_or_nan(got[j], (t * t + c[static_cast<std::size_t>(k)]) * t)) << j;
    }
}

TEST(CpuInterpreter, ArithmeticWithConstantOperandsEqualsTheElementOperationsBitForBit) {
  // The wide add/sub/mul/div loops read a constant operand as one value held in a register:
  // every choice of constant operands, in single float64 and float32 operations and in fused
  // float64 pairs (a op1 b) op2 c and c op2 (a op1 b), into tile-sized outputs and into outputs
  // large enough to be streamed, against the operations element by element. Constants include
  // a negative zero, a subnormal and an infinity.
  std::mt19937_64 rng(37);
  const double constants[] = {1.5, -0.0, 4e-310, -std::numeric_limits<double>::infinity(), 3.25};
  for (const bool large : {false, true}) {
    // Large: 4 MiB and more of float64 output, which the pair and single loops stream.
    const index_t rows = large ? 129 : 3, cols = large ? 4099 : 2051;
    const auto n = static_cast<std::size_t>(rows * cols);
    std::vector<std::vector<double>> data;
    for (int k = 0; k < 3; ++k)
      data.push_back(awkward_values(rows * cols, rng, true));
    const void* in[] = {data[0].data(), data[1].data(), data[2].data()};
    std::vector<double> got(n);
    for (unsigned scalars = 0; scalars < 8; ++scalars) {
      const double value[] = {constants[scalars % 5], constants[(scalars + 1) % 5],
                              constants[(scalars + 3) % 5]};
      auto operand = [&](int k, std::size_t j) {
        return (scalars >> k) & 1u ? value[k] : data[static_cast<std::size_t>(k)][j];
      };
      std::vector<Leaf> leaves;
      for (int k = 0; k < 3; ++k)
        leaves.push_back((scalars >> k) & 1u ? constant_leaf(DType::float64, value[k], 0)
                                             : stored_leaf(DType::float64, k, amap(0, {cols, 1})));
      for (const OpCode op1 : arith_ops) {
        // A single operation on operands 0 and 1.
        BlockProgram single = box_program({rows, cols});
        single.leaves = {leaves[0], leaves[1]};
        single.instrs = {instr(op1, DType::float64, 0, 1)};
        single.sink.map = amap(0, {cols, 1});
        run_program(single, in, got.data());
        for (std::size_t j = 0; j < n; ++j)
          ASSERT_TRUE(same_bits_or_nan(got[j], apply(op1, operand(0, j), operand(1, j))))
              << opcode_name(op1) << " scalars " << scalars << " element " << j;
        for (const OpCode op2 : arith_ops)
          for (const bool left : {true, false}) {
            if (large && op2 != arith_ops[(static_cast<int>(op1) + 1) % 4])
              continue; // large outputs: four of the sixteen pairs of operations
            BlockProgram p = box_program({rows, cols});
            p.leaves = leaves;
            p.instrs = {instr(op1, DType::float64, 0, 1),
                        left ? instr(op2, DType::float64, 3, 2) : instr(op2, DType::float64, 2, 3)};
            p.sink.map = amap(0, {cols, 1});
            run_program(p, in, got.data());
            for (std::size_t j = 0; j < n; ++j) {
              const double t = apply(op1, operand(0, j), operand(1, j));
              const double want =
                  left ? apply(op2, t, operand(2, j)) : apply(op2, operand(2, j), t);
              ASSERT_TRUE(same_bits_or_nan(got[j], want))
                  << opcode_name(op1) << ", " << opcode_name(op2) << (left ? " left" : " right")
                  << " scalars " << scalars << " element " << j << ": " << got[j] << " vs " << want;
            }
          }
      }
      if (large || scalars >= 4)
        continue;
      // float32, single operations.
      std::vector<std::vector<float>> narrow(2, std::vector<float>(n));
      for (int k = 0; k < 2; ++k)
        for (std::size_t j = 0; j < n; ++j)
          narrow[static_cast<std::size_t>(k)][j] =
              static_cast<float>(data[static_cast<std::size_t>(k)][j]);
      const void* in32[] = {narrow[0].data(), narrow[1].data()};
      std::vector<float> got32(n);
      for (const OpCode op : arith_ops) {
        BlockProgram p = box_program({rows, cols});
        for (int k = 0; k < 2; ++k)
          p.leaves.push_back((scalars >> k) & 1u
                                 ? constant_leaf(DType::float32, value[k], 0)
                                 : stored_leaf(DType::float32, k, amap(0, {cols, 1})));
        p.instrs = {instr(op, DType::float32, 0, 1)};
        p.sink.map = amap(0, {cols, 1});
        run_program(p, in32, got32.data());
        for (std::size_t j = 0; j < n; ++j) {
          auto at = [&](int k) {
            return (scalars >> k) & 1u ? static_cast<float>(value[k])
                                       : narrow[static_cast<std::size_t>(k)][j];
          };
          const float want = apply(op, at(0), at(1));
          ASSERT_TRUE(same_bits_or_nan(got32[j], want))
              << "float32 " << opcode_name(op) << " scalars " << scalars << " element " << j;
        }
      }
    }
  }
}

TEST(CpuInterpreter, MinMaxOverAllAxesKeepTheFirstNanAndTheLastOfEqualZeros) {
  // The lane-parallel extreme must give what the scalar fold gives: the first NaN's bits, and
  // among zeros of both signs the sign of the last one in box order. Patterns: normal values;
  // zeros of both signs; small integers (zero the extreme) with 2 or 3 NaNs; normal values with
  // infinities of both signs, without and with a NaN.
  std::mt19937_64 rng(29);
  for (index_t n : {1, 7, 8, 9, 31, 32, 33, 2047, 2048, 2049, 5000})
    for (int pattern = 0; pattern < 6; ++pattern)
      for (bool mx : {false, true}) {
        std::vector<double> x(static_cast<std::size_t>(n));
        for (double& v : x)
          v = pattern == 0 || pattern >= 4 ? std::normal_distribution<double>()(rng)
              : pattern == 1               ? ((rng() & 1) ? 0.0 : -0.0)
                                           : (mx ? -1.0 : 1.0) * static_cast<double>(rng() % 3);
        if (pattern >= 4)
          for (int k = 0; k < 3; ++k)
            x[rng() % x.size()] = (rng() & 1) ? inf_v : -inf_v;
        if (pattern == 2 || pattern == 3 || pattern == 5)
          for (int k = 0; k < (pattern == 5 ? 1 : pattern); ++k) {
            double q = nan_v;
            std::uint64_t bits;
            std::memcpy(&bits, &q, sizeof q);
            bits |= rng() % 1000 + 1; // a distinct payload per NaN
            std::memcpy(&q, &bits, sizeof q);
            x[rng() % x.size()] = q;
          }
        BlockProgram p = box_program({n});
        p.leaves = {stored_leaf(DType::float64, 0, amap(0, {1}))};
        p.sink.kind = Sink::Kind::reduce;
        p.sink.op = mx ? ReduceOp::max : ReduceOp::min;
        p.sink.reduced_axes = 1;
        p.sink.map = amap(0, {0});
        p.sink.num_partials = 1;
        PartialWord got;
        const void* in[] = {x.data()};
        run_program(p, in, &got);
        double want = mx ? -inf_v : inf_v;
        for (double v : x)
          want = mx ? cpu::detail::nan_max(want, v) : cpu::detail::nan_min(want, v);
        EXPECT_EQ(std::memcmp(&got.f, &want, sizeof want), 0)
            << n << " pattern " << pattern << (mx ? " max " : " min ") << got.f << " vs " << want;
      }
}

} // namespace
} // namespace chunked::test::interp
