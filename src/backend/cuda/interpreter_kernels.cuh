// SPDX-License-Identifier: Apache-2.0
// The interpreter's kernels: the skeletons of kernel/program.hpp on kernel/interpreter.cuh's
// program struct, one set per rank of kernel::interp_ranks, and their tables for the host.
#pragma once

#include "backend/cuda/interpreter.hpp"
#include "backend/cuda/kernel/interpreter.cuh"

#include <utility>

namespace chunked::cuda {

namespace interp {

using kernel::block_threads;
using kernel::i64;
using kernel::Interp;
using kernel::InterpArgs;

template <int ND, class T>
__global__ void __launch_bounds__(block_threads) store(const __grid_constant__ InterpArgs a) {
  kernel::store_kernel<Interp<ND, T>>(a);
}

template <int ND, class Acc, class V>
__global__ void __launch_bounds__(block_threads)
    reduce_all(const __grid_constant__ InterpArgs a, long long rows_per_part) {
  kernel::reduce_all_kernel<Interp<ND, V>, Acc>(a, rows_per_part);
}

template <class Acc>
__global__ void __launch_bounds__(block_threads)
    reduce_final(const __grid_constant__ InterpArgs a, int parts) {
  kernel::reduce_final_kernel<Acc>(a, parts);
}

template <int ND, class Acc, class V, int KX>
__global__ void __launch_bounds__(block_threads) reduce_axes(const __grid_constant__ InterpArgs a) {
  kernel::reduce_axes_kernel<Interp<ND, V>, Acc, KX>(a);
}

template <int ND, class Acc, class V>
__global__ void __launch_bounds__(block_threads)
    reduce_axes_final(const __grid_constant__ InterpArgs a, int segments) {
  kernel::reduce_axes_final_kernel<Interp<ND, V>, Acc>(a, segments);
}

/// The type to which accumulator Acc converts every value it adds: the interpreter hands it values
/// of that type, so that one kernel serves every input dtype with the same conversions. Moments,
/// exact sums and any/all convert to double (any/all test x != 0, which the conversion keeps).
template <class Acc> struct added_type { using type = double; };
template <class V> struct added_type<kernel::SumAcc<V>> { using type = V; };
template <class V> struct added_type<kernel::ProdAcc<V>> { using type = V; };
template <class V, bool M> struct added_type<kernel::MinMaxAcc<V, M>> { using type = V; };
template <class V, bool M> struct added_type<kernel::ArgAcc<V, M>> { using type = V; };

/// The kernels of accumulator A over floating (F) or integer states, for the rank of slot S of
/// kernel::interp_ranks.
template <ops::Accumulator A, bool F, int S> InterpReduceKernels reduce_kernels_at() {
  using Acc = kernel::accumulator_t<A, F>;
  using V = typename added_type<Acc>::type;
  constexpr int nd = kernel::interp_ranks[S];
  return {reinterpret_cast<const void*>(&reduce_all<nd, Acc, V>),
          reinterpret_cast<const void*>(&reduce_final<Acc>),
          reinterpret_cast<const void*>(&reduce_axes<nd, Acc, V, 32>),
          reinterpret_cast<const void*>(&reduce_axes<nd, Acc, V, 1>),
          reinterpret_cast<const void*>(&reduce_axes_final<nd, Acc, V>)};
}

/// reduce_kernels_at for the rank slot `slot`, chosen at run time.
template <ops::Accumulator A, bool F> InterpReduceKernels reduce_kernels(int slot) {
  return [&]<int... S>(std::integer_sequence<int, S...>) {
    InterpReduceKernels k{};
    ((slot == S ? (k = reduce_kernels_at<A, F, S>(), 0) : 0), ...);
    return k;
  }
  (std::make_integer_sequence<int, kernel::interp_num_ranks>{});
}

/// Every (accumulator, floating state) pair a reduction reaches (ops::reduce_state_floating:
/// any, all and exact sums keep int64 states, mean and moments float64 ones), each as X(A, F).
/// Each is instantiated in one of the interpreter_reduce_*.cu files, so that they compile in
/// parallel.
#define CHUNKED_INTERP_ACCUMULATORS(X)                                                             \
  X(sum, true)                                                                                     \
  X(sum, false)                                                                                    \
  X(prod, true)                                                                                    \
  X(prod, false)                                                                                   \
  X(min, true)                                                                                     \
  X(min, false)                                                                                    \
  X(max, true)                                                                                     \
  X(max, false)                                                                                    \
  X(any, false)                                                                                    \
  X(all, false)                                                                                    \
  X(mean, true)                                                                                    \
  X(moments, true)                                                                                 \
  X(argmin, true)                                                                                  \
  X(argmin, false)                                                                                 \
  X(argmax, true)                                                                                  \
  X(argmax, false)                                                                                 \
  X(exact, false)
#define CHUNKED_INTERP_REDUCE_EXTERN(A, F)                                                         \
  extern template InterpReduceKernels reduce_kernels<ops::Accumulator::A, F>(int);
CHUNKED_INTERP_ACCUMULATORS(CHUNKED_INTERP_REDUCE_EXTERN)
#undef CHUNKED_INTERP_REDUCE_EXTERN

} // namespace interp

} // namespace chunked::cuda
