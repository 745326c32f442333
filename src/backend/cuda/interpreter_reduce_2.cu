// SPDX-License-Identifier: Apache-2.0
// The interpreter's reduction kernels for min, max, any, all (interpreter_kernels.cuh).
#include "backend/cuda/interpreter_kernels.cuh"

namespace chunked::cuda::interp {

template InterpReduceKernels reduce_kernels<ops::Accumulator::min, true>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::min, false>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::max, true>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::max, false>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::any, false>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::all, false>(int);

} // namespace chunked::cuda::interp
