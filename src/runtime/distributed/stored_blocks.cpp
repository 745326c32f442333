// SPDX-License-Identifier: Apache-2.0
// fetch_stored_blocks (stored_blocks.hpp).
#include "runtime/distributed/stored_blocks.hpp"
#include "runtime/backend.hpp"
#include "runtime/distributed/messages.hpp"
#include "runtime/distributed/remote_block.hpp"
#include "runtime/plan_executor.hpp"
#include "runtime/spill.hpp"

#include <chunked/core/error.hpp>

#include <cstring>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace chunked::runtime {

namespace {

/// Per block of the arrays persisted over the cluster that the plan reads, its owner.
std::unordered_map<const Buffer*, int> persisted_owners(const plan::Plan& plan) {
  std::unordered_map<const Buffer*, int> owners;
  std::unordered_set<const graph::Node*> seen;
  std::vector<const graph::Node*> todo;
  for (const auto& root : plan.roots)
    todo.push_back(root.get());
  while (!todo.empty()) {
    const graph::Node* n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second)
      continue;
    if (n->kind == graph::NodeKind::stored) {
      const auto& data = *n->as<graph::StoredParams>().data;
      for (std::size_t b = 0; b < data.owners.size() && b < data.blocks.size(); ++b)
        owners.emplace(data.blocks[b].get(), data.owners[b]);
    }
    for (const auto& in : n->inputs)
      todo.push_back(in.get());
  }
  return owners;
}

/// A host copy of a block this rank holds, to send: its own memory where it is on the host.
std::shared_ptr<const Buffer> sendable(const Buffer& block, std::shared_ptr<const Buffer> self) {
  if (const auto* spillable = dynamic_cast<const SpillableBuffer*>(&block)) {
    const SpillPin pin({const_cast<SpillableBuffer*>(spillable)}); // brings it back if spilled
    auto copy = make_host_buffer(block.bytes());
    std::memcpy(copy->data(), block.data(), block.bytes());
    return copy;
  }
  if (block.space().kind != MemorySpace::Kind::host)
    return backend_of(block.space()).to_host(block);
  return self;
}

/// ValueError: an array persisted over a cluster is read where its blocks are not all reachable.
[[noreturn]] void unreachable_blocks(const std::string& where) {
  throw ValueError("an array persisted over a cluster (each rank holding only its own blocks) is "
                   "read " +
                   where + ": compute it with the ComputeOptions::cluster it was persisted with");
}

} // namespace

void check_stored_blocks_reachable(const plan::Plan& plan, const Cluster* cluster) {
  if (cluster)
    return; // fetch_stored_blocks compares the owners with the cluster's size
  for (std::size_t t = 0; t < plan.tasks.size(); ++t)
    for_each_input(plan, t, [&](const plan::InputRef& ref) {
      if (ref.kind == plan::InputRef::Kind::stored &&
          dynamic_cast<const RemoteBlock*>(ref.stored) != nullptr)
        unreachable_blocks("without a cluster");
    });
}

std::vector<std::shared_ptr<Buffer>> fetch_stored_blocks(plan::Plan& plan, const Distribution& d) {
  const auto owners = persisted_owners(plan);
  if (owners.empty())
    return {};
  Cluster& cluster = d.cluster();
  for (const auto& [block, owner] : owners)
    if (owner >= cluster.size())
      unreachable_blocks("over " + cluster.name() + " of " + std::to_string(cluster.size()) +
                         " ranks, fewer than hold them");
  // Keys number the persisted blocks in order of first reading: the same on every rank.
  std::unordered_map<const Buffer*, int> key_of;
  std::map<int, std::pair<const Buffer*, int>> to_receive; // key -> (block, owner)
  std::set<std::pair<int, int>> to_send;                   // (key, rank)
  std::vector<std::pair<plan::InputRef*, int>> rewrite;    // refs to point at copies
  for (std::size_t t = 0; t < plan.tasks.size(); ++t)
    for_each_input(plan, t, [&](plan::InputRef& ref) {
      if (ref.kind != plan::InputRef::Kind::stored)
        return;
      const auto owner = owners.find(ref.stored);
      if (owner == owners.end())
        return;
      const int key = key_of.emplace(ref.stored, static_cast<int>(key_of.size())).first->second;
      const int reader = d.owners()[t];
      if (reader == owner->second)
        return;
      if (reader == d.rank()) {
        to_receive.emplace(key, std::make_pair(ref.stored, owner->second));
        rewrite.emplace_back(&ref, key);
      } else if (owner->second == d.rank()) {
        to_send.emplace(key, reader);
      }
    });
  if (key_of.size() >= static_cast<std::size_t>(cluster.max_tag()))
    throw ValueError("a computation over " + cluster.name() + " reads " +
                     std::to_string(key_of.size()) + " persisted blocks; at most " +
                     std::to_string(cluster.max_tag() - 1) + " can be exchanged");
  std::map<int, std::shared_ptr<Buffer>> arrived;
  auto land = [&](int from, int tag, std::size_t) {
    const auto it = to_receive.find(tag);
    if (it == to_receive.end() || it->second.second != from)
      throw Error(cluster.name() + " rank " + std::to_string(d.rank()) + ": rank " +
                  std::to_string(from) + " sent persisted block " + std::to_string(tag) +
                  ", which this rank does not read");
    auto buffer = d.backend().host_buffer(it->second.first->bytes(), {});
    return Messages::Landing{buffer->data(), buffer->bytes(), buffer};
  };
  auto on_arrival = [&](int, int tag, Messages::Landing& landing) {
    arrived[tag] = std::static_pointer_cast<Buffer>(landing.keep);
  };
  Messages messages(cluster, land, on_arrival);
  std::vector<const Buffer*> block_of_key(key_of.size());
  for (const auto& [block, key] : key_of)
    block_of_key[static_cast<std::size_t>(key)] = block;
  for (const auto& [key, rank] : to_send) {
    const Buffer& block = *block_of_key[static_cast<std::size_t>(key)];
    // The plan holds the array, so the block outlives the send; a copy keeps itself.
    auto data =
        sendable(block, std::shared_ptr<const Buffer>(std::shared_ptr<const Buffer>{}, &block));
    messages.send(rank, key, data->data(), data->bytes(), data);
  }
  std::unique_ptr<Cluster::Operation> barrier;
  drive(
      messages, [&] { return barrier && barrier->test(); },
      [&] {
        if (barrier || arrived.size() < to_receive.size() || !messages.sends_done())
          return false;
        // Everything this rank reads has arrived; what comes now is the run's.
        messages.close();
        barrier = cluster.barrier();
        return true;
      });
  for (auto& [ref, key] : rewrite)
    ref->stored = arrived.at(key).get();
  std::vector<std::shared_ptr<Buffer>> copies;
  copies.reserve(arrived.size());
  for (auto& [key, buffer] : arrived)
    copies.push_back(std::move(buffer));
  return copies;
}

} // namespace chunked::runtime
