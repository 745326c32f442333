// SPDX-License-Identifier: Apache-2.0
// The launches of one block program's kernels (launch_program.hpp).
#include "backend/cuda/launch_program.hpp"

#include "backend/cuda/codegen.hpp"
#include "backend/cuda/compiler.hpp"
#include "backend/cuda/interpreter.hpp"
#include "backend/cuda/jit.hpp"
#include "backend/cuda/launch_geometry.hpp"
#include "backend/cuda/partials.hpp"
#include "plan/partial.hpp"

#include <algorithm>

namespace chunked::cuda {

void launch_program(int device, const Stream& s, const plan::BlockProgram& p,
                    std::span<const void* const> inputs, void* out,
                    const std::function<void*(std::size_t)>& scratch) {
  const bool reduce = p.sink.kind == plan::Sink::Kind::reduce;
  if (p.size() == 0) {
    if (reduce)
      init_partials(p.sink.op, p.result_dtype(), out, p.sink.num_partials, s);
    return;
  }
  const KernelSet set = kernel_set(p);
  // nullptr: the interpreter runs the program (its kernels take the same launches).
  const Module* m = launch_module(device, p, set);
  kernel::ProgramArgs args = make_args(
      p, inputs.data(), out, reduce ? scratch(pass1_scratch_bytes(p.sink.op, p)) : nullptr);
  kernel::InterpArgs interp;
  // The argument block of the kernels launched, once `args` is complete.
  auto block_args = [&]() -> void* {
    if (m)
      return &args;
    interp = interp_args(p, args);
    return &interp;
  };
  auto function = [&](const char* name, const void* interpreted) {
    return m ? m->function(name) : interp_function(device, interpreted);
  };
  const unsigned threads = kernel::block_threads_host;
  if (m && set == KernelSet::store_tiled) {
    int axis = transposed_axis(p);
    const index_t tiles = p.size() / (p.extent[axis] * p.extent[p.ndim - 1]) *
                          ((p.extent[axis] + 31) / 32) * ((p.extent[p.ndim - 1] + 31) / 32);
    void* tiled_params[] = {&args, &axis, nullptr};
    launch(m->function(kernel_store_tiled),
           static_cast<unsigned>(std::clamp<index_t>(tiles, 1, max_grid)), threads, tiled_params, s,
           "store");
    return;
  }
  if (!reduce) {
    // A store's elements are independent: the interpreter runs tiled stores untiled.
    void* params[] = {block_args(), nullptr};
    launch(function(kernel_store, m ? nullptr : interp_store_kernel(p.ndim, p.result_dtype())),
           grid_for(p.size()), threads, params, s, "store");
    return;
  }
  const InterpReduceKernels ik =
      m ? InterpReduceKernels{} : interp_reduce_kernels(p.ndim, p.sink.op, p.result_dtype());
  if (args.kept != p.sink.num_partials)
    init_partials(p.sink.op, p.result_dtype(), out, p.sink.num_partials, s);
  if (args.kept == 1) {
    const ReduceAllLaunch all = reduce_all_launch(p);
    long long rows_per_part = all.rows_per_part;
    int parts = all.parts;
    void* pass1_params[] = {block_args(), &rows_per_part, nullptr};
    launch(function(kernel_reduce_all, ik.all), static_cast<unsigned>(parts), threads, pass1_params,
           s, "reduce pass 1");
    void* final_params[] = {pass1_params[0], &parts, nullptr};
    launch(function(kernel_reduce_final, ik.final), 1, threads, final_params, s, "reduce pass 2");
    return;
  }
  const AxesLaunch shape = axes_launch(set == KernelSet::reduce_axes_wide, args.kept, args.reduced,
                                       exact_reduction(p.sink.op));
  int segments = static_cast<int>(shape.segments);
  if (segments > 1)
    args.scratch =
        scratch(static_cast<std::size_t>(segments * args.kept) * 8u *
                static_cast<std::size_t>(plan::partial_layout(p.sink.op, p.result_dtype()).words));
  void* params[] = {block_args(), nullptr};
  launch(shape.wide ? function(kernel_reduce_axes_wide, ik.axes_wide)
                    : function(kernel_reduce_axes_narrow, ik.axes_narrow),
         static_cast<unsigned>(shape.blocks), threads, params, s, "axis reduce",
         static_cast<unsigned>(segments));
  if (segments > 1) {
    void* final_params[] = {params[0], &segments, nullptr};
    // One warp per kept position (reduce_axes_final_kernel).
    launch(function(kernel_reduce_axes_final, ik.axes_final), grid_for(args.kept * 32), threads,
           final_params, s, "axis reduce segments");
  }
}

} // namespace chunked::cuda
