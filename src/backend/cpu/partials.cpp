// SPDX-License-Identifier: Apache-2.0
// Identities, combining and finalizing of reduction partial states on the CPU.
#include "backend/cpu/partials.hpp"
#include "backend/common/exact_sum.hpp"
#include "backend/cpu/elementwise.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace chunked::cpu {

using ops::Accumulator;
using ops::Finalize;
using plan::PartialWord;
using plan::ReduceOp;

namespace {

namespace exact = scalar::exact;
static_assert(exact::words == ops::accumulator_words(Accumulator::exact));

/// The words of an exact entry, as int64 words.
std::int64_t* exact_words(PartialWord* e) { return &e->i; }
const std::int64_t* exact_words(const PartialWord* e) { return &e->i; }

PartialWord word_f(double f) {
  PartialWord w;
  w.f = f;
  return w;
}
PartialWord word_i(std::int64_t i) {
  PartialWord w;
  w.i = i;
  return w;
}

[[noreturn]] void bad_op(ReduceOp op) {
  throw ValueError("cpu partials: unknown reduce op " + std::to_string(static_cast<int>(op)));
}

template <bool Max>
void combine_arg(bool floating, const PartialWord* a, const PartialWord* b, PartialWord* out,
                 index_t n) {
  for (index_t p = 0; p < n; ++p) {
    const PartialWord* pa = a + 2 * p;
    const PartialWord* pb = b + 2 * p;
    const bool take_b = floating ? scalar::arg_better<Max>(pa[0].f, pa[1].i, pb[0].f, pb[1].i)
                                 : scalar::arg_better<Max>(pa[0].i, pa[1].i, pb[0].i, pb[1].i);
    const PartialWord v = take_b ? pb[0] : pa[0];
    const PartialWord i = take_b ? pb[1] : pa[1];
    out[2 * p] = v;
    out[2 * p + 1] = i;
  }
}

template <class T>
void finalize_typed(ReduceOp op, ReduceOp result, bool floating, const PartialWord* s, index_t n,
                    index_t count, index_t ddof, T* out) {
  const Finalize rule = ops::reduce_finalize(result);
  if (rule == Finalize::mean && ops::reduce_accumulator(op) == Accumulator::moments) {
    for (index_t p = 0; p < n; ++p)
      out[p] = static_cast<T>(scalar::moments_mean(s[3 * p].f, s[3 * p + 1].f));
    return;
  }
  switch (rule) {
  case Finalize::rounded:
    for (index_t p = 0; p < n; ++p) {
      const std::int64_t* w = exact_words(s + exact::words * p);
      if constexpr (std::is_same_v<T, float>)
        out[p] = exact::to_float(w);
      else
        out[p] = cast_value<T>(exact::to_double(w));
    }
    return;
  case Finalize::rounded_mean:
    for (index_t p = 0; p < n; ++p)
      out[p] = static_cast<T>(
          scalar::mean_of(exact::to_double(exact_words(s + exact::words * p)), count));
    return;
  case Finalize::value:
    for (index_t p = 0; p < n; ++p)
      out[p] = floating ? cast_value<T>(s[p].f) : cast_value<T>(s[p].i);
    return;
  case Finalize::mean:
    for (index_t p = 0; p < n; ++p)
      out[p] = static_cast<T>(scalar::mean_of(s[p].f, count));
    return;
  case Finalize::variance:
  case Finalize::deviation:
    for (index_t p = 0; p < n; ++p) {
      const double var = scalar::variance_of(s[3 * p].f, s[3 * p + 2].f, ddof);
      out[p] = static_cast<T>(rule == Finalize::deviation ? scalar::math_sqrt(var) : var);
    }
    return;
  case Finalize::index:
    for (index_t p = 0; p < n; ++p)
      out[p] = cast_value<T>(s[2 * p + 1].i);
    return;
  }
  bad_op(op);
}

} // namespace

void init_partials(ReduceOp op, DType input, PartialWord* out, index_t n) {
  if (!ops::is_reduce_op(op))
    bad_op(op);
  const bool fl = plan::partial_layout(op, input).floating;
  PartialWord w0{}, w1{};
  const Accumulator kind = ops::reduce_accumulator(op);
  switch (kind) {
  case Accumulator::sum:
  case Accumulator::mean:
  case Accumulator::any:
    w0 = fl ? word_f(0.0) : word_i(0);
    break;
  case Accumulator::prod:
    w0 = fl ? word_f(1.0) : word_i(1);
    break;
  case Accumulator::all:
    w0 = word_i(1);
    break;
  case Accumulator::min:
    w0 = fl ? word_f(scalar::extreme_identity<double, false>())
            : word_i(scalar::extreme_identity<std::int64_t, false>());
    break;
  case Accumulator::max:
    w0 = fl ? word_f(scalar::extreme_identity<double, true>())
            : word_i(scalar::extreme_identity<std::int64_t, true>());
    break;
  case Accumulator::moments:
    std::fill(out, out + 3 * n, word_f(0.0));
    return;
  case Accumulator::exact:
    for (index_t p = 0; p < n; ++p)
      exact::clear(exact_words(out + exact::words * p));
    return;
  case Accumulator::argmin:
  case Accumulator::argmax: {
    if (kind == Accumulator::argmax)
      w0 = fl ? word_f(scalar::extreme_identity<double, true>())
              : word_i(scalar::extreme_identity<std::int64_t, true>());
    else
      w0 = fl ? word_f(scalar::extreme_identity<double, false>())
              : word_i(scalar::extreme_identity<std::int64_t, false>());
    w1 = word_i(scalar::arg_identity_index);
    for (index_t p = 0; p < n; ++p) {
      out[2 * p] = w0;
      out[2 * p + 1] = w1;
    }
    return;
  }
  }
  std::fill(out, out + n, w0);
}

void combine_partials(ReduceOp op, DType input, const PartialWord* a, const PartialWord* b,
                      PartialWord* out, index_t n) {
  if (!ops::is_reduce_op(op))
    bad_op(op);
  const bool fl = plan::partial_layout(op, input).floating;
  switch (ops::reduce_accumulator(op)) {
  case Accumulator::sum:
  case Accumulator::mean:
    if (fl) {
      for (index_t p = 0; p < n; ++p)
        out[p].f = scalar::combine_sum(a[p].f, b[p].f);
    } else {
      for (index_t p = 0; p < n; ++p)
        out[p].i = scalar::combine_sum(a[p].i, b[p].i);
    }
    return;
  case Accumulator::prod:
    if (fl) {
      for (index_t p = 0; p < n; ++p)
        out[p].f = scalar::combine_prod(a[p].f, b[p].f);
    } else {
      for (index_t p = 0; p < n; ++p)
        out[p].i = scalar::combine_prod(a[p].i, b[p].i);
    }
    return;
  case Accumulator::min:
    if (fl) {
      for (index_t p = 0; p < n; ++p)
        out[p].f = scalar::combine_min(a[p].f, b[p].f);
    } else {
      for (index_t p = 0; p < n; ++p)
        out[p].i = scalar::combine_min(a[p].i, b[p].i);
    }
    return;
  case Accumulator::max:
    if (fl) {
      for (index_t p = 0; p < n; ++p)
        out[p].f = scalar::combine_max(a[p].f, b[p].f);
    } else {
      for (index_t p = 0; p < n; ++p)
        out[p].i = scalar::combine_max(a[p].i, b[p].i);
    }
    return;
  case Accumulator::any:
    for (index_t p = 0; p < n; ++p)
      out[p].i = scalar::combine_any(a[p].i, b[p].i);
    return;
  case Accumulator::all:
    for (index_t p = 0; p < n; ++p)
      out[p].i = scalar::combine_all(a[p].i, b[p].i);
    return;
  case Accumulator::moments:
    for (index_t p = 0; p < n; ++p) {
      // Copy both first: out may alias either operand.
      PartialWord acc[3] = {a[3 * p], a[3 * p + 1], a[3 * p + 2]};
      detail::merge_moments(acc, b[3 * p].f, b[3 * p + 1].f, b[3 * p + 2].f);
      std::copy(acc, acc + 3, out + 3 * p);
    }
    return;
  case Accumulator::exact:
    if (out == a && a != b) { // accumulating in place
      for (index_t p = 0; p < n; ++p)
        exact::combine(exact_words(out + exact::words * p), exact_words(b + exact::words * p));
      return;
    }
    for (index_t p = 0; p < n; ++p) {
      // Into a copy of a first: out may alias either operand.
      PartialWord acc[exact::words];
      std::copy(a + exact::words * p, a + exact::words * (p + 1), acc);
      exact::combine(exact_words(acc), exact_words(b + exact::words * p));
      std::copy(acc, acc + exact::words, out + exact::words * p);
    }
    return;
  case Accumulator::argmin:
    combine_arg<false>(fl, a, b, out, n);
    return;
  case Accumulator::argmax:
    combine_arg<true>(fl, a, b, out, n);
    return;
  }
  bad_op(op);
}

void finalize_partials(ReduceOp op, ReduceOp result, DType input, const PartialWord* partials,
                       index_t n, index_t count, index_t ddof, void* out) {
  plan::check_finalize(op, result);
  const bool fl = plan::partial_layout(op, input).floating;
  visit_dtype(plan::reduce_result_dtype(result, input), [&](auto tag) {
    using T = decltype(tag);
    finalize_typed(op, result, fl, partials, n, count, ddof, static_cast<T*>(out));
  });
}

} // namespace chunked::cpu
