// SPDX-License-Identifier: Apache-2.0
// The CPU tile interpreter's reductions against naive per-entry references.

#include <gtest/gtest.h>

#include "unit/cpu_interpreter_support.hpp"

namespace chunked::test::interp {
namespace {

// ---- Reductions ---------------------------------------------------------------------------------

struct Expected {
  std::vector<std::vector<Value>> values;
  std::vector<std::vector<index_t>> indices;
};

/// Sum in long double, for float tolerances.
long double exact_sum(const std::vector<Value>& v) {
  long double s = 0;
  for (const Value& x : v)
    s += std::visit([](auto y) { return static_cast<long double>(y); }, x);
  return s;
}

double as_double(const Value& v) {
  return std::visit([](auto y) { return static_cast<double>(y); }, v);
}
std::int64_t as_int(const Value& v) {
  return std::visit(
      [](auto y) -> std::int64_t {
        if constexpr (std::is_floating_point_v<decltype(y)>)
          return 0;
        else
          return static_cast<std::int64_t>(y);
      },
      v);
}

void check_entry(ReduceOp op, DType t, const std::vector<Value>& vals,
                 const std::vector<index_t>& idx, const PartialWord* w, const std::string& where) {
  SCOPED_TRACE(where);
  const bool fl = is_floating(t);
  auto near = [](double got, long double want, long double scale) {
    return std::fabs(static_cast<long double>(got) - want) <= 1e-12L * (scale + 1e-300L);
  };
  long double abs_sum = 0;
  for (const Value& v : vals)
    abs_sum += std::fabs(as_double(v));
  switch (op) {
  case ReduceOp::sum:
  case ReduceOp::mean:
    if (fl || op == ReduceOp::mean) {
      EXPECT_TRUE(near(w[0].f, exact_sum(vals), abs_sum))
          << w[0].f << " vs " << (double)exact_sum(vals);
    } else {
      std::uint64_t s = 0;
      for (const Value& v : vals)
        s += static_cast<std::uint64_t>(as_int(v));
      EXPECT_EQ(w[0].i, static_cast<std::int64_t>(s));
    }
    return;
  case ReduceOp::exact_sum:
  case ReduceOp::exact_mean: {
    const double got = chunked::scalar::exact::to_double(&w[0].i);
    EXPECT_TRUE(near(got, exact_sum(vals), abs_sum)) << got << " vs " << (double)exact_sum(vals);
    return;
  }
  case ReduceOp::prod:
    if (fl) {
      long double pr = 1;
      for (const Value& v : vals)
        pr *= as_double(v);
      EXPECT_TRUE(near(w[0].f, pr, std::fabs(pr) * 100)) << w[0].f << " vs " << (double)pr;
    } else {
      std::uint64_t pr = 1;
      for (const Value& v : vals)
        pr *= static_cast<std::uint64_t>(as_int(v));
      EXPECT_EQ(w[0].i, static_cast<std::int64_t>(pr));
    }
    return;
  case ReduceOp::min:
  case ReduceOp::max: {
    const bool mx = op == ReduceOp::max;
    if (fl) {
      double m = mx ? -inf_v : inf_v;
      bool nan = false;
      for (const Value& v : vals) {
        const double d = as_double(v);
        nan = nan || std::isnan(d);
        m = mx ? std::max(m, d) : std::min(m, d);
      }
      if (nan)
        EXPECT_TRUE(std::isnan(w[0].f));
      else
        EXPECT_EQ(w[0].f, m);
    } else {
      std::int64_t m = mx ? i64_min : i64_max;
      for (const Value& v : vals)
        m = mx ? std::max(m, as_int(v)) : std::min(m, as_int(v));
      EXPECT_EQ(w[0].i, m);
    }
    return;
  }
  case ReduceOp::any:
  case ReduceOp::all: {
    bool r = op == ReduceOp::all;
    for (const Value& v : vals) {
      const bool nz = as_double(v) != 0 || std::isnan(as_double(v));
      r = op == ReduceOp::all ? r && nz : r || nz;
    }
    EXPECT_EQ(w[0].i, r ? 1 : 0);
    return;
  }
  case ReduceOp::var:
  case ReduceOp::std: {
    EXPECT_EQ(w[0].f, static_cast<double>(vals.size()));
    if (vals.empty())
      return;
    const long double mean = exact_sum(vals) / vals.size();
    long double m2 = 0;
    for (const Value& v : vals)
      m2 += (as_double(v) - mean) * (as_double(v) - mean);
    EXPECT_TRUE(near(w[1].f, mean, abs_sum / vals.size())) << w[1].f << " vs " << (double)mean;
    long double sq = 0;
    for (const Value& v : vals)
      sq += as_double(v) * as_double(v);
    EXPECT_TRUE(near(w[2].f, m2, sq)) << w[2].f << " vs " << (double)m2;
    return;
  }
  case ReduceOp::argmin:
  case ReduceOp::argmax: {
    const bool mx = op == ReduceOp::argmax;
    std::size_t best = 0;
    for (std::size_t k = 1; k < vals.size(); ++k) {
      const double a = as_double(vals[best]), b = as_double(vals[k]);
      bool take;
      if (fl && (std::isnan(a) || std::isnan(b)))
        take = std::isnan(b) && (!std::isnan(a) || idx[k] < idx[best]);
      else if (fl)
        take = mx ? (b > a || (b == a && idx[k] < idx[best]))
                  : (b < a || (b == a && idx[k] < idx[best]));
      else {
        const auto ai = as_int(vals[best]), bi = as_int(vals[k]);
        take = mx ? (bi > ai || (bi == ai && idx[k] < idx[best]))
                  : (bi < ai || (bi == ai && idx[k] < idx[best]));
      }
      if (take)
        best = k;
    }
    if (vals.empty()) {
      EXPECT_EQ(w[1].i, i64_max);
      return;
    }
    EXPECT_EQ(w[1].i, idx[best]);
    if (fl)
      EXPECT_TRUE(same_value(Value(w[0].f), Value(as_double(vals[best]))));
    else
      EXPECT_EQ(w[0].i, as_int(vals[best]));
    return;
  }
  }
}

/// Reduces a stored input over `mask` (bit k: axis k reduced) and checks every partial entry.
void check_reduce(ReduceOp op, DType t, const std::vector<index_t>& extent, std::uint32_t mask,
                  std::mt19937_64& rng) {
  BlockProgram p = box_program(extent);
  StoredInput a = random_stored(t, extent, rng);
  if (op == ReduceOp::prod && is_floating(t))
    for (index_t k = 0; k < a.buffer.size(); ++k)
      a.buffer.set(k, 0.75 + 0.5 * std::uniform_real_distribution<double>()(rng));
  // A few NaNs and ties for the floating cases.
  if (is_floating(t) && a.buffer.size() > 10 && (rng() & 1) && op != ReduceOp::sum &&
      op != ReduceOp::mean && op != ReduceOp::var && op != ReduceOp::std && op != ReduceOp::prod &&
      op != ReduceOp::exact_sum && op != ReduceOp::exact_mean)
    a.buffer.set(static_cast<index_t>(rng() % a.buffer.size()), nan_v);
  p.leaves = {stored_leaf(t, 0, a.map)};
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = op;
  p.sink.reduced_axes = mask;
  std::vector<index_t> kept, reduced;
  for (std::size_t k = 0; k < extent.size(); ++k)
    ((mask >> k) & 1 ? reduced : kept).push_back(extent[k]);
  const auto kept_strides = c_strides(kept), red_strides = c_strides(reduced);
  p.sink.map = AffineMap{};
  p.sink.index_map = AffineMap{};
  for (std::size_t k = 0, kk = 0, rk = 0; k < extent.size(); ++k) {
    if ((mask >> k) & 1)
      p.sink.index_map.coef[k] = red_strides[rk++];
    else
      p.sink.map.coef[k] = kept_strides[kk++];
  }
  p.sink.num_partials = box_size(kept);
  const int words = partial_layout(op, t).words;
  std::vector<PartialWord> out(static_cast<std::size_t>(p.sink.num_partials * words + 1));
  out.back().i = 0x77;
  const void* in[] = {a.buffer.data()};
  run_program(p, in, out.data());
  EXPECT_EQ(out.back().i, 0x77) << "wrote past the partials";

  std::vector<std::vector<Value>> vals(p.sink.num_partials);
  std::vector<std::vector<index_t>> idx(p.sink.num_partials);
  std::vector<const Buffer*> inputs = {&a.buffer};
  for_each_position(p, [&](const std::vector<index_t>& i) {
    const index_t e = p.sink.map.at(i.data(), p.ndim);
    vals[e].push_back(ref_result(p, i, inputs));
    idx[e].push_back(p.sink.index_map.at(i.data(), p.ndim));
  });
  for (index_t e = 0; e < p.sink.num_partials; ++e)
    check_entry(op, t, vals[e], idx[e], out.data() + e * words,
                std::string(reduce_op_name(op)) + " " + std::string(dtype_name(t)) + " mask " +
                    std::to_string(mask) + " entry " + std::to_string(e) + "\n" + p.describe());
}

TEST(CpuInterpreter, EveryReductionOverAllAndChosenAxes) {
  std::mt19937_64 rng(11);
  const ReduceOp ops[] = {
      ReduceOp::sum,    ReduceOp::prod,      ReduceOp::min,       ReduceOp::max, ReduceOp::any,
      ReduceOp::all,    ReduceOp::mean,      ReduceOp::var,       ReduceOp::std, ReduceOp::argmin,
      ReduceOp::argmax, ReduceOp::exact_sum, ReduceOp::exact_mean};
  const std::vector<std::vector<index_t>> boxes = {{},        {0},         {1},           {9},
                                                   {4099},    {3, 0},      {3, 700},      {700, 3},
                                                   {2, 3, 5}, {5, 1, 433}, {2, 3, 4, 171}};
  for (ReduceOp op : ops)
    for (DType t : all_dtypes) {
      if (op == ReduceOp::prod && is_integral(t))
        continue; // covered below with small values
      if ((op == ReduceOp::exact_sum || op == ReduceOp::exact_mean) && !is_floating(t))
        continue; // exact_sums plans them for floating values only
      for (const auto& extent : boxes) {
        const std::uint32_t full = (1u << extent.size()) - 1;
        for (std::uint32_t mask = 0; mask <= full; ++mask) {
          if (extent.size() == 4 && mask != full && mask != 1 && mask != 8 && mask != 6)
            continue;
          check_reduce(op, t, extent, mask, rng);
          if (::testing::Test::HasFailure())
            return;
        }
      }
    }
}

TEST(CpuInterpreter, IntegerProductsWrap) {
  BlockProgram p = box_program({70});
  Buffer x(DType::int64, 70);
  std::uint64_t want = 1;
  for (index_t k = 0; k < 70; ++k) {
    x.set(k, std::int64_t{3 + 2 * k});
    want *= static_cast<std::uint64_t>(3 + 2 * k);
  }
  p.leaves = {stored_leaf(DType::int64, 0, amap(0, {1}))};
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = ReduceOp::prod;
  p.sink.reduced_axes = 1;
  p.sink.map = amap(0, {0});
  p.sink.num_partials = 1;
  PartialWord w;
  const void* in[] = {x.data()};
  run_program(p, in, &w);
  EXPECT_EQ(w.i, static_cast<std::int64_t>(want));
}

TEST(CpuInterpreter, EmptyBoxesWriteIdentitiesOnly) {
  BlockProgram p = box_program({4, 0, 3});
  p.leaves = {stored_leaf(DType::float64, 0, amap(0, {1, 1, 1}))};
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = ReduceOp::var;
  p.sink.reduced_axes = 0b010;
  p.sink.map = amap(0, {3, 0, 1});
  p.sink.num_partials = 12;
  std::vector<PartialWord> out(36);
  for (auto& w : out)
    w.f = 9;
  const void* in[] = {nullptr};
  run_program(p, in, out.data());
  for (const auto& w : out)
    EXPECT_EQ(w.f, 0.0);
  p.sink.kind = Sink::Kind::store;
  run_program(p, in, nullptr);
}

TEST(CpuInterpreter, ArgminReportsTheIndexMapAndPrefersNanThenTheFirstTie) {
  BlockProgram p = box_program({5000});
  Buffer x(DType::float32, 5000);
  for (index_t k = 0; k < 5000; ++k)
    x.set(k, static_cast<float>(k % 100));
  p.leaves = {stored_leaf(DType::float32, 0, amap(4999, {-1}))}; // reversed
  p.sink.kind = Sink::Kind::reduce;
  p.sink.op = ReduceOp::argmin;
  p.sink.reduced_axes = 1;
  p.sink.num_partials = 1;
  p.sink.map = amap(0, {0});
  p.sink.index_map = amap(100000, {1});
  PartialWord w[2];
  const void* in[] = {x.data()};
  run_program(p, in, w);
  // Position i reads x[4999 - i]; zeros at x[4900] (i = 99) ... first in position order: i = 99.
  EXPECT_EQ(w[1].i, 100099);
  EXPECT_EQ(w[0].f, 0.0);
  x.set(10, nan_v);
  x.set(3000, nan_v);
  run_program(p, in, w);
  EXPECT_EQ(w[1].i, 100000 + 4999 - 3000);
  EXPECT_TRUE(std::isnan(w[0].f));
}

TEST(CpuInterpreter, FloatSumsAreAccurateAndIndependentOfRowShape) {
  // 1 + many tiny values: a naive running float sum would lose them.
  const index_t n = 3 * 4096;
  Buffer x(DType::float32, n);
  for (index_t k = 0; k < n; ++k)
    x.set(k, k == 0 ? 1e8f : 0.5f);
  auto sum_with = [&](std::vector<index_t> extent) {
    BlockProgram p = box_program(extent);
    p.leaves = {stored_leaf(DType::float32, 0, amap(0, c_strides(extent)))};
    p.sink.kind = Sink::Kind::reduce;
    p.sink.op = ReduceOp::sum;
    p.sink.reduced_axes = (1u << extent.size()) - 1;
    p.sink.map = AffineMap{};
    p.sink.num_partials = 1;
    PartialWord w;
    const void* in[] = {x.data()};
    run_program(p, in, &w);
    return w.f;
  };
  const double a = sum_with({n}), b = sum_with({3, 4096}), c = sum_with({12, 4, 256});
  EXPECT_EQ(a, 1e8 + 0.5 * (n - 1));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

} // namespace
} // namespace chunked::test::interp
