// SPDX-License-Identifier: Apache-2.0
// A consumer of chunked::mpi: a computation shared by the ranks of MPI_COMM_WORLD, whose value
// every rank checks.
#include <chunked/chunked.hpp>
#include <chunked/mpi.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    chunked::ComputeOptions opts;
    opts.cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
    const double sum =
        chunked::ones<double>(chunked::Shape{4, 5}, chunked::Chunks{2, 2}).sum().item(opts);
    if (sum != 20.0) {
      std::fprintf(stderr, "rank %d of %d: ones(4x5).sum() gave %g, expected 20\n",
                   opts.cluster->rank(), opts.cluster->size(), sum);
      status = 1;
    } else if (opts.cluster->rank() == 0) {
      std::printf("chunked::mpi consumer: ok on %d rank(s)\n", opts.cluster->size());
    }
  } // the cluster's communicator is freed before MPI_Finalize
  MPI_Finalize();
  return status;
}
