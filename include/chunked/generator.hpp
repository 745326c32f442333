// SPDX-License-Identifier: Apache-2.0
// Generator: counter-based random arrays whose values depend only on (seed, stream, index).
#pragma once

#include <chunked/array.hpp>

#include <cstdint>

namespace chunked {

/// Random arrays from Philox4x32-10 keyed by the seed (DESIGN section 4). Each call of normal,
/// uniform or integers takes the next stream number, so two calls give independent arrays and
/// the same program gives the same numbers on every backend and under any chunking.
///
/// @code
/// chunked::Generator rng(42);
/// auto x = rng.normal<double, chunked::Cuda>(chunked::Shape{500000, 500000},
/// chunked::Chunks{10000, 10000}, 10.0, 1.0);
/// @endcode
class Generator {
public:
  explicit Generator(std::uint64_t seed) : seed_(seed) {}

  std::uint64_t seed() const { return seed_; }
  /// The stream number the next array will use.
  std::uint64_t next_stream() const { return stream_; }

  /// Normal samples with the given mean and standard deviation (stddev >= 0).
  template <class T = double, class B = Cpu>
  ChunkedArray<T, B> normal(const Shape& shape, const Chunks& chunks, T mean = 0, T stddev = 1) {
    static_assert(std::is_floating_point_v<T>, "Generator::normal needs float or double");
    ops::Scalar a, b;
    a.f = static_cast<double>(mean);
    b.f = static_cast<double>(stddev);
    return make<T, B>(ops::LeafKind::normal, shape, chunks, a, b);
  }
  /// Uniform samples in [low, high): low + (high - low) u rounded once, u uniform in (0, 1] on a
  /// 2^-53 grid (DESIGN section 4), computed without overflow even where high - low exceeds the
  /// largest double. A sample that would equal high (u = 1, a rounding up, or, for float, the
  /// rounding to float) is the largest T below high instead, so high never occurs; when
  /// low == high every sample is low. ValueError unless low and high are finite and low <= high.
  template <class T = double, class B = Cpu>
  ChunkedArray<T, B> uniform(const Shape& shape, const Chunks& chunks, T low = 0, T high = 1) {
    static_assert(std::is_floating_point_v<T>, "Generator::uniform needs float or double");
    ops::Scalar a, b;
    a.f = static_cast<double>(low);
    b.f = static_cast<double>(high);
    return make<T, B>(ops::LeafKind::uniform, shape, chunks, a, b);
  }
  /// Integers in [low, high) (ValueError unless low < high).
  template <class T = std::int64_t, class B = Cpu>
  ChunkedArray<T, B> integers(const Shape& shape, const Chunks& chunks, T low, T high) {
    static_assert(std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>,
                  "Generator::integers needs std::int32_t or std::int64_t");
    ops::Scalar a, b;
    a.i = low;
    b.i = high;
    return make<T, B>(ops::LeafKind::integers, shape, chunks, a, b);
  }

private:
  template <class T, class B>
  ChunkedArray<T, B> make(ops::LeafKind dist, const Shape& shape, const Chunks& chunks,
                          ops::Scalar a, ops::Scalar b) {
    graph::RandomParams p{dist, seed_, stream_, a, b};
    auto node = graph::make_random(shape, chunks.resolve(shape, sizeof(T)), dtype_v<T>, p);
    ++stream_; // only once the array is valid, so a rejected call does not shift later streams
    return ChunkedArray<T, B>(std::move(node));
  }

  std::uint64_t seed_;
  std::uint64_t stream_ = 0;
};

} // namespace chunked
