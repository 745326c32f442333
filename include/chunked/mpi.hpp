// SPDX-License-Identifier: Apache-2.0
// chunked::mpi::cluster: the ranks of an MPI communicator as a Cluster (target chunked::mpi).
#pragma once

#include <chunked/runtime/cluster.hpp>

#include <mpi.h>

#include <memory>

namespace chunked::mpi {

/// The ranks of `comm` as a Cluster, for `ComputeOptions::cluster`: every rank of `comm` then
/// runs its share of each computation given the handle (DESIGN 8.6). Link the target
/// `chunked::mpi` (`find_package(chunked COMPONENTS mpi)`); the core library never needs MPI.
///
/// @code
/// #include <chunked/chunked.hpp>
/// #include <chunked/mpi.hpp>
///
/// int main(int argc, char** argv) {
///   MPI_Init(&argc, &argv);
///   {
///     chunked::ComputeOptions opts;
///     opts.cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
///     auto x = chunked::ones<double>(chunked::Shape{4096, 4096}, chunked::Chunks{1024, 1024});
///     double s = (x + 1.0).sum().item(opts);   // on every rank, each computing its own blocks
///   }                                          // the handle goes before MPI_Finalize
///   MPI_Finalize();
/// }
/// @endcode
///
/// - MPI must be initialized (`MPI_Init` or `MPI_Init_thread`) and not finalized, else this
///   throws chunked::Error. Every rank of `comm` must call it, as it is collective over `comm`.
/// - The handle works on a duplicate of `comm` (`MPI_Comm_dup`), so the library's messages never
///   mix with the program's, whatever tags either uses. The duplicate returns errors instead of
///   aborting (`MPI_ERRORS_RETURN`): a failing MPI call surfaces as a chunked::Error naming the
///   call and MPI's description of the error.
/// - The last copy of the handle frees the duplicate (`MPI_Comm_free`), so destroy it on every
///   rank, before `MPI_Finalize`; a handle that outlives MPI (a static one) frees nothing.
/// - `local_rank()` is the rank among the ranks on the same machine
///   (`MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`): a Cuda computation without
///   `ComputeOptions::devices` uses GPU `local_rank() % devices`.
/// - Threads: the library calls MPI only from the thread that runs a computation (the caller's
///   for `compute()`, the job's own for `compute_async()`). With `MPI_THREAD_SINGLE` or
///   `MPI_THREAD_FUNNELED` that must be the thread that initialized MPI, so only synchronous
///   computations from it work; on any other thread they throw chunked::Error (`check_thread()`,
///   by `MPI_Is_thread_main`). With `MPI_THREAD_SERIALIZED` or `MPI_THREAD_MULTIPLE` any thread
///   may run them, one at a time per handle (`Cluster::computation_mutex()`); under
///   `MPI_THREAD_SERIALIZED` the program must not call MPI from another thread meanwhile.
std::shared_ptr<Cluster> cluster(MPI_Comm comm);

} // namespace chunked::mpi
