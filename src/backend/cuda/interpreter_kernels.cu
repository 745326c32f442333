// SPDX-License-Identifier: Apache-2.0
// The interpreter's store kernels, and the tables that pick a kernel for a program
// (interpreter.hpp); the reduction kernels are instantiated in interpreter_reduce_*.cu.
#include "backend/cuda/interpreter_kernels.cuh"

#include <chunked/core/error.hpp>

#include <string>
#include <vector>

namespace chunked::cuda {

namespace {

int rank_slot(int nd) {
  const int slot = kernel::interp_rank_slot(nd < 1 ? 1 : nd);
  if (slot < 0)
    throw ValueError("cuda interpreter: rank " + std::to_string(nd) + " is over " +
                     std::to_string(kernel::args_max_ndim));
  return slot;
}

template <int S> const void* store_at(DType result) {
  constexpr int nd = kernel::interp_ranks[S];
  return visit_dtype(result, [](auto tag) -> const void* {
    using T = decltype(tag);
    // The kernels spell int64 as long long (kernel/args.hpp).
    using K = std::conditional_t<std::is_same_v<T, std::int64_t>, kernel::i64, T>;
    return reinterpret_cast<const void*>(&interp::store<nd, K>);
  });
}

} // namespace

const void* interp_store_kernel(int nd, DType result) {
  const int slot = rank_slot(nd);
  return [&]<int... S>(std::integer_sequence<int, S...>) {
    const void* k = nullptr;
    ((slot == S ? (k = store_at<S>(result), 0) : 0), ...);
    return k;
  }
  (std::make_integer_sequence<int, kernel::interp_num_ranks>{});
}

InterpReduceKernels interp_reduce_kernels(int nd, plan::ReduceOp op, DType input) {
  const int slot = rank_slot(nd);
  const bool floating = ops::reduce_state_floating(op, input);
  return ops::visit_accumulator(op, [&](auto kind) -> InterpReduceKernels {
    constexpr ops::Accumulator a = decltype(kind)::value;
#define CHUNKED_INTERP_PICK(A, F)                                                                  \
  if constexpr (a == ops::Accumulator::A)                                                          \
    if (floating == F)                                                                             \
      return interp::reduce_kernels<ops::Accumulator::A, F>(slot);
    CHUNKED_INTERP_ACCUMULATORS(CHUNKED_INTERP_PICK)
#undef CHUNKED_INTERP_PICK
    throw ValueError("cuda interpreter: no kernels for reduce op " +
                     std::to_string(static_cast<int>(op)) + " of " +
                     std::string(dtype_name(input)));
  });
}

std::vector<const void*> interp_kernels_of_rank(int nd) {
  const int slot = rank_slot(nd);
  std::vector<const void*> out;
  for (int t = num_dtypes - 1; t >= 0; --t)
    out.push_back(interp_store_kernel(nd, static_cast<DType>(t)));
  auto add = [&](const InterpReduceKernels& k) {
    out.insert(out.end(), {k.all, k.final, k.axes_wide, k.axes_narrow, k.axes_final});
  };
#define CHUNKED_INTERP_ADD(A, F) add(interp::reduce_kernels<ops::Accumulator::A, F>(slot));
  CHUNKED_INTERP_ACCUMULATORS(CHUNKED_INTERP_ADD)
#undef CHUNKED_INTERP_ADD
  return out;
}

} // namespace chunked::cuda
