// SPDX-License-Identifier: Apache-2.0
// Messages: buffers of any size sent between the ranks of a cluster, and received as they come.
#pragma once

#include <chunked/runtime/cluster.hpp>

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace chunked::runtime {

/// Sends and receives buffers of any size between ranks over a Cluster, whose messages are at
/// most Cluster::max_message bytes: a buffer goes as its pieces, in order, under one tag (the
/// cluster keeps messages of one tag between two ranks in order), and an empty buffer as one
/// empty message. Every call comes from the one thread that drives the cluster.
class Messages {
public:
  /// Where a buffer that starts arriving goes: `data` of `bytes` bytes (the size the receiver
  /// expects; a different size is an Error), kept alive by `keep` until it is complete.
  struct Landing {
    void* data = nullptr;
    std::size_t bytes = 0;
    std::shared_ptr<void> keep;
  };
  /// Called when the first piece of a buffer from `from` with `tag` arrives (of `first` bytes).
  using Land = std::function<Landing(int from, int tag, std::size_t first)>;
  /// Called once a buffer has arrived whole.
  using Arrived = std::function<void(int from, int tag, Landing& landing)>;

  Messages(Cluster& cluster, Land land, Arrived arrived)
      : cluster_(cluster), land_(std::move(land)), arrived_(std::move(arrived)) {}
  /// Waits for the operations still in flight (they must not be dropped unfinished).
  ~Messages();
  Messages(const Messages&) = delete;
  Messages& operator=(const Messages&) = delete;

  /// Starts sending `bytes` bytes at `data` to rank `to` under `tag`; `keep` holds the memory
  /// until the last piece is sent.
  void send(int to, int tag, const void* data, std::size_t bytes,
            const std::shared_ptr<const void>& keep);

  /// Moves messages along: receives what has arrived, finishes sends. Returns whether anything
  /// happened (callers back off when nothing does).
  bool poll();

  /// This rank expects no more messages in this phase: poll() stops taking new ones, so that a
  /// message another rank sends once it has moved on to the next phase (it may, as soon as the
  /// barrier that ends this one completes there) waits for the next phase's Messages.
  void close() { closed_ = true; }

  /// Whether every send started so far has been matched by its receiver.
  bool sends_done() const { return sends_.empty(); }
  /// Whether no buffer is partly received.
  bool receives_done() const { return incoming_.empty() && receiving_.empty(); }

private:
  struct Send {
    std::unique_ptr<Cluster::Operation> op;
    std::shared_ptr<const void> keep;
  };
  struct Incoming {
    Landing landing;
    std::size_t received = 0; ///< bytes of the pieces whose receive has started
    int pending = 0;          ///< pieces being received
  };
  struct Receive {
    std::unique_ptr<Cluster::Operation> op;
    std::pair<int, int> key; ///< (from, tag)
  };

  bool receive_arrived();
  bool finish_receives();

  Cluster& cluster_;
  Land land_;
  Arrived arrived_;
  std::deque<Send> sends_;
  std::map<std::pair<int, int>, Incoming> incoming_;
  std::vector<Receive> receiving_;
  bool closed_ = false;
};

/// Drives `messages` (and `step`, called each round) until `done()` holds, backing off when
/// nothing happens so that a rank waiting for others does not take a core from its workers.
void drive(Messages& messages, const std::function<bool()>& done,
           const std::function<bool()>& step = {});

} // namespace chunked::runtime
