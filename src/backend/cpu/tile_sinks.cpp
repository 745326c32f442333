// SPDX-License-Identifier: Apache-2.0
// Store and reduce loops of the CPU tile interpreter (see tile_sinks.hpp).
#include "backend/cpu/tile_sinks.hpp"

#include "backend/cpu/exact_acc.hpp"
#include "backend/cpu/partials.hpp"
#include <chunked/ops/reduce_op.hpp>

namespace chunked::cpu {

using plan::AffineMap;
using plan::PartialWord;

namespace {

template <class T>
void store_tile(const TileRuns& runs, const AffineMap& map, const void* values, void* output) {
  const T* src = static_cast<const T*>(values);
  T* dst = static_cast<T*>(output);
  runs.each(map, [&](index_t j, index_t offset, index_t step, index_t len) {
    strided_copy(src + j, 1, dst + offset, step, len);
  });
}

/// Accumulates one tile into the partial entries: the whole tile into one entry when every axis is
/// reduced, else row segment by row segment (one entry per segment when the last axis is reduced,
/// one entry per element when it is kept).
template <class Acc>
void reduce_tile(const TileRuns& runs, const AffineMap& map, bool all_reduced, index_t n,
                 const void* values, const index_t* index, PartialWord* partials) {
  using T = typename Acc::value_type;
  constexpr int w = Acc::words;
  const T* x = static_cast<const T*>(values);
  if (all_reduced) {
    Acc::segment(x, index, n, partials + map.base * w);
    return;
  }
  runs.each(map, [&](index_t j, index_t offset, index_t step, index_t len) {
    const index_t* ix = index ? index + j : nullptr;
    if (step == 0) {
      Acc::segment(x + j, ix, len, partials + offset * w);
    } else if (step == 1) {
      Acc::row(x + j, ix, len, partials + offset * w);
    } else {
      for (index_t k = 0; k < len; ++k)
        Acc::element(x[j + k], ix ? ix[k] : 0, partials + (offset + k * step) * w);
    }
  });
}

template <class T> void moment_row(const void* x, index_t n, const MomentColumns& s) {
  moments_row(static_cast<const T*>(x), n, s);
}

/// MinMaxAcc<double, Max> through the wide loops, which leave results that depend on the order
/// of the values (a NaN, a zero) to it: the same results, as fast as the sums.
template <bool Max> struct WideExtremeAcc {
  using value_type = double;
  using Base = MinMaxAcc<double, Max>;
  static constexpr int words = 1;
  static void segment(const double* x, const index_t* index, index_t n, PartialWord* e) {
    double m;
    if (detail::interpreter_kernels()->extreme_f64[Max](x, n, &m))
      e->f = Max ? detail::nan_max(e->f, m) : detail::nan_min(e->f, m);
    else
      Base::segment(x, index, n, e);
  }
  static void row(const double* x, const index_t*, index_t n, PartialWord* e) {
    detail::interpreter_kernels()->extreme_row_f64[Max](x, n, &e->f);
  }
  static void element(double x, index_t index, PartialWord* e) { Base::element(x, index, e); }
};

/// The tile accumulator (tile_reduce.hpp) of each kind of partial state over T values.
template <ops::Accumulator A, class T> ReduceTile tile_reducer() {
  using ops::Accumulator;
  if constexpr (A == Accumulator::sum)
    return &reduce_tile<SumAcc<T>>;
  else if constexpr (A == Accumulator::prod)
    return &reduce_tile<ProdAcc<T>>;
  else if constexpr (A == Accumulator::min || A == Accumulator::max)
    return &reduce_tile<MinMaxAcc<T, A == Accumulator::max>>;
  else if constexpr (A == Accumulator::any || A == Accumulator::all)
    return &reduce_tile<AnyAllAcc<T, A == Accumulator::all>>;
  else if constexpr (A == Accumulator::mean)
    return &reduce_tile<MeanAcc<T>>;
  else if constexpr (A == Accumulator::moments)
    return &reduce_tile<MomentsAcc<T>>;
  else if constexpr (A == Accumulator::exact)
    return &reduce_tile<ExactAcc<T>>;
  else
    return &reduce_tile<ArgAcc<T, A == Accumulator::argmax>>;
}

} // namespace

StoreTile select_store(DType t) {
  return visit_dtype(t, [](auto tag) -> StoreTile { return &store_tile<decltype(tag)>; });
}

ReduceTile select_reduce(plan::ReduceOp op, DType t, const detail::InterpreterKernels* wide) {
  if (wide && t == DType::float64 && (op == plan::ReduceOp::min || op == plan::ReduceOp::max))
    return op == plan::ReduceOp::max ? &reduce_tile<WideExtremeAcc<true>>
                                     : &reduce_tile<WideExtremeAcc<false>>;
  return ops::visit_accumulator(op, [&](auto kind) {
    using Kind = decltype(kind);
    return visit_dtype(
        t, [](auto tag) -> ReduceTile { return tile_reducer<Kind::value, decltype(tag)>(); });
  });
}

MomentRow select_moment_row(DType t) {
  return visit_dtype(t, [](auto tag) -> MomentRow { return &moment_row<decltype(tag)>; });
}

} // namespace chunked::cpu
