// SPDX-License-Identifier: Apache-2.0
// The pool behind io::Scratch.
#include "io/scratch.hpp"

#include <algorithm>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace chunked::io {

namespace {

constexpr std::size_t largest_kept = std::size_t{256} << 20;
constexpr std::size_t most_kept = std::size_t{1} << 30;

struct Pool {
  std::mutex mutex;
  std::vector<std::pair<std::unique_ptr<char[]>, std::size_t>> free; // buffer, capacity
  std::size_t kept = 0;                                              // bytes in `free`
};

Pool& pool() {
  static auto* p = new Pool; // never destroyed: buffers may come back during exit
  return *p;
}

} // namespace

Scratch::Scratch(std::size_t size) {
  Pool& p = pool();
  {
    std::lock_guard lock(p.mutex);
    // The smallest kept buffer that is large enough.
    auto best = p.free.end();
    for (auto it = p.free.begin(); it != p.free.end(); ++it)
      if (it->second >= size && (best == p.free.end() || it->second < best->second))
        best = it;
    if (best != p.free.end()) {
      data_ = std::move(best->first);
      capacity_ = best->second;
      p.kept -= capacity_;
      p.free.erase(best);
      return;
    }
  }
  data_ = std::make_unique_for_overwrite<char[]>(std::max<std::size_t>(size, 1));
  capacity_ = std::max<std::size_t>(size, 1);
}

Scratch::~Scratch() {
  if (capacity_ > largest_kept)
    return;
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  const std::size_t slots = std::max(1u, std::thread::hardware_concurrency());
  // Full: the smallest kept buffers make room for this one, which serves more chunks.
  while (!p.free.empty() && (p.free.size() >= slots || p.kept + capacity_ > most_kept)) {
    auto smallest =
        std::min_element(p.free.begin(), p.free.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (smallest->second >= capacity_)
      return; // every kept buffer is as large: drop this one
    p.kept -= smallest->second;
    p.free.erase(smallest);
  }
  if (p.kept + capacity_ > most_kept)
    return;
  p.kept += capacity_;
  p.free.emplace_back(std::move(data_), capacity_);
}

std::size_t Scratch::kept_bytes() {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  return p.kept;
}

} // namespace chunked::io
