// SPDX-License-Identifier: Apache-2.0
// Identities, combining and finalizing of reduction partial states on the CPU.
#include <chunked/backend/cpu/elementwise.hpp>
#include <chunked/backend/cpu/partials.hpp>

#include <algorithm>
#include <string>

namespace chunked::cpu {

using plan::PartialWord;
using plan::ReduceOp;

namespace {

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
  if (result == ReduceOp::mean && op != ReduceOp::mean) {
    for (index_t p = 0; p < n; ++p)
      out[p] = static_cast<T>(scalar::moments_mean(s[3 * p].f, s[3 * p + 1].f));
    return;
  }
  switch (result) {
  case ReduceOp::sum:
  case ReduceOp::prod:
  case ReduceOp::min:
  case ReduceOp::max:
  case ReduceOp::any:
  case ReduceOp::all:
    for (index_t p = 0; p < n; ++p)
      out[p] = floating ? cast_value<T>(s[p].f) : cast_value<T>(s[p].i);
    return;
  case ReduceOp::mean:
    for (index_t p = 0; p < n; ++p)
      out[p] = static_cast<T>(scalar::mean_of(s[p].f, count));
    return;
  case ReduceOp::var:
  case ReduceOp::std:
    for (index_t p = 0; p < n; ++p) {
      const double var = scalar::variance_of(s[3 * p].f, s[3 * p + 2].f, ddof);
      out[p] = static_cast<T>(result == ReduceOp::std ? scalar::math_sqrt(var) : var);
    }
    return;
  case ReduceOp::argmin:
  case ReduceOp::argmax:
    for (index_t p = 0; p < n; ++p)
      out[p] = cast_value<T>(s[2 * p + 1].i);
    return;
  }
  bad_op(op);
}

} // namespace

void init_partials(ReduceOp op, DType input, PartialWord* out, index_t n) {
  const bool fl = plan::partial_layout(op, input).floating;
  PartialWord w0{}, w1{};
  switch (op) {
  case ReduceOp::sum:
  case ReduceOp::mean:
  case ReduceOp::any:
    w0 = fl ? word_f(0.0) : word_i(0);
    break;
  case ReduceOp::prod:
    w0 = fl ? word_f(1.0) : word_i(1);
    break;
  case ReduceOp::all:
    w0 = word_i(1);
    break;
  case ReduceOp::min:
    w0 = fl ? word_f(scalar::extreme_identity<double, false>())
            : word_i(scalar::extreme_identity<std::int64_t, false>());
    break;
  case ReduceOp::max:
    w0 = fl ? word_f(scalar::extreme_identity<double, true>())
            : word_i(scalar::extreme_identity<std::int64_t, true>());
    break;
  case ReduceOp::var:
  case ReduceOp::std:
    std::fill(out, out + 3 * n, word_f(0.0));
    return;
  case ReduceOp::argmin:
  case ReduceOp::argmax: {
    if (op == ReduceOp::argmax)
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
  default:
    bad_op(op);
  }
  std::fill(out, out + n, w0);
}

void combine_partials(ReduceOp op, DType input, const PartialWord* a, const PartialWord* b,
                      PartialWord* out, index_t n) {
  const bool fl = plan::partial_layout(op, input).floating;
  switch (op) {
  case ReduceOp::sum:
  case ReduceOp::mean:
    if (fl) {
      for (index_t p = 0; p < n; ++p)
        out[p].f = scalar::combine_sum(a[p].f, b[p].f);
    } else {
      for (index_t p = 0; p < n; ++p)
        out[p].i = scalar::combine_sum(a[p].i, b[p].i);
    }
    return;
  case ReduceOp::prod:
    if (fl) {
      for (index_t p = 0; p < n; ++p)
        out[p].f = scalar::combine_prod(a[p].f, b[p].f);
    } else {
      for (index_t p = 0; p < n; ++p)
        out[p].i = scalar::combine_prod(a[p].i, b[p].i);
    }
    return;
  case ReduceOp::min:
    if (fl) {
      for (index_t p = 0; p < n; ++p)
        out[p].f = scalar::combine_min(a[p].f, b[p].f);
    } else {
      for (index_t p = 0; p < n; ++p)
        out[p].i = scalar::combine_min(a[p].i, b[p].i);
    }
    return;
  case ReduceOp::max:
    if (fl) {
      for (index_t p = 0; p < n; ++p)
        out[p].f = scalar::combine_max(a[p].f, b[p].f);
    } else {
      for (index_t p = 0; p < n; ++p)
        out[p].i = scalar::combine_max(a[p].i, b[p].i);
    }
    return;
  case ReduceOp::any:
    for (index_t p = 0; p < n; ++p)
      out[p].i = scalar::combine_any(a[p].i, b[p].i);
    return;
  case ReduceOp::all:
    for (index_t p = 0; p < n; ++p)
      out[p].i = scalar::combine_all(a[p].i, b[p].i);
    return;
  case ReduceOp::var:
  case ReduceOp::std:
    for (index_t p = 0; p < n; ++p) {
      // Copy both first: out may alias either operand.
      PartialWord acc[3] = {a[3 * p], a[3 * p + 1], a[3 * p + 2]};
      detail::merge_moments(acc, b[3 * p].f, b[3 * p + 1].f, b[3 * p + 2].f);
      std::copy(acc, acc + 3, out + 3 * p);
    }
    return;
  case ReduceOp::argmin:
    combine_arg<false>(fl, a, b, out, n);
    return;
  case ReduceOp::argmax:
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
