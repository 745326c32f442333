// SPDX-License-Identifier: Apache-2.0
// Per-thread cache of compiled TilePrograms (see program_cache.hpp).
#include "backend/cpu/program_cache.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>

namespace chunked::cpu {

void tile_program_key(const plan::BlockProgram& p, std::vector<index_t>& key) {
  key.clear();
  const int nd = p.ndim;
  auto coefs = [&](const plan::AffineMap& m) {
    key.insert(key.end(), m.coef.begin(), m.coef.begin() + nd);
  };
  key.push_back(nd);
  key.push_back(static_cast<index_t>(p.leaves.size()));
  key.push_back(static_cast<index_t>(p.instrs.size()));
  key.insert(key.end(), p.extent.begin(), p.extent.begin() + nd);
  for (const plan::Leaf& leaf : p.leaves) {
    key.push_back(static_cast<index_t>(leaf.kind) << 8 | static_cast<index_t>(leaf.dtype));
    coefs(leaf.map);
  }
  for (const plan::Instr& in : p.instrs)
    key.push_back(static_cast<index_t>(in.call + 1) << 56 | static_cast<index_t>(in.op) << 48 |
                  static_cast<index_t>(in.dtype) << 40 |
                  (static_cast<index_t>(in.args[0] & 0xffff) << 32) |
                  (static_cast<index_t>(in.args[1] & 0xffff) << 16) |
                  static_cast<index_t>(in.args[2] & 0xffff));
  key.push_back(static_cast<index_t>(p.sink.kind) << 8 | static_cast<index_t>(p.sink.op));
  coefs(p.sink.map);
  if (p.sink.kind == plan::Sink::Kind::reduce &&
      (p.sink.op == plan::ReduceOp::argmin || p.sink.op == plan::ReduceOp::argmax))
    coefs(p.sink.index_map);
}

namespace {

std::uint64_t hash_words(const std::vector<index_t>& key) {
  std::uint64_t h = 0x9e3779b97f4a7c15u;
  for (const index_t w : key) {
    h ^= static_cast<std::uint64_t>(w) + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdu;
  }
  return h;
}

struct Entry {
  std::uint64_t hash = 0;
  std::vector<index_t> key;
  std::unique_ptr<const TileProgram> program;
};

/// One thread's programs. Blocks of one computation come in runs of the same structure, so the
/// entry last found is tried first.
struct Cache {
  std::vector<Entry> entries;
  std::size_t last = 0, next_victim = 0;
  std::vector<index_t> key;

  const TileProgram& find(const plan::BlockProgram& p) {
    tile_program_key(p, key);
    const std::uint64_t h = hash_words(key);
    auto matches = [&](const Entry& e) { return e.hash == h && e.key == key; };
    if (last < entries.size() && matches(entries[last]))
      return *entries[last].program;
    const auto it = std::find_if(entries.begin(), entries.end(), matches);
    if (it != entries.end()) {
      last = static_cast<std::size_t>(it - entries.begin());
      return *it->program;
    }
    auto program = std::make_unique<const TileProgram>(compile(p));
    if (entries.size() < cached_programs) {
      last = entries.size();
      entries.push_back({h, key, std::move(program)});
    } else {
      last = next_victim;
      next_victim = (next_victim + 1) % cached_programs;
      entries[last] = {h, key, std::move(program)};
    }
    return *entries[last].program;
  }
};

} // namespace

const TileProgram& cached_tile_program(const plan::BlockProgram& p) {
  thread_local Cache cache;
  return cache.find(p);
}

} // namespace chunked::cpu
