// SPDX-License-Identifier: Apache-2.0
// Device names of every elementwise operation and cast, with the CPU backend's exact semantics.
#pragma once

// For nvcc and NVRTC. The semantics are chunked/ops/scalar.hpp, the one definition
// both backends compile: wrapping integers, Python-style mod, NaN-propagating minimum/maximum,
// float-to-int casts that give the integer minimum when out of range. Generated kernels call these
// names unqualified after `using namespace chunked::cuda::kernel`.
#include "backend/cuda/kernel/args.hpp"
#include "chunked/ops/scalar.hpp"

#define CHUNKED_KD __device__ __forceinline__

namespace chunked::cuda::kernel {

using scalar::int_limits;
using scalar::is_float;
using scalar::is_same;

using scalar::cast_value;
using scalar::float_to_int;

using scalar::wrap_add;
using scalar::wrap_mul;
using scalar::wrap_sub;

// Generated kernels call scalar::op_<name> of every row of the operation table.
#define CHUNKED_KERNEL_USING_OP(name, ...) using scalar::op_##name;
CHUNKED_ELEMENTWISE_OPS(CHUNKED_KERNEL_USING_OP)
#undef CHUNKED_KERNEL_USING_OP

} // namespace chunked::cuda::kernel
