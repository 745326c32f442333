// SPDX-License-Identifier: Apache-2.0
// The interpreter's reduction kernels for sum, prod, mean, exact (interpreter_kernels.cuh).
#include "backend/cuda/interpreter_kernels.cuh"

namespace chunked::cuda::interp {

template InterpReduceKernels reduce_kernels<ops::Accumulator::sum, true>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::sum, false>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::prod, true>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::prod, false>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::mean, true>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::exact, false>(int);

} // namespace chunked::cuda::interp
