// SPDX-License-Identifier: Apache-2.0
// Reduction partial states on the CPU: identities, fixed-order combining, finalizing.

#include <gtest/gtest.h>

#include "backend/cpu/partials.hpp"
#include "plan/partial.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace chunked;
using plan::PartialWord;
using plan::ReduceOp;

constexpr double inf_v = std::numeric_limits<double>::infinity();
constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();

PartialWord f(double x) {
  PartialWord w;
  w.f = x;
  return w;
}
PartialWord i(std::int64_t x) {
  PartialWord w;
  w.i = x;
  return w;
}

TEST(CpuPartials, IdentitiesFollowTheDocumentedTable) {
  PartialWord w[6];
  cpu::init_partials(ReduceOp::sum, DType::float32, w, 2);
  EXPECT_EQ(w[1].f, 0.0);
  cpu::init_partials(ReduceOp::prod, DType::int32, w, 2);
  EXPECT_EQ(w[1].i, 1);
  cpu::init_partials(ReduceOp::min, DType::float64, w, 1);
  EXPECT_EQ(w[0].f, inf_v);
  cpu::init_partials(ReduceOp::max, DType::bool_, w, 1);
  EXPECT_EQ(w[0].i, std::numeric_limits<std::int64_t>::min());
  cpu::init_partials(ReduceOp::all, DType::float64, w, 1);
  EXPECT_EQ(w[0].i, 1);
  cpu::init_partials(ReduceOp::any, DType::float64, w, 1);
  EXPECT_EQ(w[0].i, 0);
  cpu::init_partials(ReduceOp::var, DType::int32, w, 2);
  for (auto& x : w)
    EXPECT_EQ(x.f, 0.0);
  cpu::init_partials(ReduceOp::argmax, DType::float32, w, 3);
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(w[2 * p].f, -inf_v);
    EXPECT_EQ(w[2 * p + 1].i, i64_max);
  }
}

/// Combining the identity with a state leaves it unchanged, on either side.
TEST(CpuPartials, IdentityIsNeutralOnBothSides) {
  const ReduceOp ops[] = {ReduceOp::sum,    ReduceOp::prod,  ReduceOp::min,  ReduceOp::max,
                          ReduceOp::any,    ReduceOp::all,   ReduceOp::mean, ReduceOp::var,
                          ReduceOp::argmin, ReduceOp::argmax};
  for (ReduceOp op : ops) {
    for (DType t : {DType::int64, DType::float64}) {
      const int words = plan::partial_layout(op, t).words;
      std::vector<PartialWord> id(words), s(words), out(words);
      cpu::init_partials(op, t, id.data(), 1);
      const bool fl = plan::partial_layout(op, t).floating;
      s[0] = fl ? f(-inf_v) : i(std::numeric_limits<std::int64_t>::max());
      if (op == ReduceOp::any || op == ReduceOp::all)
        s[0] = i(1);
      if (op == ReduceOp::var)
        s = {f(3), f(2.5), f(1.25)};
      if (words == 2)
        s[1] = i(12);
      cpu::combine_partials(op, t, id.data(), s.data(), out.data(), 1);
      for (int k = 0; k < words; ++k)
        EXPECT_EQ(out[k].i, s[k].i) << reduce_op_name(op);
      cpu::combine_partials(op, t, s.data(), id.data(), out.data(), 1);
      for (int k = 0; k < words; ++k)
        EXPECT_EQ(out[k].i, s[k].i) << reduce_op_name(op);
    }
  }
}

TEST(CpuPartials, IntegerCombinesAreAssociativeAndWrap) {
  std::mt19937_64 rng(3);
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max}) {
    std::vector<PartialWord> a(64), b(64), c(64), l(64), r(64);
    for (int p = 0; p < 64; ++p) {
      a[p] = i(static_cast<std::int64_t>(rng()));
      b[p] = i(static_cast<std::int64_t>(rng()));
      c[p] = i(static_cast<std::int64_t>(rng()));
    }
    cpu::combine_partials(op, DType::int64, a.data(), b.data(), l.data(), 64);
    cpu::combine_partials(op, DType::int64, l.data(), c.data(), l.data(), 64); // out aliases a
    cpu::combine_partials(op, DType::int64, b.data(), c.data(), r.data(), 64);
    cpu::combine_partials(op, DType::int64, a.data(), r.data(), r.data(), 64); // out aliases b
    for (int p = 0; p < 64; ++p)
      EXPECT_EQ(l[p].i, r[p].i) << reduce_op_name(op);
  }
}

TEST(CpuPartials, MomentsMergeLikeOnePass) {
  // Three groups of values, merged left to right, against the statistics of all of them.
  const std::vector<std::vector<double>> groups = {{1, 2, 3, 4}, {10}, {-5, 7.5, 0.25}};
  std::vector<PartialWord> acc(3);
  cpu::init_partials(ReduceOp::var, DType::float64, acc.data(), 1);
  double n = 0, sum = 0;
  for (const auto& g : groups) {
    double m = 0;
    for (double x : g)
      m += x;
    m /= static_cast<double>(g.size());
    double m2 = 0;
    for (double x : g)
      m2 += (x - m) * (x - m);
    const PartialWord s[3] = {f(static_cast<double>(g.size())), f(m), f(m2)};
    cpu::combine_partials(ReduceOp::var, DType::float64, acc.data(), s, acc.data(), 1);
    for (double x : g) {
      n += 1;
      sum += x;
    }
  }
  const double mean = sum / n;
  double m2 = 0;
  for (const auto& g : groups)
    for (double x : g)
      m2 += (x - mean) * (x - mean);
  EXPECT_EQ(acc[0].f, n);
  EXPECT_NEAR(acc[1].f, mean, 1e-14);
  EXPECT_NEAR(acc[2].f, m2, 1e-12);
  double var[2];
  cpu::finalize_partials(ReduceOp::var, ReduceOp::var, DType::int32, acc.data(), 1, 8, 1, var);
  EXPECT_NEAR(var[0], m2 / 7, 1e-12);
  float sd;
  cpu::finalize_partials(ReduceOp::std, ReduceOp::std, DType::float32, acc.data(), 1, 8, 0, &sd);
  EXPECT_FLOAT_EQ(sd, static_cast<float>(std::sqrt(m2 / 8)));
}

TEST(CpuPartials, VarianceDegreesOfFreedomFollowNumPy) {
  const PartialWord s[6] = {f(2), f(1), f(2), f(1), f(5), f(0)};
  double out[2];
  cpu::finalize_partials(ReduceOp::var, ReduceOp::var, DType::float64, s, 2, 2, 1, out);
  EXPECT_EQ(out[0], 2.0);
  EXPECT_TRUE(std::isnan(out[1])); // 0 / 0
  cpu::finalize_partials(ReduceOp::var, ReduceOp::var, DType::float64, s, 2, 2, 3, out);
  EXPECT_EQ(out[0], inf_v); // M2 / max(2 - 3, 0)
  cpu::finalize_partials(ReduceOp::std, ReduceOp::std, DType::float64, s, 1, 2, 0, out);
  EXPECT_EQ(out[0], 1.0);
}

// One moments pass serves mean, var and std of the same input: each finalizes the same
// (count, mean, M2) entries; a state that holds no element has a NaN mean, as 0 / 0.
TEST(CpuPartials, MomentsFinalizeIntoMeanVarAndStd) {
  const PartialWord s[6] = {f(4), f(2.5), f(5), f(0), f(0), f(0)};
  double mean[2], var[2], sd[2];
  cpu::finalize_partials(ReduceOp::var, ReduceOp::mean, DType::float64, s, 2, 4, 0, mean);
  EXPECT_EQ(mean[0], 2.5);
  EXPECT_TRUE(std::isnan(mean[1]));
  cpu::finalize_partials(ReduceOp::std, ReduceOp::var, DType::float64, s, 2, 4, 1, var);
  EXPECT_EQ(var[0], 5.0 / 3.0);
  EXPECT_TRUE(std::isnan(var[1]));
  cpu::finalize_partials(ReduceOp::var, ReduceOp::std, DType::float64, s, 1, 4, 0, sd);
  EXPECT_EQ(sd[0], std::sqrt(5.0 / 4.0));
  float fmean;
  cpu::finalize_partials(ReduceOp::var, ReduceOp::mean, DType::float32, s, 1, 4, 0, &fmean);
  EXPECT_EQ(fmean, 2.5f);
  double int_mean;
  cpu::finalize_partials(ReduceOp::var, ReduceOp::mean, DType::int32, s, 1, 4, 0, &int_mean);
  EXPECT_EQ(int_mean, 2.5);
}

TEST(CpuPartials, FinalizeRefusesAResultThePartialsDoNotHold) {
  const PartialWord s[3] = {f(1), f(1), f(0)};
  double out;
  EXPECT_THROW(
      cpu::finalize_partials(ReduceOp::sum, ReduceOp::mean, DType::float64, s, 1, 1, 0, &out),
      ValueError);
  EXPECT_THROW(
      cpu::finalize_partials(ReduceOp::mean, ReduceOp::var, DType::float64, s, 1, 1, 0, &out),
      ValueError);
  EXPECT_THROW(
      cpu::finalize_partials(ReduceOp::var, ReduceOp::max, DType::float64, s, 1, 1, 0, &out),
      ValueError);
}

TEST(CpuPartials, FinalizeMeanSumAndMinMaxToTheResultDtype) {
  const PartialWord sums[2] = {f(10), f(0)};
  double mean[2];
  cpu::finalize_partials(ReduceOp::mean, ReduceOp::mean, DType::int64, sums, 2, 4, 0, mean);
  EXPECT_EQ(mean[0], 2.5);
  EXPECT_EQ(mean[1], 0.0);
  cpu::finalize_partials(ReduceOp::mean, ReduceOp::mean, DType::float64, sums, 1, 0, 0, mean);
  EXPECT_EQ(mean[0], inf_v); // 10 / 0
  float fs;
  const PartialWord third = f(1.0 / 3.0);
  cpu::finalize_partials(ReduceOp::sum, ReduceOp::sum, DType::float32, &third, 1, 3, 0, &fs);
  EXPECT_EQ(fs, 1.0f / 3.0f);
  std::int64_t is;
  const PartialWord big = i(i64_max);
  cpu::finalize_partials(ReduceOp::sum, ReduceOp::sum, DType::bool_, &big, 1, 1, 0, &is);
  EXPECT_EQ(is, i64_max);
  std::int32_t m;
  const PartialWord neg = i(-17);
  cpu::finalize_partials(ReduceOp::min, ReduceOp::min, DType::int32, &neg, 1, 1, 0, &m);
  EXPECT_EQ(m, -17);
  bool any[2];
  const PartialWord flags[2] = {i(0), i(1)};
  cpu::finalize_partials(ReduceOp::any, ReduceOp::any, DType::float32, flags, 2, 1, 0, any);
  EXPECT_FALSE(any[0]);
  EXPECT_TRUE(any[1]);
}

TEST(CpuPartials, ArgCombinesPreferNanThenTheSmallerIndex) {
  auto combine = [](ReduceOp op, PartialWord av, std::int64_t ai, PartialWord bv, std::int64_t bi,
                    DType t = DType::float64) {
    const PartialWord a[2] = {av, i(ai)}, b[2] = {bv, i(bi)};
    PartialWord out[2];
    cpu::combine_partials(op, t, a, b, out, 1);
    std::int64_t idx;
    cpu::finalize_partials(op, op, t, out, 1, 0, 0, &idx);
    EXPECT_EQ(idx, out[1].i);
    return idx;
  };
  EXPECT_EQ(combine(ReduceOp::argmin, f(1), 5, f(1), 3), 3); // tie: smaller index
  EXPECT_EQ(combine(ReduceOp::argmin, f(1), 3, f(1), 5), 3);
  EXPECT_EQ(combine(ReduceOp::argmin, f(0), 9, f(1), 3), 9);
  EXPECT_EQ(combine(ReduceOp::argmin, f(0), 9, f(nan_v), 30), 30); // NaN wins
  EXPECT_EQ(combine(ReduceOp::argmax, f(nan_v), 9, f(inf_v), 3), 9);
  EXPECT_EQ(combine(ReduceOp::argmax, f(nan_v), 9, f(nan_v), 3), 3);
  EXPECT_EQ(combine(ReduceOp::argmax, i(-4), 1, i(7), 8, DType::int32), 8);
  EXPECT_EQ(combine(ReduceOp::argmin, i(-4), 1, i(7), 8, DType::int32), 1);
  // The identity loses even to +inf (argmin) / the int64 minimum (argmax).
  PartialWord id[2];
  cpu::init_partials(ReduceOp::argmin, DType::float64, id, 1);
  EXPECT_EQ(combine(ReduceOp::argmin, id[0], id[1].i, f(inf_v), 4), 4);
  cpu::init_partials(ReduceOp::argmax, DType::int64, id, 1);
  EXPECT_EQ(combine(ReduceOp::argmax, id[0], id[1].i, i(std::numeric_limits<std::int64_t>::min()),
                    4, DType::int64),
            4);
}

TEST(CpuPartials, FloatCombinesInFixedOrderAreReproducible) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> d(-1e6, 1e6);
  std::vector<PartialWord> blocks(1000);
  for (auto& b : blocks)
    b = f(d(rng));
  auto fold = [&] {
    PartialWord acc;
    cpu::init_partials(ReduceOp::sum, DType::float64, &acc, 1);
    for (const auto& b : blocks)
      cpu::combine_partials(ReduceOp::sum, DType::float64, &acc, &b, &acc, 1);
    return acc.f;
  };
  const double first = fold();
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(fold(), first);
  PartialWord a = f(nan_v), b = f(1);
  cpu::combine_partials(ReduceOp::min, DType::float64, &b, &a, &b, 1);
  EXPECT_TRUE(std::isnan(b.f));
  a = f(nan_v);
  b = f(1);
  cpu::combine_partials(ReduceOp::max, DType::float32, &a, &b, &a, 1);
  EXPECT_TRUE(std::isnan(a.f));
}

} // namespace
