// SPDX-License-Identifier: Apache-2.0
// chunked-panel-probe: how close a standardize over axis 0, (x - mean) / std, can come to the
// device copy when it reads x only once. The B3 array (65536 x 4096 float64 in 16 row chunks of
// 128 MiB) does not fit on chip, so reading it once means holding a whole column panel (every row
// of W columns) in the shared memory of all SMs, reducing the panel's moments across the grid and
// writing the result from shared memory. The probe measures, with CUDA events (medians):
//
//   copy       cudaMemcpyAsync of every chunk (the bandwidth B3 is measured against);
//   panel W G  a plain copy in that panel order: G blocks each copy their row range of panel 0,
//              then of panel 1, ... (the access pattern alone, with no reduction);
//   fused W S  the one-read standardize: a persistent cooperative kernel, one block per SM, with
//              S panels in flight through cp.async, the per-block moments (n, sum, M2) combined
//              in a fixed order after a grid-wide barrier per panel; checked against a host
//              two-pass standardize on some columns;
//   l2 W T G   the same through the L2: G blocks read their rows of a panel once from memory,
//              publish their moments, the last to arrive combines them, and every block reads its
//              rows again from the L2 to write the result (optionally folding the next panel
//              before waiting), with no shared-memory staging.
//
//   chunked-panel-probe [repeats = 10]
#include <cuda/atomic>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    const cudaError_t s_ = (call);                                                                 \
    if (s_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(s_));   \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace {

constexpr int rows = 65536;
constexpr int cols = 4096;
constexpr int chunk_rows = 4096;
constexpr int chunks = rows / chunk_rows;

/// The chunk pointers, passed by value: chunks are separate allocations, as in the library.
struct Chunks {
  double* p[chunks];
};

__device__ __forceinline__ double* at(const Chunks& c, long r, int col) {
  return c.p[r / chunk_rows] + (r % chunk_rows) * static_cast<long>(cols) + col;
}

/// A deterministic, roughly normal(10, 2) fill: each column has its own mean and spread, so a
/// wrong combine shows.
__global__ void fill(double* chunk, long first_row) {
  const long n = static_cast<long>(chunk_rows) * cols;
  for (long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const long r = first_row + i / cols;
    const int c = static_cast<int>(i % cols);
    unsigned long long h = (static_cast<unsigned long long>(r) << 20 | c) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    const double u = (h >> 11) * 0x1p-53;
    chunk[i] = 10.0 + (c % 7) + (1.0 + (c % 3)) * (u - 0.5) * 3.4;
  }
}

/// Each block copies its row range of panel 0, then of panel 1, ...; 16-byte streaming accesses.
template <int W> __global__ void panel_copy(Chunks in, Chunks out) {
  constexpr int vectors = W / 2;
  const long r0 = static_cast<long>(rows) * blockIdx.x / gridDim.x;
  const long r1 = static_cast<long>(rows) * (blockIdx.x + 1) / gridDim.x;
  const int n = static_cast<int>(r1 - r0) * vectors;
  for (int panel = 0; panel < cols / W; ++panel)
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const long r = r0 + i / vectors;
      const int col = panel * W + 2 * (i % vectors);
      __stcs(reinterpret_cast<double2*>(at(out, r, col)),
             __ldcs(reinterpret_cast<const double2*>(at(in, r, col))));
    }
}

/// One block's moments of one column of a panel: count, sum and the sum of squared deviations
/// from the block's own mean.
struct Moments {
  double n, sum, m2;
};

struct FusedArgs {
  Chunks in, out;
  Moments* partials;  // [panel][block][column]
  unsigned* arrivals; // blocks that have published their moments, summed over panels
  int max_block_rows;
};

template <int W, int S, int T>
__device__ void load_panel(const FusedArgs& a, double* stage, long r0, int n_rows, int panel) {
  for (int i = threadIdx.x; i < n_rows * (W / 2); i += T) {
    const long r = r0 + i / (W / 2);
    const int v = i % (W / 2);
    __pipeline_memcpy_async(stage + 2 * i, at(a.in, r, panel * W + 2 * v), 16);
  }
  __pipeline_commit();
}

/// Column sums of a panel in shared memory: thread t sums column t % W over rows t / W,
/// t / W + T / W, ...; the T / W partial sums of a column are then added in order.
template <int W, int T>
__device__ void column_sums(const double* stage, int n_rows, const double* shift, double* scratch,
                            double* result) {
  const int col = threadIdx.x % W;
  const double s = shift ? shift[col] : 0.0;
  double acc = 0;
  for (int r = threadIdx.x / W; r < n_rows; r += T / W) {
    const double d = stage[r * W + col] - s;
    acc += shift ? d * d : d;
  }
  scratch[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x < W) {
    double total = 0;
    for (int g = 0; g < T / W; ++g)
      total += scratch[g * W + threadIdx.x];
    result[threadIdx.x] = total;
  }
  __syncthreads();
}

template <int W, int S, int T>
__global__ void __launch_bounds__(T, 1) fused_standardize(FusedArgs a) {
  extern __shared__ double shared[];
  double* scratch = shared;   // T
  double* sums = scratch + T; // W
  double* means = sums + W;   // W: the block's, then the whole column's
  double* m2s = means + W;    // W
  double* stds = m2s + W;     // W
  double* stages = stds + W;  // S * max_block_rows * W
  const long r0 = static_cast<long>(rows) * blockIdx.x / gridDim.x;
  const int n_rows = static_cast<int>(static_cast<long>(rows) * (blockIdx.x + 1) / gridDim.x - r0);
  const int stage_size = a.max_block_rows * W;
  constexpr int panels = cols / W;
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> arrivals(*a.arrivals);

  for (int p = 0; p < S - 1 && p < panels; ++p)
    load_panel<W, S, T>(a, stages + p * stage_size, r0, n_rows, p);
  for (int p = 0; p < panels; ++p) {
    double* stage = stages + (p % S) * stage_size;
    if constexpr (S == 1)
      load_panel<W, S, T>(a, stage, r0, n_rows, p);
    // Panels p + 1 .. p + S - 2 may still be in flight.
    __pipeline_wait_prior(S > 1 ? S - 2 : 0);
    __syncthreads();

    column_sums<W, T>(stage, n_rows, nullptr, scratch, sums);
    if (threadIdx.x < W)
      means[threadIdx.x] = sums[threadIdx.x] / n_rows;
    __syncthreads();
    column_sums<W, T>(stage, n_rows, means, scratch, m2s);
    if (threadIdx.x < W) {
      a.partials[(static_cast<long>(p) * gridDim.x + blockIdx.x) * W + threadIdx.x] =
          Moments{static_cast<double>(n_rows), sums[threadIdx.x], m2s[threadIdx.x]};
      __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0)
      arrivals.fetch_add(1, cuda::memory_order_release);
    // While the other blocks arrive, start the load of the panel S - 1 ahead; its stage held
    // panel p - 1, whose result was written before this iteration's first barrier.
    if constexpr (S > 1) {
      if (p + S - 1 < panels)
        load_panel<W, S, T>(a, stages + ((p + S - 1) % S) * stage_size, r0, n_rows, p + S - 1);
      else
        __pipeline_commit(); // an empty group keeps the wait count uniform
    }
    if (threadIdx.x == 0)
      while (arrivals.load(cuda::memory_order_acquire) < (p + 1u) * gridDim.x) {
      }
    __syncthreads();

    // Chan's combine over the blocks: one warp per column, lane l holding blocks l, l + 32, ...;
    // the butterfly leaves the same bits in every lane (a + b == b + a), and in every block.
    for (int c = threadIdx.x / 32; c < W; c += T / 32) {
      const int lane = threadIdx.x % 32;
      const Moments* column = a.partials + static_cast<long>(p) * gridDim.x * W + c;
      constexpr int per_lane = 8; // up to 256 blocks
      Moments mine[per_lane];
      double n = 0, sum = 0;
#pragma unroll
      for (int k = 0; k < per_lane; ++k) {
        const unsigned b = lane + 32u * k;
        mine[k] = b < gridDim.x ? column[b * W] : Moments{0, 0, 0};
        n += mine[k].n;
        sum += mine[k].sum;
      }
      for (int offset = 16; offset > 0; offset /= 2) {
        n += __shfl_xor_sync(0xffffffffu, n, offset);
        sum += __shfl_xor_sync(0xffffffffu, sum, offset);
      }
      const double mean = sum / n;
      double m2 = 0;
#pragma unroll
      for (int k = 0; k < per_lane; ++k)
        if (mine[k].n > 0) {
          const double d = mine[k].sum / mine[k].n - mean;
          m2 += mine[k].m2 + mine[k].n * d * d;
        }
      for (int offset = 16; offset > 0; offset /= 2)
        m2 += __shfl_xor_sync(0xffffffffu, m2, offset);
      if (lane == 0) {
        means[c] = mean;
        stds[c] = sqrt(m2 / n);
      }
    }
    __syncthreads();

    for (int i = threadIdx.x; i < n_rows * (W / 2); i += T) {
      const long r = r0 + i / (W / 2);
      const int c = 2 * (i % (W / 2));
      const double2 x = reinterpret_cast<const double2*>(stage)[i];
      __stcs(reinterpret_cast<double2*>(at(a.out, r, p * W + c)),
             make_double2((x.x - means[c]) / stds[c], (x.y - means[c + 1]) / stds[c + 1]));
    }
  }
}

/// The one-read standardize through the L2 instead of shared memory. G co-resident blocks (MINB
/// per SM) each read their row range of panel p once from memory with loads that cache in the L2
/// only, fold it into per-column sums of x - k and (x - k)^2, with k the column's first element
/// (read by every block), publish them and arrive at the panel's counter; the last block to
/// arrive adds the G partials in block order (lanes of a column joined by butterflies, which give
/// the same bits in every lane) and publishes (mean, std). Every block then reads its rows of the
/// panel again, from the L2, and writes the result with evict-first stores. With AHEAD, a block
/// folds panel p + 1 before it waits for panel p's statistics, so that the wait overlaps memory
/// traffic, and two panels live in the L2.
struct L2Args {
  Chunks in, out;
  double2* partials;   // [2][G][W] (sum of x - k, sum of (x - k)^2), by panel parity
  double2* stats;      // [2][W] (mean, std), by panel parity
  unsigned* arrivals;  // [panels]
  unsigned* published; // [panels]: the panel's statistics are out (combines may end out of order)
};

template <int W, int T, int MINB, bool AHEAD>
__global__ void __launch_bounds__(T, MINB) l2_standardize(L2Args a) {
  constexpr int V = W / 2; // 16-byte vectors per row of a panel
  constexpr int R = T / V; // rows a block reads at once
  constexpr int L = T / W; // combining lanes per column
  constexpr int panels = cols / W;
  constexpr int batch = 4;
  static_assert(L >= 1 && L <= 32 && (L & (L - 1)) == 0);
  __shared__ double2 part[R][W];
  __shared__ double shift[W];
  __shared__ double2 stat[W];
  __shared__ bool last;
  const int v = threadIdx.x % V;
  const int g = threadIdx.x / V;
  const long r0 = static_cast<long>(rows) * blockIdx.x / gridDim.x;
  const long r1 = static_cast<long>(rows) * (blockIdx.x + 1) / gridDim.x;
  const unsigned G = gridDim.x;

  auto fold = [&](int p) {
    const int col = p * W + 2 * v;
    const double2 k = __ldcg(reinterpret_cast<const double2*>(at(a.in, 0, col)));
    double2 s1{0, 0}, s2{0, 0};
    for (long r = r0 + g; r < r1; r += batch * R) {
      double2 x[batch];
#pragma unroll
      for (int b = 0; b < batch; ++b)
        x[b] =
            r + b * R < r1 ? __ldcg(reinterpret_cast<const double2*>(at(a.in, r + b * R, col))) : k;
#pragma unroll
      for (int b = 0; b < batch; ++b) {
        const double dx = x[b].x - k.x, dy = x[b].y - k.y;
        s1.x += dx;
        s1.y += dy;
        s2.x += dx * dx;
        s2.y += dy * dy;
      }
    }
    part[g][2 * v] = {s1.x, s2.x};
    part[g][2 * v + 1] = {s1.y, s2.y};
    if (g == 0) {
      shift[2 * v] = k.x;
      shift[2 * v + 1] = k.y;
    }
    __syncthreads();
    if (threadIdx.x < W) {
      double t1 = 0, t2 = 0;
      for (int q = 0; q < R; ++q) {
        t1 += part[q][threadIdx.x].x;
        t2 += part[q][threadIdx.x].y;
      }
      a.partials[((p & 1) * G + blockIdx.x) * W + threadIdx.x] = make_double2(t1, t2);
      __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> arrived(a.arrivals[p]);
      last = arrived.fetch_add(1, cuda::memory_order_acq_rel) == G - 1;
    }
    __syncthreads();
    if (last) {
      const int c = threadIdx.x / L, lane = threadIdx.x % L;
      const double2* column = a.partials + static_cast<long>(p & 1) * G * W + c;
      double t1 = 0, t2 = 0;
      constexpr int loads = 4;
      for (unsigned b0 = lane; b0 < G; b0 += loads * L) {
        double2 s[loads];
#pragma unroll
        for (int j = 0; j < loads; ++j) {
          const unsigned b = b0 + j * L;
          s[j] = b < G ? __ldcg(column + static_cast<long>(b) * W) : make_double2(0, 0);
        }
#pragma unroll
        for (int j = 0; j < loads; ++j) {
          t1 += s[j].x;
          t2 += s[j].y;
        }
      }
      for (int o = L / 2; o > 0; o /= 2) {
        t1 += __shfl_xor_sync(0xffffffffu, t1, o, L);
        t2 += __shfl_xor_sync(0xffffffffu, t2, o, L);
      }
      if (lane == 0) {
        a.stats[(p & 1) * W + c] =
            make_double2(shift[c] + t1 / rows, sqrt((t2 - t1 * t1 / rows) / rows));
        __threadfence();
      }
      __syncthreads();
      if (threadIdx.x == 0)
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(a.published[p])
            .store(1, cuda::memory_order_release);
    }
  };

  auto store = [&](int p) {
    if (threadIdx.x == 0)
      while (cuda::atomic_ref<unsigned, cuda::thread_scope_device>(a.published[p])
                 .load(cuda::memory_order_acquire) == 0) {
      }
    __syncthreads();
    if (threadIdx.x < W)
      stat[threadIdx.x] = __ldcg(a.stats + (p & 1) * W + threadIdx.x);
    __syncthreads();
    const int col = p * W + 2 * v;
    const double2 s0 = stat[2 * v], s1 = stat[2 * v + 1];
    for (long r = r0 + g; r < r1; r += batch * R) {
      double2 x[batch];
#pragma unroll
      for (int b = 0; b < batch; ++b)
        if (r + b * R < r1)
          x[b] = __ldcg(reinterpret_cast<const double2*>(at(a.in, r + b * R, col)));
#pragma unroll
      for (int b = 0; b < batch; ++b)
        if (r + b * R < r1)
          __stcs(reinterpret_cast<double2*>(at(a.out, r + b * R, col)),
                 make_double2((x[b].x - s0.x) / s0.y, (x[b].y - s1.x) / s1.y));
    }
  };

  if constexpr (AHEAD) {
    fold(0);
    for (int p = 0; p < panels; ++p) {
      if (p + 1 < panels)
        fold(p + 1);
      store(p);
    }
  } else {
    for (int p = 0; p < panels; ++p) {
      fold(p);
      store(p);
    }
  }
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Event-timed median of `repeats` calls of `run` after two warm-up calls.
template <class F> float time_ms(int repeats, F&& run) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int i = 0; i < repeats + 2; ++i) {
    CHECK(cudaEventRecord(start));
    run();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    if (i >= 2)
      ms.push_back(t);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return median(ms);
}

struct Device {
  Chunks in{}, out{};
  int sms = 0;
};

template <int W> void probe_panel_copy(const Device& d, int repeats, float copy_ms) {
  for (const int blocks : {d.sms, 2 * d.sms, 4 * d.sms}) {
    const float ms = time_ms(repeats, [&] {
      panel_copy<W><<<blocks, 512>>>(d.in, d.out);
      CHECK(cudaGetLastError());
    });
    std::printf("panel W=%-4d grid=%-4d %8.3f ms  %.2f of copy\n", W, blocks, ms, copy_ms / ms);
  }
}

/// Worst relative difference between the device result and a host two-pass standardize, over a
/// spread of columns.
double check_standardize(const Device& d) {
  std::vector<double> host(static_cast<std::size_t>(chunk_rows) * cols);
  std::vector<double> x(rows), y(rows);
  const std::vector<int> columns = {0, 1, 15, 16, 17, 31, 1000, 2047, 2048, 4095};
  std::vector<std::vector<double>> xs(columns.size(), std::vector<double>(rows)), ys = xs;
  for (int c = 0; c < chunks; ++c) {
    for (int which = 0; which < 2; ++which) {
      CHECK(cudaMemcpy(host.data(), which ? d.out.p[c] : d.in.p[c], host.size() * sizeof(double),
                       cudaMemcpyDeviceToHost));
      for (std::size_t k = 0; k < columns.size(); ++k)
        for (int r = 0; r < chunk_rows; ++r)
          (which ? ys : xs)[k][c * chunk_rows + r] =
              host[static_cast<std::size_t>(r) * cols + columns[k]];
    }
  }
  double worst = 0;
  for (std::size_t k = 0; k < columns.size(); ++k) {
    double sum = 0;
    for (double v : xs[k])
      sum += v;
    const double mean = sum / rows;
    double m2 = 0;
    for (double v : xs[k])
      m2 += (v - mean) * (v - mean);
    const double sd = std::sqrt(m2 / rows);
    for (int r = 0; r < rows; ++r) {
      const double want = (xs[k][r] - mean) / sd;
      worst = std::max(worst, std::abs(ys[k][r] - want) / std::max(std::abs(want), 1e-3));
    }
  }
  return worst;
}

template <int W, int S, int T> void probe_fused(const Device& d, int repeats, float copy_ms) {
  const int blocks = d.sms;
  if (blocks > 256) {
    std::printf("fused: the combine holds at most 256 blocks' moments per column; %d SMs\n",
                blocks);
    return;
  }
  const int max_block_rows = (rows + blocks - 1) / blocks;
  const std::size_t bytes = (T + 4 * W + static_cast<std::size_t>(S) * max_block_rows * W) * 8;
  int limit = 0;
  CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  if (bytes > static_cast<std::size_t>(limit)) {
    std::printf("fused W=%-3d S=%d T=%-4d needs %zu B of shared memory, the limit is %d\n", W, S, T,
                bytes, limit);
    return;
  }
  auto kernel = fused_standardize<W, S, T>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(bytes)));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T, bytes));
  if (per_sm < 1) {
    std::printf("fused W=%-3d S=%d T=%-4d does not fit on an SM\n", W, S, T);
    return;
  }
  FusedArgs a{d.in, d.out, nullptr, nullptr, max_block_rows};
  CHECK(cudaMalloc(&a.partials, sizeof(Moments) * (cols / W) * blocks * W));
  CHECK(cudaMalloc(&a.arrivals, sizeof(unsigned)));
  void* params[] = {&a};
  const float ms = time_ms(repeats, [&] {
    CHECK(cudaMemsetAsync(a.arrivals, 0, sizeof(unsigned)));
    CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), blocks, T, params,
                                      bytes));
  });
  CHECK(cudaDeviceSynchronize());
  std::printf("fused W=%-3d S=%d T=%-4d %8.3f ms  %.2f of copy  worst rel. error %.2e\n", W, S, T,
              ms, copy_ms / ms, check_standardize(d));
  CHECK(cudaFree(a.partials));
  CHECK(cudaFree(a.arrivals));
}

template <int W, int T, int MINB, bool AHEAD>
void probe_l2(const Device& d, int repeats, float copy_ms) {
  auto kernel = l2_standardize<W, T, MINB, AHEAD>;
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T, 0));
  for (int b = 1; b <= std::min(per_sm, 4); b *= 2) {
    const int blocks = b * d.sms;
    L2Args a{d.in, d.out, nullptr, nullptr, nullptr, nullptr};
    CHECK(cudaMalloc(&a.partials, sizeof(double2) * 2 * blocks * W));
    CHECK(cudaMalloc(&a.stats, sizeof(double2) * 2 * W));
    CHECK(cudaMalloc(&a.arrivals, sizeof(unsigned) * 2 * (cols / W)));
    a.published = a.arrivals + cols / W;
    void* params[] = {&a};
    const float ms = time_ms(repeats, [&] {
      CHECK(cudaMemsetAsync(a.arrivals, 0, sizeof(unsigned) * 2 * (cols / W)));
      CHECK(
          cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), blocks, T, params, 0));
    });
    CHECK(cudaDeviceSynchronize());
    std::printf("l2 W=%-3d T=%-4d grid=%-4d %s %8.3f ms  %.2f of copy  worst rel. error %.2e\n", W,
                T, blocks, AHEAD ? "ahead" : "     ", ms, copy_ms / ms, check_standardize(d));
    CHECK(cudaFree(a.partials));
    CHECK(cudaFree(a.stats));
    CHECK(cudaFree(a.arrivals));
  }
}

} // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 10;
  Device d;
  CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, 0));
  const std::size_t chunk_bytes = sizeof(double) * chunk_rows * cols;
  for (int c = 0; c < chunks; ++c) {
    CHECK(cudaMalloc(&d.in.p[c], chunk_bytes));
    CHECK(cudaMalloc(&d.out.p[c], chunk_bytes));
    fill<<<1024, 256>>>(d.in.p[c], static_cast<long>(c) * chunk_rows);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; x: %d x %d float64 in %d chunks of %d rows; medians of %d\n", prop.name,
              d.sms, rows, cols, chunks, chunk_rows, repeats);

  const float copy_ms = time_ms(repeats, [&] {
    for (int c = 0; c < chunks; ++c)
      CHECK(cudaMemcpyAsync(d.out.p[c], d.in.p[c], chunk_bytes, cudaMemcpyDeviceToDevice));
  });
  std::printf("copy                %8.3f ms  %.0f GB/s (read + write)\n", copy_ms,
              2.0 * chunk_bytes * chunks / copy_ms * 1e-6);

  probe_panel_copy<16>(d, repeats, copy_ms);
  probe_panel_copy<32>(d, repeats, copy_ms);
  probe_panel_copy<64>(d, repeats, copy_ms);
  probe_panel_copy<128>(d, repeats, copy_ms);
  probe_panel_copy<4096>(d, repeats, copy_ms);

  probe_l2<16, 512, 2, false>(d, repeats, copy_ms);
  probe_l2<16, 512, 2, true>(d, repeats, copy_ms);
  probe_l2<32, 512, 2, false>(d, repeats, copy_ms);
  probe_l2<32, 512, 2, true>(d, repeats, copy_ms);
  probe_l2<32, 256, 4, true>(d, repeats, copy_ms);
  probe_l2<64, 512, 2, false>(d, repeats, copy_ms);
  probe_l2<64, 512, 2, true>(d, repeats, copy_ms);
  probe_l2<64, 1024, 1, true>(d, repeats, copy_ms);
  probe_l2<128, 512, 2, false>(d, repeats, copy_ms);

  probe_fused<8, 3, 512>(d, repeats, copy_ms);
  probe_fused<16, 3, 512>(d, repeats, copy_ms);
  probe_fused<16, 3, 1024>(d, repeats, copy_ms);
  probe_fused<16, 3, 256>(d, repeats, copy_ms);
  probe_fused<16, 2, 512>(d, repeats, copy_ms);
  probe_fused<32, 1, 1024>(d, repeats, copy_ms);

  for (int c = 0; c < chunks; ++c) {
    CHECK(cudaFree(d.in.p[c]));
    CHECK(cudaFree(d.out.p[c]));
  }
  return 0;
}
