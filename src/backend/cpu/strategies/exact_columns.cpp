// SPDX-License-Identifier: Apache-2.0
// Strategy exact_columns (see exact_columns.hpp).
#include "backend/cpu/strategies/exact_columns.hpp"

#include "backend/common/exact_sum.hpp"
#include "backend/cpu/exact_lanes.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace chunked::cpu::strategy {

namespace exact = scalar::exact;

bool choose_exact_columns(const plan::BlockProgram& p, TileProgram& tp) {
  const Geometry& g = tp.geometry;
  if (!tp.reduce || tp.all_reduced || tp.sink_map.coef[g.ndim - 1] != 1 ||
      (p.sink.op != plan::ReduceOp::exact_sum && p.sink.op != plan::ReduceOp::exact_mean) ||
      !is_floating(tp.result_dtype))
    return false;
  // The entries' range relative to the sink map's base, which each block gives; entries far
  // apart would make the columns larger than the work: fold in place then.
  const auto [lo, span] = sink_entry_range(tp);
  if (span > tp.size)
    return false;
  tp.exact_lo = lo;
  tp.exact_span = span;
  tp.strategies |= exact_columns;
  return true;
}

void ExactColumnsRun::begin(const TileProgram& tp, const BlockBinding& b) {
  span_ = tp.exact_span;
  lo_ = b.sink_map.base + tp.exact_lo;
  entries_ = b.partials + lo_ * exact::words;
  const auto n = static_cast<std::size_t>(span_);
  // An empty window: no value is below its limit.
  limit_.assign(n, 0.0);
  for (auto* bins : {&b0_, &b1_, &b2_})
    bins->assign(n, 0.0);
  flags_.assign(n, 0);
  rows_ = 0;
}

void ExactColumnsRun::settle(index_t c) {
  std::int64_t* e = &entries_[c * exact::words].i;
  const auto k = static_cast<std::size_t>(c);
  for (double* b : {&b0_[k], &b1_[k], &b2_[k]}) {
    exact::deposit_finite(e, *b);
    *b = 0.0;
  }
}

void ExactColumnsRun::fold_one(index_t c, double v, double first_at_least) {
  std::int64_t* e = &entries_[c * exact::words].i;
  const auto k = static_cast<std::size_t>(c);
  flags_[k] |= exact::flags_of(v);
  if (!exact::is_finite(v) || v == 0.0)
    return;
  if (!(std::abs(v) < limit_[k])) {
    // Any window gives the same exact sum; a column's first one is made wide enough for the
    // largest value of its run, so that later rows of the same scale rarely miss it.
    const double scale = limit_[k] == 0.0 ? std::max(std::abs(v), first_at_least) : std::abs(v);
    const int anchor = exact::anchor_for(scale) + 4;
    if (anchor < exact::min_anchor || anchor > exact::max_anchor) {
      exact::deposit_finite(e, v);
      return;
    }
    settle(c);
    limit_[k] = exact::pow2(anchor);
  }
  const exact::Parts<double> p = column_parts(v, limit_[k]);
  b0_[k] += p.q0;
  b1_[k] += p.q1;
  b2_[k] += p.q2;
  if (p.rest != 0.0)
    exact::deposit_finite(e, p.rest);
}

namespace {

/// How far ahead of the values folded, in values, the fold asks for them when it knows no input.
constexpr index_t values_ahead = 256;

/// The largest magnitude of the finite x[0 .. n), 0 if none.
template <class T> double finite_max_magnitude(const T* x, index_t n) {
  double m = 0.0;
  for (index_t k = 0; k < n; ++k) {
    const double a = std::abs(static_cast<double>(x[k]));
    m = a > m && exact::is_finite(a) ? a : m;
  }
  return m;
}

} // namespace

template <class T>
void ExactColumnsRun::fold_run(const T* x, index_t len, index_t at,
                               const detail::InterpreterKernels* wide, const Ahead& ahead,
                               index_t j) {
  const auto o = static_cast<std::size_t>(at);
  detail::ExactColumns c{};
  c.limit = limit_.data() + o;
  c.b0 = b0_.data() + o;
  c.b1 = b1_.data() + o;
  c.b2 = b2_.data() + o;
  c.ahead_count = std::max(ahead.count, 1);
  // With no input read in place, the values themselves, a little ahead.
  c.ahead[0] = reinterpret_cast<const char*>(x + values_ahead);
  c.ahead_size[0] = sizeof(T);
  for (int s = 0; s < ahead.count; ++s) {
    c.ahead[s] = ahead.at[s] + j * ahead.size[s];
    c.ahead_size[s] = ahead.size[s];
  }
  bool any = false;
  if constexpr (std::is_same_v<T, double>)
    any = wide ? wide->exact_columns_f64(x, len, c) : exact_columns_fold(x, len, c);
  else
    any = wide ? wide->exact_columns_f32(x, len, c) : exact_columns_fold(x, len, c);
  if (!any)
    return;
  // Only the values the windows did not take whole go one by one (while columns take their
  // first windows, a run of thousands of values misses a few).
  if (missed_.size() < static_cast<std::size_t>(len))
    missed_.resize(static_cast<std::size_t>(len));
  index_t count = 0;
  if constexpr (std::is_same_v<T, double>)
    count = wide ? wide->exact_missed_f64(x, len, c.limit, missed_.data())
                 : exact_columns_missed(x, len, c.limit, missed_.data());
  else
    count = wide ? wide->exact_missed_f32(x, len, c.limit, missed_.data())
                 : exact_columns_missed(x, len, c.limit, missed_.data());
  double run_max = -1.0; // the largest finite magnitude of the run, once a column needs it
  for (index_t i = 0; i < count; ++i) {
    const index_t k = missed_[static_cast<std::size_t>(i)];
    const double v = static_cast<double>(x[k]);
    const double limit = limit_[o + static_cast<std::size_t>(k)];
    if (limit == 0.0 && run_max < 0.0)
      run_max = finite_max_magnitude(x, len);
    if (!(std::abs(v) < limit))
      fold_one(at + k, v, run_max); // the limit may rise: later values of its column see it
    else if (const double r = column_parts(v, limit).rest; r != 0.0)
      exact::deposit_finite(&entries_[(at + k) * exact::words].i, r);
  }
}

void ExactColumnsRun::fold_tile(const TileProgram& tp, const TileRuns& runs,
                                const plan::AffineMap& sink_map, const void* values,
                                const Ahead& ahead) {
  runs.each(sink_map, [&](index_t j, index_t offset, index_t step, index_t len) {
    if (step == 1) {
      // A run adds at most one value to each column: after settle_after runs, every bin may be
      // full.
      if (++rows_ >= exact::settle_after) {
        for (index_t c = 0; c < span_; ++c)
          settle(c);
        rows_ = 0;
      }
      if (tp.result_dtype == DType::float64)
        fold_run(static_cast<const double*>(values) + j, len, offset - lo_, tp.wide, ahead, j);
      else
        fold_run(static_cast<const float*>(values) + j, len, offset - lo_, tp.wide, ahead, j);
      return;
    }
    // Not along the row (a run folding into one entry, or a strided one): the entries' own path.
    for (index_t k = 0; k < len; ++k) {
      const double v = tp.result_dtype == DType::float64 ? static_cast<const double*>(values)[j + k]
                                                         : static_cast<const float*>(values)[j + k];
      exact::add(&entries_[(offset - lo_ + k * step) * exact::words].i, v);
    }
  });
}

void ExactColumnsRun::finish() {
  for (index_t c = 0; c < span_; ++c) {
    settle(c);
    entries_[c * exact::words].i |= flags_[static_cast<std::size_t>(c)];
  }
}

} // namespace chunked::cpu::strategy
