// SPDX-License-Identifier: Apache-2.0
// Precompiled kernels for reduction partial states: identities, combining, finalizing.
#include "backend/cuda/kernel/partials.hpp"
#include "backend/cuda/partials.hpp"

#include "backend/cuda/launch_geometry.hpp"

#include <string>

namespace chunked::cuda {

namespace {

using kernel::i64;
using plan::ReduceOp;

template <class Acc> __global__ void init_kernel(i64* words, i64 n) {
  for (i64 p = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; p < n;
       p += static_cast<i64>(gridDim.x) * blockDim.x)
    Acc::identity().store(words + p * Acc::words);
}

/// The inputs of one combine launch, passed by value as a kernel parameter.
struct CombineInputs {
  const i64* p[combine_launch_inputs];
  int count;
};

template <class Acc> __global__ void combine_kernel(CombineInputs in, i64* out, i64 n) {
  for (i64 p = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; p < n;
       p += static_cast<i64>(gridDim.x) * blockDim.x) {
    Acc acc = Acc::load(in.p[0] + p * Acc::words);
    for (int j = 1; j < in.count; ++j)
      acc.merge(Acc::load(in.p[j] + p * Acc::words));
    acc.store(out + p * Acc::words);
  }
}

// Finalize, as cpu::finalize_partials: Kind 0 casts the single word, 1 is mean, 2 var, 3 std,
// 4 the argmin/argmax index, 5 the mean of a (count, mean, M2) state, 6 an exact sum rounded to
// T, 7 an exact sum's mean.
template <int Kind, bool Floating, class T>
__global__ void finalize_kernel(const i64* s, i64 n, i64 count, i64 ddof, T* out) {
  for (i64 p = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; p < n;
       p += static_cast<i64>(gridDim.x) * blockDim.x) {
    if constexpr (Kind == 0) {
      out[p] =
          Floating ? kernel::cast_value<T>(kernel::word_f(s + p)) : kernel::cast_value<T>(s[p]);
    } else if constexpr (Kind == 1) {
      out[p] = static_cast<T>(scalar::mean_of(kernel::word_f(s + p), count));
    } else if constexpr (Kind == 2 || Kind == 3) {
      const double var =
          scalar::variance_of(kernel::word_f(s + 3 * p), kernel::word_f(s + 3 * p + 2), ddof);
      out[p] = static_cast<T>(Kind == 3 ? scalar::math_sqrt(var) : var);
    } else if constexpr (Kind == 4) {
      out[p] = kernel::cast_value<T>(s[2 * p + 1]);
    } else if constexpr (Kind == 6) {
      const i64* w = s + scalar::exact::words * p;
      if constexpr (kernel::is_same<T, float>::value)
        out[p] = scalar::exact::to_float(w);
      else
        out[p] = kernel::cast_value<T>(scalar::exact::to_double(w));
    } else if constexpr (Kind == 7) {
      out[p] = static_cast<T>(
          scalar::mean_of(scalar::exact::to_double(s + scalar::exact::words * p), count));
    } else {
      out[p] = static_cast<T>(
          scalar::moments_mean(kernel::word_f(s + 3 * p), kernel::word_f(s + 3 * p + 1)));
    }
  }
}

/// Grid-stride launches over partial entries: at most 4096 CUDA blocks of 256 threads.
unsigned partials_grid(index_t n) { return grid_for(n, 1, 4096); }

/// Calls f(Acc{}) with the device accumulator of `op` over `input` values.
template <class F> void with_accumulator(ReduceOp op, DType input, F&& f) {
  const bool fl = ops::reduce_state_floating(op, input);
  ops::visit_accumulator(op, [&](auto kind) {
    constexpr ops::Accumulator a = decltype(kind)::value;
    if (fl)
      f(kernel::accumulator_t<a, true>{});
    else
      f(kernel::accumulator_t<a, false>{});
  });
}

void check_launch(const Stream& stream, const char* what, index_t n) {
  check(cudaGetLastError(), what, stream.device(), "(" + std::to_string(n) + " entries)");
}

} // namespace

void init_partials(ReduceOp op, DType input, void* words, index_t n, const Stream& stream) {
  if (n <= 0)
    return;
  with_accumulator(op, input, [&](auto acc) {
    using Acc = decltype(acc);
    init_kernel<Acc><<<partials_grid(n), 256, 0, stream.get()>>>(static_cast<i64*>(words), n);
  });
  check_launch(stream, "init_partials kernel launch", n);
}

void combine_partials(ReduceOp op, DType input, std::span<const void* const> in, void* out,
                      index_t n, const Stream& stream) {
  if (n <= 0 || in.empty())
    return;
  with_accumulator(op, input, [&](auto acc) {
    using Acc = decltype(acc);
    // Later launches continue from `out`, which already holds the fold of the earlier inputs.
    for (std::size_t j = 0; j < in.size();) {
      CombineInputs batch{};
      if (j > 0)
        batch.p[batch.count++] = static_cast<const i64*>(out);
      while (batch.count < combine_launch_inputs && j < in.size())
        batch.p[batch.count++] = static_cast<const i64*>(in[j++]);
      combine_kernel<Acc>
          <<<partials_grid(n), 256, 0, stream.get()>>>(batch, static_cast<i64*>(out), n);
      check_launch(stream, "combine_partials kernel launch", n);
    }
  });
}

void finalize_partials(ReduceOp op, ReduceOp result, DType input, const void* partials, index_t n,
                       index_t count, index_t ddof, void* out, const Stream& stream) {
  plan::check_finalize(op, result);
  if (n <= 0)
    return;
  const plan::PartialLayout layout = plan::partial_layout(op, input);
  const bool fl = layout.floating, moments = layout.words == 3;
  const auto* s = static_cast<const i64*>(partials);
  visit_dtype(plan::reduce_result_dtype(result, input), [&](auto tag) {
    using T = decltype(tag);
    T* o = static_cast<T*>(out);
    const unsigned g = partials_grid(n);
    cudaStream_t st = stream.get();
    switch (ops::reduce_finalize(result)) {
    case ops::Finalize::mean:
      if (moments)
        finalize_kernel<5, true, T><<<g, 256, 0, st>>>(s, n, count, ddof, o);
      else
        finalize_kernel<1, true, T><<<g, 256, 0, st>>>(s, n, count, ddof, o);
      break;
    case ops::Finalize::variance:
      finalize_kernel<2, true, T><<<g, 256, 0, st>>>(s, n, count, ddof, o);
      break;
    case ops::Finalize::deviation:
      finalize_kernel<3, true, T><<<g, 256, 0, st>>>(s, n, count, ddof, o);
      break;
    case ops::Finalize::index:
      finalize_kernel<4, false, T><<<g, 256, 0, st>>>(s, n, count, ddof, o);
      break;
    case ops::Finalize::rounded:
      finalize_kernel<6, false, T><<<g, 256, 0, st>>>(s, n, count, ddof, o);
      break;
    case ops::Finalize::rounded_mean:
      finalize_kernel<7, false, T><<<g, 256, 0, st>>>(s, n, count, ddof, o);
      break;
    case ops::Finalize::value:
      if (fl)
        finalize_kernel<0, true, T><<<g, 256, 0, st>>>(s, n, count, ddof, o);
      else
        finalize_kernel<0, false, T><<<g, 256, 0, st>>>(s, n, count, ddof, o);
    }
  });
  check_launch(stream, "finalize_partials kernel launch", n);
}

} // namespace chunked::cuda
