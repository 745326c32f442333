// SPDX-License-Identifier: Apache-2.0
// A block program's structure as data, for the precompiled interpreter kernels: what a generated
// kernel has in its source, the interpreter reads from its argument block.
#pragma once

// Compiled by the host compiler and by nvcc (interpreter.cuh); NVRTC never sees it.
#include "backend/cuda/kernel/args.hpp"

namespace chunked::cuda::kernel {

/// Values of a program the interpreter holds: every leaf and instruction the planner may emit
/// (plan::max_program_leaves + plan::max_program_instrs).
inline constexpr int interp_max_values = 72;

/// One value of the program. A leaf: `op` is its ops::LeafKind, `dtype` its DType. An
/// instruction: `op` its ops::OpCode, `dtype` its result's DType, `operand` the DType of its
/// operands (of the values for `where`), `args` the values it reads (earlier ones).
struct InterpValue {
  unsigned char op;
  unsigned char dtype;
  unsigned char operand;
  unsigned char args[3];
};

/// The structure of a program: `leaves` leaves, then instructions up to `values`; the result is
/// the last value. `reduced` is the reduce sink's mask over the (padded) axes.
struct InterpCode {
  unsigned reduced;
  unsigned char leaves;
  unsigned char values;
  InterpValue v[interp_max_values];
};

/// What an interpreter kernel takes: the argument block of the generated kernels (with its axes
/// padded to the kernel's rank, outermost first) and the program's structure.
struct InterpArgs : ProgramArgs {
  InterpCode code;
};
// The kernels take at most 8 more bytes of parameters, as the generated ones.
static_assert(sizeof(InterpArgs) + 8 <= 4096, "an interpreter kernel's parameters must fit 4 KiB");

/// The ranks the interpreter kernels are compiled for; a program of lower rank runs on the next
/// one up, its missing axes outermost with extent 1. Rank 1 runs on rank 2: one more axis of
/// extent 1 costs a 1-D program little, and each rank is a quarter of the kernels' build time.
inline constexpr int interp_ranks[] = {2, 3, args_max_ndim};
inline constexpr int interp_num_ranks = 3;

/// The index in interp_ranks of the kernels that run a program of rank `nd`.
constexpr int interp_rank_slot(int nd) {
  for (int s = 0; s < interp_num_ranks; ++s)
    if (nd <= interp_ranks[s])
      return s;
  return -1;
}

} // namespace chunked::cuda::kernel
