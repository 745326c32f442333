// SPDX-License-Identifier: Apache-2.0
// main() of the MPI tests: GoogleTest on every rank, one report (rank 0's), one verdict for all.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <ctime>

namespace {

/// On ranks other than 0, which print no report: each failure, marked with its rank, so that a
/// failure seen by one rank only is not lost.
class RankFailurePrinter final : public testing::EmptyTestEventListener {
public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}

  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) {
      return;
    }
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 result.file_name() != nullptr ? result.file_name() : "(unknown file)",
                 result.line_number(), result.message());
    std::fflush(stderr);
  }

  void OnTestEnd(const testing::TestInfo& info) override {
    if (info.result()->Failed()) {
      std::fprintf(stderr, "[rank %d] FAILED %s.%s\n", rank_, info.test_suite_name(), info.name());
      std::fflush(stderr);
    }
  }

private:
  int rank_;
};

/// Every rank must run the same cases in the same order, or their collectives would not match:
/// with --gtest_shuffle each would draw its own seed from the clock, so all take rank 0's.
void agree_on_random_seed(int rank) {
  int seed = GTEST_FLAG_GET(random_seed);
  if (rank == 0 && seed == 0) {
    seed = static_cast<int>(std::time(nullptr) % 99999) + 1; // GoogleTest's own range, 1..99999
  }
  MPI_Bcast(&seed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  GTEST_FLAG_SET(random_seed, seed);
}

} // namespace

int main(int argc, char** argv) {
  // FUNNELED: as a program that computes from its main thread only; the tests of
  // Cluster::check_thread rely on it.
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  testing::InitGoogleTest(&argc, argv);
  agree_on_random_seed(rank);
  if (rank != 0) {
    testing::TestEventListeners& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank)); // owned by GoogleTest from here
  }

  const int failed_here = RUN_ALL_TESTS() != 0 ? 1 : 0;
  // The same verdict on every rank: mpirun reports a job by its ranks' exit codes, and a rank
  // that passed must not hide another's failure, nor the reverse.
  int failed_anywhere = failed_here;
  MPI_Allreduce(&failed_here, &failed_anywhere, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && failed_anywhere != 0 && failed_here == 0) {
    std::fflush(stdout); // after the report
    std::fprintf(stderr, "[rank 0] passed, but another rank failed (see its [rank N] lines)\n");
  }
  MPI_Finalize();
  return failed_anywhere;
}
