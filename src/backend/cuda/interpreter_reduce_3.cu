// SPDX-License-Identifier: Apache-2.0
// The interpreter's reduction kernels for argmin, argmax, moments (interpreter_kernels.cuh).
#include "backend/cuda/interpreter_kernels.cuh"

namespace chunked::cuda::interp {

template InterpReduceKernels reduce_kernels<ops::Accumulator::argmin, true>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::argmin, false>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::argmax, true>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::argmax, false>(int);
template InterpReduceKernels reduce_kernels<ops::Accumulator::moments, true>(int);

} // namespace chunked::cuda::interp
