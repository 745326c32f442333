// SPDX-License-Identifier: Apache-2.0
// Device names of every elementwise OpCode and cast, with the CPU backend's exact semantics.
#pragma once

// For nvcc and NVRTC. The semantics are chunked/backend/common/scalar_ops.hpp, the one definition
// both backends compile: wrapping integers, Python-style mod, NaN-propagating minimum/maximum,
// float-to-int casts that give the integer minimum when out of range. Generated kernels call these
// names unqualified after `using namespace chunked::cuda::kernel`.
#include "chunked/backend/common/scalar_ops.hpp"
#include "chunked/backend/cuda/kernel/args.hpp"

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

using scalar::op_abs;
using scalar::op_add;
using scalar::op_bit_and;
using scalar::op_bit_not;
using scalar::op_bit_or;
using scalar::op_bit_xor;
using scalar::op_cos;
using scalar::op_div;
using scalar::op_exp;
using scalar::op_expm1;
using scalar::op_isfinite;
using scalar::op_isnan;
using scalar::op_log;
using scalar::op_log1p;
using scalar::op_maximum;
using scalar::op_minimum;
using scalar::op_mod;
using scalar::op_mul;
using scalar::op_neg;
using scalar::op_pow;
using scalar::op_sin;
using scalar::op_sqrt;
using scalar::op_sub;
using scalar::op_tan;
using scalar::op_tanh;

} // namespace chunked::cuda::kernel
