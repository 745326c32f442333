// SPDX-License-Identifier: Apache-2.0
// In-memory stand-ins for the storage formats: a lazy leaf's source that counts its reads, and a
// sink that records every written block, counts the calls running at once, and can be told to
// throw on one block.
#pragma once

#include <chunked/chunked.hpp>
#include <chunked/detail/engine.hpp>
#include <chunked/graph/block_io.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunked::test {

/// Calls f(i, flat) for each element of the box at `lo` of `extent` inside an array of `shape`:
/// i its position in the box (C order), flat its position in the array (C order).
template <class F>
void for_each_in_box(const std::vector<index_t>& shape, const std::vector<index_t>& lo,
                     const std::vector<index_t>& extent, F f) {
  index_t n = 1;
  for (index_t e : extent)
    n *= e;
  std::vector<index_t> at(extent.size(), 0);
  for (index_t i = 0; i < n; ++i) {
    index_t flat = 0;
    for (std::size_t k = 0; k < shape.size(); ++k)
      flat = flat * shape[k] + lo[k] + at[k];
    f(i, flat);
    for (std::size_t k = extent.size(); k-- > 0;) {
      if (++at[k] < extent[k])
        break;
      at[k] = 0;
    }
  }
}

/// The values of a dense C-order array, read block by block; counts the reads of each block and
/// throws `failure` on block `fail_at` (flat index in the grid) when set.
template <class T> class FakeSource final : public graph::BlockSource {
public:
  FakeSource(std::vector<index_t> shape, std::vector<T> values)
      : shape_(std::move(shape)), values_(std::move(values)) {}

  std::string describe() const override { return "fake source 'memory'"; }

  void read(const std::vector<index_t>& block, const std::vector<index_t>& lo,
            const std::vector<index_t>& extent, void* out) const override {
    {
      std::lock_guard lock(mutex_);
      ++reads_[block];
      extents_[block] = extent;
    }
    if (fail_ && block == fail_block_)
      fail_();
    auto* dst = static_cast<T*>(out);
    for_each_in_box(shape_, lo, extent, [&](index_t i, index_t flat) {
      dst[i] = values_[static_cast<std::size_t>(flat)];
    });
  }

  /// Throws by `fail` when block `block` is read.
  void fail_on(std::vector<index_t> block, std::function<void()> fail) {
    fail_block_ = std::move(block);
    fail_ = std::move(fail);
  }
  void reset() {
    std::lock_guard lock(mutex_);
    reads_.clear();
  }
  /// Reads per block index since the last reset.
  std::map<std::vector<index_t>, int> reads() const {
    std::lock_guard lock(mutex_);
    return reads_;
  }
  int total_reads() const {
    int n = 0;
    for (const auto& [b, c] : reads())
      n += c;
    return n;
  }

private:
  std::vector<index_t> shape_;
  std::vector<T> values_;
  std::vector<index_t> fail_block_;
  std::function<void()> fail_;
  mutable std::mutex mutex_;
  mutable std::map<std::vector<index_t>, int> reads_;
  mutable std::map<std::vector<index_t>, std::vector<index_t>> extents_;
};

/// A lazy leaf over `source`, of its shape and `chunks`.
template <class T, class B>
ChunkedArray<T, B> lazy_array(std::shared_ptr<const FakeSource<T>> source,
                              const std::vector<index_t>& shape, const Chunks& chunks) {
  const Shape s(shape);
  return ChunkedArray<T, B>(graph::make_source(
      dtype_v<T>, ChunkGrid(s, chunks.resolve(s, sizeof(T))), std::move(source)));
}

/// Records every block written into one dense array of `shape`; counts writes per block and the
/// calls running at once; throws `failure` on block `fail_at` when set.
template <class T> class FakeSink final : public graph::BlockSink {
public:
  explicit FakeSink(std::vector<index_t> shape) : shape_(std::move(shape)) {
    index_t n = 1;
    for (index_t e : shape_)
      n *= e;
    values_.assign(static_cast<std::size_t>(n), T{});
  }

  void write(const std::vector<index_t>& block, const std::vector<index_t>& lo,
             const std::vector<index_t>& extent, const void* data) override {
    const int now = ++live_;
    int seen = max_live_.load();
    while (now > seen && !max_live_.compare_exchange_weak(seen, now)) {
    }
    struct Leave {
      std::atomic<int>& live;
      ~Leave() { --live; }
    } leave{live_};
    if (fail_ && block == fail_block_)
      fail_();
    std::lock_guard lock(mutex_);
    ++writes_[block];
    los_[block] = lo;
    extents_[block] = extent;
    const auto* src = static_cast<const T*>(data);
    for_each_in_box(shape_, lo, extent, [&](index_t i, index_t flat) {
      values_[static_cast<std::size_t>(flat)] = src[i];
    });
  }

  void fail_on(std::vector<index_t> block, std::function<void()> fail) {
    fail_block_ = std::move(block);
    fail_ = std::move(fail);
  }

  const std::vector<T>& values() const { return values_; }
  const std::map<std::vector<index_t>, int>& writes() const { return writes_; }
  const std::map<std::vector<index_t>, std::vector<index_t>>& los() const { return los_; }
  const std::map<std::vector<index_t>, std::vector<index_t>>& extents() const { return extents_; }
  /// The most write calls that ran at once.
  int max_live() const { return max_live_.load(); }

private:
  std::vector<index_t> shape_;
  std::vector<T> values_;
  std::vector<index_t> fail_block_;
  std::function<void()> fail_;
  std::mutex mutex_;
  std::atomic<int> live_{0}, max_live_{0};
  std::map<std::vector<index_t>, int> writes_;
  std::map<std::vector<index_t>, std::vector<index_t>> los_, extents_;
};

} // namespace chunked::test
