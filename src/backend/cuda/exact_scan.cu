// SPDX-License-Identifier: Apache-2.0
// Precompiled exact cumsum kernels (exact_scan.hpp). Work item t is element j = t % inner of
// segment s of outer index o (t / inner = o * segments + s), so neighbouring threads read
// neighbouring elements when the axis is not the last.
#include "backend/cuda/exact_scan.hpp"

#include "backend/common/exact_running.hpp"
#include "backend/cuda/launch_geometry.hpp"

#include <string>

namespace chunked::cuda {

namespace {

namespace exact = scalar::exact;
using i64 = long long;
constexpr int words = plan::exact_state_words;

/// One work item's place: its line (o * inner + j), segment and elements [begin, end).
struct Item {
  i64 line, segment, begin, end, first; ///< first: the offset of element begin
};

__device__ inline Item item_of(i64 t, i64 length, i64 inner, i64 segments) {
  const i64 j = t % inner, rest = t / inner;
  const i64 s = rest % segments, o = rest / segments;
  const i64 per = (length + segments - 1) / segments;
  Item it;
  it.line = o * inner + j;
  it.segment = s;
  it.begin = s * per < length ? s * per : length;
  it.end = it.begin + per < length ? it.begin + per : length;
  it.first = (o * length + it.begin) * inner + j;
  return it;
}

/// Pass 1: the exact sum of every segment but the last of each line, into sums[line][segment].
template <class T>
__global__ void segment_sums_kernel(const T* in, i64* sums, i64 items, i64 length, i64 inner,
                                    i64 segments) {
  for (i64 t = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; t < items;
       t += static_cast<i64>(gridDim.x) * blockDim.x) {
    const Item it = item_of(t, length, inner, segments);
    if (it.segment == segments - 1)
      continue;
    exact::Running r;
    exact::start(r);
    for (i64 i = it.begin, at = it.first; i < it.end; ++i, at += inner)
      exact::add(r, static_cast<double>(in[at]));
    exact::store(r, sums + (it.line * segments + it.segment) * words);
  }
}

/// Pass 2: per line, each segment's sum replaced by the exact sum before the segment (the carry,
/// then the segments before it in order).
__global__ void segment_prefixes_kernel(const i64* carried, i64* sums, i64 lines, i64 segments) {
  for (i64 line = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; line < lines;
       line += static_cast<i64>(gridDim.x) * blockDim.x) {
    exact::Running r;
    if (carried != nullptr)
      exact::load(r, carried + line * words);
    else
      exact::start(r);
    i64* s = sums + line * segments * words;
    for (i64 k = 0; k < segments; ++k) {
      exact::Running next = r;
      if (k + 1 < segments)
        exact::absorb(next, s + k * words);
      exact::store(r, s + k * words);
      r = next;
    }
  }
}

/// Pass 3: each segment walked from its exact prefix (`prefixes`, or with one segment the carry
/// or nothing), every element rounded; the last segment of a line writes the line's sum.
template <class T>
__global__ void exact_walk_kernel(const T* in, const i64* prefixes, const i64* carried, T* out,
                                  i64* states, i64 items, i64 length, i64 inner, i64 segments) {
  for (i64 t = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; t < items;
       t += static_cast<i64>(gridDim.x) * blockDim.x) {
    const Item it = item_of(t, length, inner, segments);
    exact::Running r;
    if (prefixes != nullptr)
      exact::load(r, prefixes + (it.line * segments + it.segment) * words);
    else if (carried != nullptr)
      exact::load(r, carried + it.line * words);
    else
      exact::start(r);
    for (i64 i = it.begin, at = it.first; i < it.end; ++i, at += inner) {
      exact::add(r, static_cast<double>(in[at]));
      out[at] = exact::running_value<T>(r);
    }
    if (it.segment == segments - 1)
      exact::store(r, states + it.line * words);
  }
}

/// Threads per CUDA block: each holds a running sum in local memory.
constexpr int exact_threads = 128;

unsigned exact_grid(index_t n) {
  return static_cast<unsigned>(
      std::clamp<index_t>((n + exact_threads - 1) / exact_threads, 1, max_grid));
}

template <class T>
void launch(const plan::ScanBlock& b, const T* in, const void* carry, T* out, i64* scratch,
            cudaStream_t st) {
  auto* states = reinterpret_cast<i64*>(plan::exact_states(out, b, dtype_v<T>));
  const auto* carried =
      reinterpret_cast<const i64*>(plan::exact_carried_states(carry, b, dtype_v<T>));
  const index_t segments = exact_scan_segments(b);
  const index_t items = b.outer * segments * b.inner;
  if (segments > 1) {
    segment_sums_kernel<T><<<exact_grid(items), exact_threads, 0, st>>>(
        in, scratch, items, b.length, b.inner, segments);
    segment_prefixes_kernel<<<exact_grid(b.lines()), exact_threads, 0, st>>>(carried, scratch,
                                                                             b.lines(), segments);
  }
  exact_walk_kernel<T><<<exact_grid(items), exact_threads, 0, st>>>(
      in, segments > 1 ? scratch : nullptr, carried, out, states, items, b.length, b.inner,
      segments);
}

} // namespace

void exact_scan_block(DType dtype, const plan::ScanBlock& b, const void* in, const void* carry,
                      void* out, void* scratch, const Stream& stream) {
  if (b.lines() == 0)
    return;
  auto* s = static_cast<i64*>(scratch);
  switch (dtype) {
  case DType::float32:
    launch(b, static_cast<const float*>(in), carry, static_cast<float*>(out), s, stream.get());
    break;
  case DType::float64:
    launch(b, static_cast<const double*>(in), carry, static_cast<double*>(out), s, stream.get());
    break;
  default:
    throw ValueError("internal: an exact cumsum of " + std::string(dtype_name(dtype)) +
                     " values; exact cumsums take float or double");
  }
  check(cudaGetLastError(), "exact scan kernel launch", stream.device(),
        "(" + std::to_string(b.size()) + " elements)");
}

} // namespace chunked::cuda
