// SPDX-License-Identifier: Apache-2.0
// Calls of user elementwise functions as graph nodes: arguments cast to the parameter dtypes,
// then broadcast together.
#include <chunked/elementwise_function.hpp>

namespace chunked::detail {

graph::NodePtr call_function(std::shared_ptr<const ops::UserFunction> fn,
                             std::vector<graph::NodePtr> args, BackendKind backend) {
  const bool needs_cpu = backend != BackendKind::cuda;
  const bool needs_cuda = backend != BackendKind::cpu;
  if (needs_cpu && !fn->cpu)
    throw ValueError("ElementwiseFunction " + fn->name +
                     " has no CPU function, which arrays of backend " +
                     (backend == BackendKind::cpu ? "Cpu" : "Auto") + " need");
  if (needs_cuda && fn->cuda_body.empty())
    throw ValueError("ElementwiseFunction " + fn->name +
                     " has no CUDA body, which arrays of backend " +
                     (backend == BackendKind::cuda ? "Cuda" : "Auto") + " need");
  Shape shape = args[0]->shape;
  for (const auto& a : args)
    shape = graph::broadcast_shapes(shape, a->shape);
  for (std::size_t j = 0; j < args.size(); ++j)
    args[j] = graph::broadcast_to(graph::cast(args[j], fn->params[j]), shape);
  return graph::make_call(std::move(fn), std::move(args));
}

} // namespace chunked::detail
