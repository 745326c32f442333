// SPDX-License-Identifier: Apache-2.0
// Distribution (distribution.hpp).
#include "runtime/distributed/distribution.hpp"
#include "runtime/partition.hpp"

namespace chunked::runtime {

namespace {
thread_local Distribution* current = nullptr;
} // namespace

Distribution::Distribution(Cluster& cluster, const Backend& backend, const plan::Plan& plan)
    : cluster_(cluster), backend_(backend), rank_(cluster.rank()), ranks_(cluster.size()),
      owner_(partition_tasks(plan, ranks_)) {}

Distribution* current_distribution() { return current; }

DistributionScope::DistributionScope(Distribution* d) : previous_(current) { current = d; }
DistributionScope::~DistributionScope() { current = previous_; }

std::size_t task_output_bytes(const plan::Plan& plan, plan::TaskId task) {
  const plan::Task& t = plan.tasks[task];
  plan::ReduceOp op = plan::ReduceOp::sum;
  if (t.output.kind == plan::Output::Kind::partial)
    op = t.kind == plan::TaskKind::combine ? plan.combines[t.index].op
                                           : plan.stages[t.index].program.sink.op;
  return plan::output_bytes(t.output, op);
}

} // namespace chunked::runtime
