// SPDX-License-Identifier: Apache-2.0
// share_destinations (destinations.hpp).
#include "runtime/distributed/destinations.hpp"

#include <chunked/core/error.hpp>

#include <cstring>

namespace chunked::runtime {

namespace {

/// Calls f(element offset, run length) for each row of the box that `program` (a store into a
/// destination, C order) writes: the destination's rows are contiguous along the last axis.
template <class F> void for_each_row(const plan::BlockProgram& program, F&& f) {
  const int nd = program.ndim;
  if (program.size() == 0)
    return;
  if (nd == 0) {
    f(program.sink.map.base, 1);
    return;
  }
  const index_t row = program.extent[nd - 1];
  std::array<index_t, max_ndim> i{};
  const index_t rows = program.size() / row;
  for (index_t r = 0; r < rows; ++r) {
    f(program.sink.map.at(i.data(), nd), row);
    for (int k = nd - 2; k >= 0; --k) {
      if (++i[k] < program.extent[k])
        break;
      i[k] = 0;
    }
  }
}

/// Copies between the destinations and one rank's packed values, in task order: `pack` true
/// copies into `packed`, false out of it. Returns the bytes of that rank's values.
std::size_t move_values(const plan::Plan& plan, const Distribution& d, int rank, char* packed,
                        bool pack) {
  std::size_t at = 0;
  plan::BlockProgram program;
  for (std::size_t t = 0; t < plan.tasks.size(); ++t) {
    const plan::Task& task = plan.tasks[t];
    if (task.output.kind != plan::Output::Kind::destination || d.owners()[t] != rank)
      continue;
    const plan::Destination& to =
        plan.destinations[static_cast<std::size_t>(task.output.destination)];
    const std::size_t esize = dtype_size(to.dtype);
    plan.instantiate(static_cast<plan::TaskId>(t), program);
    for_each_row(program, [&](index_t offset, index_t length) {
      const std::size_t bytes = static_cast<std::size_t>(length) * esize;
      char* values = static_cast<char*>(to.data) + static_cast<std::size_t>(offset) * esize;
      if (packed)
        std::memcpy(pack ? packed + at : values, pack ? values : packed + at, bytes);
      at += bytes;
    });
  }
  return at;
}

} // namespace

void share_destinations(const plan::Plan& plan, const Distribution& d) {
  if (d.ranks() == 1 || plan.destinations.empty())
    return;
  for (const plan::Destination& to : plan.destinations)
    if (to.space.kind != MemorySpace::Kind::host)
      throw ValueError("to_device() over a cluster of " + std::to_string(d.ranks()) +
                       " ranks: results are shared in host memory; compute() or to_host() "
                       "there, then copy to the device");
  std::vector<char> packed;
  for (int root = 0; root < d.ranks(); ++root) {
    const std::size_t bytes = move_values(plan, d, root, nullptr, true);
    if (bytes == 0)
      continue;
    packed.resize(bytes);
    if (root == d.rank())
      move_values(plan, d, root, packed.data(), true);
    d.cluster().broadcast(packed.data(), bytes, root);
    if (root != d.rank())
      move_values(plan, d, root, packed.data(), false);
  }
}

} // namespace chunked::runtime
