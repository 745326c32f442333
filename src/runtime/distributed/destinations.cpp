// SPDX-License-Identifier: Apache-2.0
// share_destinations (destinations.hpp).
#include "runtime/distributed/destinations.hpp"
#include "runtime/backend.hpp"

#include <chunked/core/error.hpp>

#include <cstring>
#include <vector>

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

/// Copies between the destinations (in host memory at `where`, one per destination) and one
/// rank's packed values, in task order: `pack` true copies into `packed`, false out of it.
/// Returns the bytes of that rank's values.
std::size_t move_values(const plan::Plan& plan, const Distribution& d,
                        const std::vector<char*>& where, int rank, char* packed, bool pack) {
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
      char* values = where[static_cast<std::size_t>(task.output.destination)] +
                     static_cast<std::size_t>(offset) * esize;
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
  // A destination in device memory (to_device) is shared through a host copy of it: each rank
  // computed its own boxes there, and takes the others' from the copy once they arrive.
  std::vector<char*> where;
  std::vector<std::vector<char>> mirrors(plan.destinations.size());
  for (std::size_t j = 0; j < plan.destinations.size(); ++j) {
    const plan::Destination& to = plan.destinations[j];
    if (to.space.kind == MemorySpace::Kind::host) {
      where.push_back(static_cast<char*>(to.data));
      continue;
    }
    mirrors[j].resize(static_cast<std::size_t>(to.shape.size()) * dtype_size(to.dtype));
    d.backend().copy_bytes(mirrors[j].data(), MemorySpace{}, to.data, to.space, mirrors[j].size());
    where.push_back(mirrors[j].data());
  }
  std::vector<char> packed;
  for (int root = 0; root < d.ranks(); ++root) {
    const std::size_t bytes = move_values(plan, d, where, root, nullptr, true);
    if (bytes == 0)
      continue;
    packed.resize(bytes);
    if (root == d.rank())
      move_values(plan, d, where, root, packed.data(), true);
    d.cluster().broadcast(packed.data(), bytes, root);
    if (root != d.rank())
      move_values(plan, d, where, root, packed.data(), false);
  }
  for (std::size_t j = 0; j < plan.destinations.size(); ++j)
    if (plan.destinations[j].space.kind != MemorySpace::Kind::host)
      d.backend().copy_bytes(plan.destinations[j].data, plan.destinations[j].space,
                             mirrors[j].data(), MemorySpace{}, mirrors[j].size());
}

} // namespace chunked::runtime
