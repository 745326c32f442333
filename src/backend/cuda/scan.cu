// SPDX-License-Identifier: Apache-2.0
// Precompiled block-scan kernels (scan.hpp): rows along the last axis with cub::BlockScan in
// fixed tiles and segments; columns along other axes walked one thread each, coalesced across
// threads. The carry is combined in the same kernel that writes each element.
#include "backend/cuda/scan.hpp"

#include "backend/cuda/launch_geometry.hpp"

#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include <algorithm>
#include <string>
#include <type_traits>

namespace chunked::cuda {

namespace {

using Op = graph::ScanParams::Op;
using i64 = long long;

constexpr int scan_threads = 256;
constexpr int scan_items = 4; ///< per thread and tile: tiles of 1024 elements

/// The scan's combine; int64 goes through unsigned arithmetic, which wraps as NumPy's does.
template <Op O> struct Combine {
  template <class T> __host__ __device__ T operator()(const T& a, const T& b) const {
    if constexpr (std::is_same_v<T, i64>) {
      const auto ua = static_cast<unsigned long long>(a), ub = static_cast<unsigned long long>(b);
      return static_cast<T>(O == Op::sum ? ua + ub : ua * ub);
    } else {
      return O == Op::sum ? a + b : a * b;
    }
  }
};

/// What pads a partial tile: -0.0 for float sums, the one value that leaves every float, -0.0
/// included, unchanged under addition.
template <Op O, class T> __host__ __device__ constexpr T identity() {
  if constexpr (O == Op::sum)
    return std::is_same_v<T, i64> ? T(0) : T(-0.0);
  else
    return T(1);
}

/// Work item w of a row scan is segment w % segments of row w / segments. Pass 1 (`Totals`)
/// writes each segment's total to `totals`; pass 2 (otherwise) writes the scan, each segment
/// s > 0 starting from the exclusive prefix that scan_totals_kernel left in totals[w].
template <Op O, class T, bool Totals>
__global__ void __launch_bounds__(scan_threads)
    scan_rows_kernel(const T* in, const T* carry, T* out, T* totals, i64 outer, i64 length,
                     i64 carry_length, i64 segments) {
  using Load = cub::BlockLoad<T, scan_threads, scan_items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<T, scan_threads>;
  using Store = cub::BlockStore<T, scan_threads, scan_items, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } temp;
  constexpr i64 tile = static_cast<i64>(scan_threads) * scan_items;
  const Combine<O> op{};
  for (i64 w = blockIdx.x; w < outer * segments; w += gridDim.x) {
    const i64 row = w / segments, seg = w % segments;
    const i64 lo = seg * scan_segment;
    const i64 hi = lo + scan_segment < length ? lo + scan_segment : length;
    const T* x = in + row * length;
    T* y = out + row * length;
    const bool has_carry = !Totals && carry != nullptr;
    const T c = has_carry ? carry[row * carry_length + carry_length - 1] : T{};
    bool have_prefix = !Totals && seg > 0;
    T prefix = have_prefix ? totals[w] : T{};
    for (i64 base = lo; base < hi; base += tile) {
      const int valid = static_cast<int>(hi - base < tile ? hi - base : tile);
      T items[scan_items];
      Load(temp.load).Load(x + base, items, valid, identity<O, T>());
      __syncthreads();
      T aggregate;
      Scan(temp.scan).InclusiveScan(items, items, op, aggregate);
      __syncthreads();
      if constexpr (!Totals) {
        for (int k = 0; k < scan_items; ++k) {
          if (have_prefix)
            items[k] = op(prefix, items[k]);
          if (has_carry)
            items[k] = op(c, items[k]);
        }
        Store(temp.store).Store(y + base, items, valid);
        __syncthreads();
      }
      // The last tile's aggregate includes the identity padding, which changes no value.
      prefix = have_prefix ? op(prefix, aggregate) : aggregate;
      have_prefix = true;
    }
    if (Totals && threadIdx.x == 0)
      totals[w] = prefix;
  }
}

/// Per row, its segment totals turned into exclusive prefixes in segment order (entry 0 unused).
template <Op O, class T> __global__ void scan_totals_kernel(T* totals, i64 outer, i64 segments) {
  const Combine<O> op{};
  for (i64 row = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; row < outer;
       row += static_cast<i64>(gridDim.x) * blockDim.x) {
    T* t = totals + row * segments;
    T acc = t[0];
    for (i64 s = 1; s < segments; ++s) {
      const T next = t[s];
      t[s] = acc;
      acc = op(acc, next);
    }
  }
}

/// Threads per CUDA block of the column walk: small blocks spread a block's few columns over
/// many SMs instead of crowding them onto a few.
constexpr int column_threads = 64;
/// Elements of its column a thread loads before it combines any of them: the loads do not depend
/// on the running value, so issued together they overlap their latency.
constexpr int column_batch = 32;

/// Along an outer axis: thread (o, j) walks column j of outer index o down the axis, in index
/// order, as the CPU does; neighbouring threads read neighbouring elements. A batch's loads all
/// come before its first store, so that no store (which may alias them for the compiler) holds
/// them back; the combines stay in index order.
template <Op O, class T>
__global__ void __launch_bounds__(column_threads)
    scan_columns_kernel(const T* in, const T* carry, T* out, i64 outer, i64 length, i64 inner,
                        i64 carry_length) {
  const Combine<O> op{};
  for (i64 t = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; t < outer * inner;
       t += static_cast<i64>(gridDim.x) * blockDim.x) {
    const i64 o = t / inner, j = t % inner;
    const T* x = in + o * length * inner + j;
    T* y = out + o * length * inner + j;
    const bool has_carry = carry != nullptr;
    const T c = has_carry ? carry[(o * carry_length + carry_length - 1) * inner + j] : T{};
    T s = x[0];
    y[0] = has_carry ? op(c, s) : s;
    i64 i = 1;
    for (; i + column_batch <= length; i += column_batch) {
      T v[column_batch];
#pragma unroll
      for (int u = 0; u < column_batch; ++u)
        v[u] = x[(i + u) * inner];
#pragma unroll
      for (int u = 0; u < column_batch; ++u) {
        s = op(s, v[u]);
        y[(i + u) * inner] = has_carry ? op(c, s) : s;
      }
    }
    for (; i < length; ++i) {
      s = op(s, x[i * inner]);
      y[i * inner] = has_carry ? op(c, s) : s;
    }
  }
}

template <Op O, class T>
void launch_scan(const plan::ScanBlock& b, const T* in, const T* carry, T* out, T* totals,
                 cudaStream_t st) {
  if (b.inner != 1) {
    const index_t columns = b.outer * b.inner;
    const auto blocks = static_cast<unsigned>(
        std::clamp<index_t>((columns + column_threads - 1) / column_threads, 1, max_grid));
    scan_columns_kernel<O, T><<<blocks, column_threads, 0, st>>>(in, carry, out, b.outer, b.length,
                                                                 b.inner, b.carry_length);
    return;
  }
  const index_t segments = scan_segments(b);
  const auto blocks = static_cast<unsigned>(std::min<index_t>(b.outer * segments, max_grid));
  if (segments > 1) {
    scan_rows_kernel<O, T, true><<<blocks, scan_threads, 0, st>>>(
        in, carry, out, totals, b.outer, b.length, b.carry_length, segments);
    scan_totals_kernel<O, T>
        <<<grid_for(b.outer), kernel::block_threads_host, 0, st>>>(totals, b.outer, segments);
  }
  scan_rows_kernel<O, T, false><<<blocks, scan_threads, 0, st>>>(
      in, carry, out, totals, b.outer, b.length, b.carry_length, segments);
}

template <Op O>
void scan_dtype(DType dtype, const plan::ScanBlock& b, const void* in, const void* carry, void* out,
                void* scratch, cudaStream_t st) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* c = b.carry_length > 0 ? static_cast<const T*>(carry) : nullptr;
    launch_scan<O, T>(b, static_cast<const T*>(in), c, static_cast<T*>(out),
                      static_cast<T*>(scratch), st);
  };
  switch (dtype) {
  case DType::int64:
    return run(i64{});
  case DType::float32:
    return run(float{});
  case DType::float64:
    return run(double{});
  default:
    throw ValueError("internal: a scan of " + std::string(dtype_name(dtype)) +
                     " values; scans accumulate int64, float or double");
  }
}

} // namespace

void scan_block(Op op, DType dtype, const plan::ScanBlock& b, const void* in, const void* carry,
                void* out, void* scratch, const Stream& stream) {
  if (op == Op::exact_sum)
    return exact_scan_block(dtype, b, in, carry, out, scratch, stream);
  if (b.size() == 0)
    return;
  if (op == Op::sum)
    scan_dtype<Op::sum>(dtype, b, in, carry, out, scratch, stream.get());
  else
    scan_dtype<Op::prod>(dtype, b, in, carry, out, scratch, stream.get());
  check(cudaGetLastError(), "scan kernel launch", stream.device(),
        "(" + std::to_string(b.size()) + " elements)");
}

} // namespace chunked::cuda
