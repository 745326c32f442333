// SPDX-License-Identifier: Apache-2.0
// chunked-b9-mpi: the seed benchmark, (x + 1)[::2, ::2].sum() for x = normal(10, 1), under
// mpirun (BENCHMARKS.md B9): every rank runs the same program over chunked::mpi::cluster, and
// rank 0 prints the median time and the sum's bits, which must not depend on the rank count.
//
//   mpirun -np R chunked-b9-mpi [rows cols chunk_rows chunk_cols threads runs backend]
//   mpirun -np 1 chunked-b9-mpi 200000 200000 25000 25000 1 5 cpu --no-cluster  (the reference)
//   mpirun -np R chunked-b9-mpi ... cpu --slabs  (each rank sums its own rows alone, no cluster:
//                                                what R processes cost without any exchange)
#include <chunked/chunked.hpp>
#include <chunked/mpi.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

using namespace chunked;

namespace {

/// The seed benchmark's sum, or with `slab` (a rank's row range, in whole chunks) the sum of
/// those rows only.
template <class B>
double seed_sum(index_t rows, index_t cols, index_t cr, index_t cc, const ComputeOptions& options,
                std::pair<index_t, index_t> slab) {
  Generator rng(42);
  auto x = rng.normal<double, B>(Shape{rows, cols}, Chunks{cr, cc}, 10.0, 1.0);
  return (x + 1.0)(slice(slab.first, slab.second, 2), slice(none, none, 2)).sum().item(options);
}

} // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto arg = [&](int i, index_t fallback) {
    return argc > i ? static_cast<index_t>(std::atoll(argv[i])) : fallback;
  };
  const index_t rows = arg(1, 40000), cols = arg(2, 40000), cr = arg(3, 5000), cc = arg(4, 5000);
  const int threads = static_cast<int>(arg(5, 1)), runs = static_cast<int>(arg(6, 5));
  const std::string backend = argc > 7 ? argv[7] : "cpu";
  const std::string mode = argc > 8 ? argv[8] : "";
  const bool slabs = mode == "--slabs";
  const bool cluster = mode.empty();
  // --slabs: this rank's share of the row chunks, as the cluster's partition gives it.
  const index_t row_chunks = (rows + cr - 1) / cr;
  const std::pair<index_t, index_t> slab =
      slabs ? std::pair{std::min(rows, row_chunks * rank / size * cr),
                        std::min(rows, row_chunks * (rank + 1) / size * cr)}
            : std::pair<index_t, index_t>{0, rows};
  ComputeOptions options;
  options.num_threads = threads;
  if (cluster)
    options.cluster = mpi::cluster(MPI_COMM_WORLD);
  auto once = [&] {
    return backend == "cuda" ? seed_sum<Cuda>(rows, cols, cr, cc, options, slab)
                             : seed_sum<Cpu>(rows, cols, cr, cc, options, slab);
  };
  double sum = once(); // first call: code generation, pools
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    const double s = once();
    MPI_Barrier(MPI_COMM_WORLD);
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!slabs && std::bit_cast<std::uint64_t>(s) != std::bit_cast<std::uint64_t>(sum))
      fmt::print(stderr, "rank {}: run {} gave {:.17g}, first run {:.17g}\n", rank, r, s, sum);
  }
  std::sort(seconds.begin(), seconds.end());
  if (rank == 0)
    fmt::print("b9 ranks={} mode={} backend={} threads/rank={} shape={}x{} chunks={}x{} "
               "median={:.4f}s min={:.4f}s sum={:.17g} bits={:016x}\n",
               size,
               cluster ? "cluster"
               : slabs ? "slabs"
                       : "no-cluster",
               backend, threads, rows, cols, cr, cc, seconds[seconds.size() / 2], seconds.front(),
               sum, std::bit_cast<std::uint64_t>(sum));
  MPI_Finalize();
  return 0;
}
