// SPDX-License-Identifier: Apache-2.0
// The argument block of a generated kernel, one layout for the host that fills it and the device.
#pragma once

// Compiled by the host compiler, by nvcc and by NVRTC (which has no standard headers).
#include "chunked/core/host_device.hpp"

namespace chunked::cuda::kernel {

// long long rather than std::int64_t: one spelling on the host, in nvcc and in NVRTC.
using i64 = long long;
using u64 = unsigned long long;
static_assert(sizeof(i64) == 8 && sizeof(void*) == 8, "kernel arguments assume LP64");

inline constexpr int args_max_ndim = 8;
inline constexpr int args_max_leaves = 24;
/// Threads per CUDA block of every program kernel (the block reductions assume it).
inline constexpr int block_threads_host = 256;

/// `base + sum_k coef[k] * i_k`, as plan::AffineMap.
struct Map {
  i64 base;
  i64 coef[args_max_ndim];
};

/// The constants of one leaf; which members matter depends on the leaf kind, which the generated
/// code knows. A uniform leaf holds its random::UniformForm in af, bf and cf (low, half width,
/// last), computed once on the host; other leaves hold their plan::Leaf's a and b.
struct LeafArgs {
  Map map;
  double af, bf, cf;
  i64 ai, bi;
  u64 seed, stream;
  const void* data;
};

/// Everything a program's kernel reads that is not part of its structure: the structure is in
/// the generated source, so one compiled kernel serves every block of every program of that shape.
struct ProgramArgs {
  i64 extent[args_max_ndim];
  i64 size;      ///< elements of the box
  i64 kept;      ///< reduce sinks: positions of the kept axes (product of their extents)
  i64 reduced;   ///< reduce sinks: positions of the reduced axes
  Map sink;      ///< store: element offset; reduce: partial entry
  Map index;     ///< argmin/argmax: reported index
  void* out;     ///< store: values; reduce: partial words
  void* scratch; ///< reduce over all axes: per-CUDA-block partial states
  LeafArgs leaf[args_max_leaves];
};
// Launches pass ProgramArgs by value, with at most 8 more bytes of kernel parameters.
static_assert(sizeof(ProgramArgs) + 8 <= 4096, "a kernel's parameters must fit in 4 KiB");

} // namespace chunked::cuda::kernel
