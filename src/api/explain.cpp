// SPDX-License-Identifier: Apache-2.0
// explain() and to_dot(): plan an array as compute() would, with the task split of the backend
// it would run on, and describe the plan without running it.
#include "plan/explain.hpp"
#include "plan/plan.hpp"
#include "runtime/backend.hpp"
#include <chunked/detail/engine.hpp>

#include <string>
#include <utility>

namespace chunked::detail {

namespace {

/// The backend a computation of `requested` plans for, and its words for the header. Unlike the
/// engine's resolve() it never refuses: a Cuda array is explained where no GPU is (the plan is
/// the one a GPU would run), and says that it could not run here.
std::pair<const runtime::Backend*, std::string> planning_backend(BackendKind requested) {
  const runtime::Backend& cpu = runtime::cpu_backend();
  const runtime::Backend& cuda = runtime::cuda_backend();
  const char* missing =
      cuda.built() ? "no CUDA device is visible" : "this build of chunked has no CUDA support";
  switch (requested) {
  case BackendKind::cpu:
    break;
  case BackendKind::automatic:
    // Auto's choice, as the engine makes it: CUDA when a device is visible.
    if (cuda.usable_devices() > 0)
      return {&cuda, "Cuda backend (Auto: a CUDA device is visible)"};
    return {&cpu, std::string("Cpu backend (Auto: ") + missing + ")"};
  case BackendKind::cuda:
    if (cuda.usable_devices() > 0)
      return {&cuda, "Cuda backend"};
    return {&cuda, std::string("Cuda backend (which cannot run here: ") + missing + ")"};
  }
  return {&cpu, "Cpu backend"};
}

/// The plan compute() would make for `node`: a destination request (nothing is written, so no
/// memory is needed), none for an empty array.
std::pair<plan::Plan, std::string> plan_for(const graph::NodePtr& node, BackendKind backend) {
  auto [on, words] = planning_backend(backend);
  std::vector<plan::Request> requests;
  if (node->shape.size() > 0) {
    plan::Request r;
    r.node = node;
    r.kind = plan::Request::Kind::destination;
    r.destination = plan::Destination{nullptr, node->dtype, node->shape, MemorySpace{}, {}};
    requests.push_back(std::move(r));
  }
  return {plan::make_plan(requests, on->task_split()), std::move(words)};
}

} // namespace

std::string explain(const graph::NodePtr& node, BackendKind backend) {
  const auto [p, words] = plan_for(node, backend);
  if (p.roots.empty())
    return "explain: " + std::string(dtype_name(node->dtype)) + " array of shape " +
           node->shape.to_string() + ", planned for the " + words +
           ": empty, nothing to compute (0 tasks, 0 blocks; no program runs)\n";
  return plan::explain(p, words);
}

std::string to_dot(const graph::NodePtr& node, BackendKind backend) {
  return plan::to_dot(plan_for(node, backend).first);
}

} // namespace chunked::detail
