// SPDX-License-Identifier: Apache-2.0
// Exact sums in generated reduction kernels: a window per thread, the digits per CUDA block in
// shared memory, added atomically.
#pragma once

// For NVRTC and nvcc, included by program.hpp.
#include "backend/cuda/kernel/partials.hpp"

/// @file
/// An exact entry (backend/common/exact_sum.hpp) is 75 words, too many to give each thread its
/// own in shared memory and merge in a tree. Instead the threads of a CUDA block that fold into
/// one entry share its flags and digits in shared memory (ExactShared): each thread keeps the
/// window of exact_sum.hpp in registers (anchor, three bins) and adds to the shared digits with
/// atomic 64-bit integer additions, only when its window settles (every 2^20 values, when a value
/// needs a higher anchor, and at the end) or for a value's remainder far below its anchor.
/// Integer additions give the same digits in any order, so the entry, and every result rounded
/// from it, does not depend on how the threads were scheduled. Each digit takes less than 2^32
/// per deposit and holds 2^63: a CUDA block may deposit 2^31 times, more than the elements any
/// CUDA block folds (at most one remainder per element, plus three per settle).
///
/// A CUDA block stores its entries with their carries propagated and empty windows; the passes
/// that fold stored entries add their digits (below 2^32 each, so up to 2^31 entries) and OR
/// their flags.

namespace chunked::cuda::kernel {

namespace exact = scalar::exact;

/// The flags and digits of one entry, shared by the threads of a CUDA block.
struct ExactShared {
  i64 w[1 + exact::digits];
};

/// Zeroes `n` shared entries, all threads of the block taking part (a barrier must follow).
CHUNKED_KD void exact_clear(ExactShared* s, int n) {
  for (int j = static_cast<int>(threadIdx.x); j < n * (1 + exact::digits);
       j += static_cast<int>(blockDim.x))
    s[j / (1 + exact::digits)].w[j % (1 + exact::digits)] = 0;
}

CHUNKED_KD void atomic_add_word(i64* w, i64 v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(w), static_cast<unsigned long long>(v));
}

/// Adds a finite double to the shared digits, as exact::deposit_finite does to an entry's.
CHUNKED_KD void atomic_deposit(ExactShared& s, double x) {
  i64* d = s.w + 1;
  exact::digit_pieces(x, [d](int i, i64 v) { atomic_add_word(d + i, v); });
}

/// One thread's window over a shared entry.
struct ExactFolder {
  ExactShared* shared;
  i64 flags;
  double limit; ///< 2^anchor; 0 before the first value
  double s0, s1, s2;
  double b0, b1, b2;
  int added;

  static CHUNKED_KD ExactFolder start(ExactShared* shared) {
    return {shared, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0};
  }
  CHUNKED_KD void settle() {
    atomic_deposit(*shared, b0);
    atomic_deposit(*shared, b1);
    atomic_deposit(*shared, b2);
    b0 = b1 = b2 = 0.0;
    added = 0;
  }
  /// Adds one element. Once the window has an anchor (limit > 0) some finite nonzero element set
  /// the flags any and not -0.0, so an element below the limit (zeros included) changes no flag
  /// and takes the fast path; NaN and infinities fail the comparison and go to add_rare.
  template <class T> CHUNKED_KD void add(T value, i64) {
    const double x = static_cast<double>(value);
    if (fabs(x) < limit)
      add_to_window(x);
    else
      add_rare(x);
  }
  CHUNKED_KD void add_to_window(double x) {
    const exact::Parts<double> p = exact::split(x, s0, s1, s2);
    b0 += p.q0;
    b1 += p.q1;
    b2 += p.q2;
    if (p.rest != 0.0)
      atomic_deposit(*shared, p.rest);
    if (++added >= exact::settle_after)
      settle();
  }
  /// An element the window cannot take as it is: the first, one above the limit, a special value.
  CHUNKED_KD void add_rare(double x) {
    flags |= exact::flags_of(x);
    if (!exact::is_finite(x) || x == 0.0)
      return;
    const int anchor = exact::anchor_for(x) + 4;
    if (anchor < exact::min_anchor || anchor > exact::max_anchor) {
      atomic_deposit(*shared, x);
      return;
    }
    settle();
    const exact::Splitters c = exact::splitters(anchor);
    limit = exact::pow2(anchor);
    s0 = c.s[0];
    s1 = c.s[1];
    s2 = c.s[2];
    add_to_window(x);
  }
  /// Moves what the thread holds into the shared entry (a barrier must follow before it is read).
  /// With `warp_shares_entry` (every lane of the warp folds into the same entry, and every lane
  /// calls this), lanes whose windows share one anchor (or hold nothing) first add their bins
  /// across the warp: each bin is a multiple of the same unit below 2^48 of them, so the 32-lane
  /// sums are exact (any order), and one lane deposits them.
  CHUNKED_KD void done(bool warp_shares_entry) {
    constexpr unsigned full = 0xffffffffu;
    double lead = limit;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
      lead = fmax(lead, __shfl_xor_sync(full, lead, o));
    const bool empty = b0 == 0.0 && b1 == 0.0 && b2 == 0.0;
    if (warp_shares_entry && __all_sync(full, (limit == lead || empty) && added < (1 << 15))) {
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) {
        b0 += __shfl_down_sync(full, b0, o);
        b1 += __shfl_down_sync(full, b1, o);
        b2 += __shfl_down_sync(full, b2, o);
      }
      const unsigned f = __reduce_or_sync(full, static_cast<unsigned>(flags));
      if (threadIdx.x % 32 == 0) {
        settle();
        if (f != 0)
          atomicOr(reinterpret_cast<unsigned long long*>(shared->w),
                   static_cast<unsigned long long>(f));
      }
      return;
    }
    settle();
    if (flags != 0)
      atomicOr(reinterpret_cast<unsigned long long*>(shared->w),
               static_cast<unsigned long long>(flags));
  }
};

/// Writes a shared entry (flags and digits, after every thread's done() and a barrier) as an
/// exact entry at `dst`, its carries propagated. One thread.
CHUNKED_KD void exact_store(const ExactShared& s, i64* dst) {
  i64 d[exact::digits];
  for (int i = 0; i < exact::digits; ++i)
    d[i] = s.w[1 + i];
  exact::carry(d);
  dst[exact::flags_word] = s.w[0];
  dst[exact::deposits_word] = 0;
  dst[exact::anchor_word] = exact::no_anchor;
  dst[exact::added_word] = 0;
  for (int j = 0; j < exact::bins; ++j)
    dst[exact::bins_word + j] = 0; // +0.0
  for (int i = 0; i < exact::digits; ++i)
    dst[exact::digits_word + i] = d[i];
}

/// Folds a stored entry, as exact_store leaves them (empty window, digits below 2^32), into the
/// words a lane holds in registers: words lane, lane + 32 and lane + 64 of (flags, digits...),
/// the flags ORed, the digits added. Registers rather than shared memory, so that the loads of
/// successive entries do not wait for each other.
CHUNKED_KD void exact_gather_lane(i64 (&acc)[3], const i64* src, int lane) {
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    const int j = lane + 32 * k;
    if (j == 0)
      acc[k] |= src[exact::flags_word];
    else if (j < 1 + exact::digits)
      acc[k] += src[exact::digits_word + j - 1];
  }
}

/// Adds a lane's words (exact_gather_lane) to a shared entry that other warps add to as well.
CHUNKED_KD void exact_add_lane(ExactShared& s, const i64 (&acc)[3], int lane) {
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    const int j = lane + 32 * k;
    if (j == 0)
      atomicOr(reinterpret_cast<unsigned long long*>(s.w), static_cast<unsigned long long>(acc[k]));
    else if (j < 1 + exact::digits)
      atomic_add_word(s.w + j, acc[k]);
  }
}

/// Where the threads of a CUDA block fold: nothing for accumulators held per thread, the shared
/// entries of exact sums (KX of them in reduce_axes_kernel, one elsewhere).
template <class Acc, int N> struct FoldSpace {
  CHUNKED_KD void clear() {}
};
template <int N> struct FoldSpace<ExactAcc, N> {
  ExactShared entry[N];
  CHUNKED_KD void clear() { exact_clear(entry, N); }
};

/// The folder of one thread: Folder<Acc>, or for exact sums a window over shared entry `k`.
template <class Acc, int N> CHUNKED_KD auto start_fold(FoldSpace<Acc, N>& space, int k) {
  if constexpr (is_same<Acc, ExactAcc>::value)
    return ExactFolder::start(&space.entry[k]);
  else
    return Folder<Acc>::start();
}

} // namespace chunked::cuda::kernel
