// SPDX-License-Identifier: Apache-2.0
// The Philox4x32-10 counter-based generator and the counter layout of chunked's random arrays.
#pragma once

#include "chunked/core/host_device.hpp"

// NVRTC has no standard headers; everywhere else the fixed-width types come from <cstdint>.
#if !CHUNKED_RTC
#include <cstdint>
#endif

namespace chunked::random {

#if CHUNKED_RTC
using u32_t = unsigned int;
using u64_t = unsigned long long;
using i64_t = long long;
#else
using u32_t = std::uint32_t; ///< one Philox word
using u64_t = std::uint64_t; ///< seeds, streams, block numbers
using i64_t = std::int64_t;  ///< integer samples
#endif

/// Four 32-bit words: a Philox counter, or the block of random bits it maps to.
struct Words4x32 {
  u32_t w0, w1, w2, w3;
};

/// The two-word Philox4x32 key.
struct Key2x32 {
  u32_t k0, k1;
};

namespace detail {

inline constexpr u32_t philox_m0 = 0xD2511F53u;
inline constexpr u32_t philox_m1 = 0xCD9E8D57u;
inline constexpr u32_t philox_w0 = 0x9E3779B9u; // golden ratio
inline constexpr u32_t philox_w1 = 0xBB67AE85u; // sqrt(3) - 1

CHUNKED_HD CHUNKED_FORCEINLINE constexpr Words4x32 philox_round(Words4x32 c, Key2x32 k) {
  // A 32x32 -> 64 product compiles to one mul.wide (or mul.lo/mul.hi pair) on the device.
  const u64_t p0 = static_cast<u64_t>(philox_m0) * c.w0;
  const u64_t p1 = static_cast<u64_t>(philox_m1) * c.w2;
  const auto hi0 = static_cast<u32_t>(p0 >> 32);
  const auto lo0 = static_cast<u32_t>(p0);
  const auto hi1 = static_cast<u32_t>(p1 >> 32);
  const auto lo1 = static_cast<u32_t>(p1);
  return {hi1 ^ c.w1 ^ k.k0, lo1, hi0 ^ c.w3 ^ k.k1, lo0};
}

} // namespace detail

/// The Philox4x32-10 bijection of Salmon et al. (SC'11): ten rounds, key bumped between rounds.
/// Bit-identical to Random123's `philox4x32` with 10 rounds and to cuRAND's
/// `curand_Philox4x32_10(counter, key)`.
CHUNKED_HD CHUNKED_FORCEINLINE constexpr Words4x32 philox4x32_10(Words4x32 counter, Key2x32 key) {
  for (int round = 0; round < 9; ++round) {
    counter = detail::philox_round(counter, key);
    key.k0 += detail::philox_w0;
    key.k1 += detail::philox_w1;
  }
  return detail::philox_round(counter, key);
}

/// The Philox key of a generator: `{lo32(seed), hi32(seed)}`.
CHUNKED_HD CHUNKED_FORCEINLINE constexpr Key2x32 philox_key(u64_t seed) {
  return {static_cast<u32_t>(seed), static_cast<u32_t>(seed >> 32)};
}

/// The four words of Philox block `block` of stream `stream` of generator `seed`: the counter is
/// `{lo32(block), hi32(block), lo32(stream), hi32(stream)}`. The element with flat index `e` of a
/// random array uses block `e >> 1` (see `block_of`): one block feeds two neighbouring elements.
CHUNKED_HD CHUNKED_FORCEINLINE constexpr Words4x32 philox_words(u64_t seed, u64_t stream,
                                                                u64_t block) {
  const Words4x32 counter{static_cast<u32_t>(block), static_cast<u32_t>(block >> 32),
                          static_cast<u32_t>(stream), static_cast<u32_t>(stream >> 32)};
  return philox4x32_10(counter, philox_key(seed));
}

/// The Philox block of the element with flat index `e`.
CHUNKED_HD CHUNKED_FORCEINLINE constexpr u64_t block_of(u64_t e) { return e >> 1; }

} // namespace chunked::random
