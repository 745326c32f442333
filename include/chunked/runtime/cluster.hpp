// SPDX-License-Identifier: Apache-2.0
// Cluster: the processes of one SPMD program that share its computations (DESIGN 8.6).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace chunked {

/// The processes ("ranks") of one program run SPMD, for example under `mpirun`, that share each
/// computation given this handle in `ComputeOptions::cluster`. Users get one from
/// `chunked::mpi::cluster(comm)` (`<chunked/mpi.hpp>`, target `chunked::mpi`); the core library
/// knows only this interface, so it never needs MPI.
///
/// Every rank builds the same arrays and runs the same computations in the same order. Blocks
/// belong to ranks by a fixed partition (the one that spreads blocks over GPUs); each rank
/// computes its own, receives the blocks and reduction partials its tasks read from other ranks,
/// and combines partials in block order, so that results are bitwise the same on any number of
/// ranks. Before anything runs, the ranks compare a fingerprint of the plan: a rank that built a
/// different graph makes every rank raise ValueError. An exception on one rank makes every rank
/// raise the same kind of error.
///
/// What an implementation provides: its rank and size, byte messages between ranks and a few
/// collectives. The library calls it from the thread that runs the computation only, one call at
/// a time, and one computation at a time per cluster (`computation_mutex`). Messages are at
/// most `max_message` bytes (the library cuts larger buffers); messages between two ranks with
/// the same tag arrive in the order they were sent.
class Cluster {
public:
  virtual ~Cluster() = default;

  /// This process's number, 0 to size() - 1.
  virtual int rank() const = 0;
  /// Number of ranks.
  virtual int size() const = 0;
  /// This process's number among the ranks on its machine: a Cuda computation without
  /// `ComputeOptions::devices` uses GPU `local_rank() % devices`, one rank per GPU.
  virtual int local_rank() const = 0;
  /// What the ranks are, for messages ("MPI").
  virtual std::string name() const = 0;
  /// The largest tag a message may carry (at least 32767).
  virtual int max_tag() const = 0;
  /// Throws chunked::Error saying why when the calling thread may not communicate (a thread
  /// level that allows only the main thread, called from another).
  virtual void check_thread() const = 0;

  /// The largest message, in bytes.
  static constexpr std::size_t max_message = std::size_t{1} << 30;

  /// A send, receive or barrier in flight.
  class Operation {
  public:
    virtual ~Operation() = default;
    /// Whether it has finished (its memory may then be reused). Throws chunked::Error when it
    /// failed. An unfinished operation must not be destroyed.
    virtual bool test() = 0;
  };

  /// A message that has arrived and was matched to the caller: receive() it.
  struct Message {
    int from = 0;
    int tag = 0;
    std::size_t bytes = 0;
    std::shared_ptr<void> handle; ///< the implementation's
  };

  /// Starts sending `bytes` bytes at `data` to rank `to`. The send finishes only once the
  /// receiver has matched it (a synchronous send): when every rank's sends have finished and a
  /// barrier after them has, no message is left in flight.
  virtual std::unique_ptr<Operation> send(int to, int tag, const void* data, std::size_t bytes) = 0;
  /// The next message that has arrived from any rank, if any.
  virtual std::optional<Message> probe() = 0;
  /// Starts receiving a message that probe() returned into `data` (`message.bytes` bytes).
  virtual std::unique_ptr<Operation> receive(Message& message, void* data) = 0;
  /// Starts a barrier, finished once every rank has started it.
  virtual std::unique_ptr<Operation> barrier() = 0;

  /// Every rank's `bytes` bytes at `mine` (the same size on every rank), in rank order, into
  /// `all` (`size() * bytes` bytes). Blocking.
  virtual void allgather(const void* mine, std::size_t bytes, void* all) = 0;
  /// `bytes` bytes at `data` from rank `root` to every rank. Blocking.
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;

  /// Held for the length of each computation on this cluster, so that computations started on
  /// several threads of one rank do not interleave their messages.
  std::mutex& computation_mutex() { return computation_mutex_; }

private:
  std::mutex computation_mutex_;
};

} // namespace chunked
