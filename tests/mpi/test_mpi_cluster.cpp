// SPDX-License-Identifier: Apache-2.0
// chunked::mpi::cluster: the Cluster interface over MPI, run on 1 to 4 ranks.
#include <chunked/core/error.hpp>
#include <chunked/mpi.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using chunked::Cluster;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

/// Tests an operation until it finishes; fails the test (without hanging it) after a minute.
void finish(Cluster::Operation& operation) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!operation.test()) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "an operation did not finish";
    std::this_thread::yield();
  }
}

/// The byte at `index` of message `sequence` with tag `tag` from rank `from`: every byte of
/// every message of a test tells where it came from.
std::uint8_t pattern(int from, int tag, int sequence, std::size_t index) {
  return static_cast<std::uint8_t>(from * 71 + tag * 13 + sequence * 7 + index * 31);
}

std::vector<std::uint8_t> payload(int from, int tag, int sequence, std::size_t bytes) {
  std::vector<std::uint8_t> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i) {
    data[i] = pattern(from, tag, sequence, i);
  }
  return data;
}

struct Received {
  int from;
  int tag;
  std::vector<std::uint8_t> data;
};

/// Sends `messages` (tag, bytes) to rank `to`, in order, while receiving `expected` messages
/// from any rank: the progress loop a computation runs. Returns what arrived, in arrival order.
std::vector<Received> exchange(Cluster& cluster, int to,
                               const std::vector<std::pair<int, std::size_t>>& messages,
                               std::size_t expected) {
  std::vector<std::vector<std::uint8_t>> sent;
  std::vector<std::unique_ptr<Cluster::Operation>> operations;
  std::map<int, int> sequence; // per tag
  for (const auto& [tag, bytes] : messages) {
    sent.push_back(payload(cluster.rank(), tag, sequence[tag]++, bytes));
    operations.push_back(cluster.send(to, tag, sent.back().data(), bytes));
  }
  std::vector<Received> received;
  received.reserve(expected); // receives write into these buffers while the loop goes on
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  for (;;) {
    while (received.size() < expected) {
      std::optional<Cluster::Message> message = cluster.probe();
      if (!message) {
        break;
      }
      received.push_back({message->from, message->tag, std::vector<std::uint8_t>(message->bytes)});
      operations.push_back(cluster.receive(*message, received.back().data.data()));
    }
    operations.erase(std::remove_if(operations.begin(), operations.end(),
                                    [](const auto& operation) { return operation->test(); }),
                     operations.end());
    if (operations.empty() && received.size() == expected) {
      return received;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "the exchange did not finish: " << received.size() << " of " << expected
                    << " messages arrived, " << operations.size() << " operations unfinished";
      // The operations are unfinished: keep them (and their buffers) alive for good.
      for (auto& operation : operations) {
        (void)operation.release();
      }
      return received;
    }
    std::this_thread::yield();
  }
}

/// Whether a probe finds no message for a while (messages to oneself arrive at once).
bool nothing_arrives(Cluster& cluster) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  while (std::chrono::steady_clock::now() < until) {
    if (cluster.probe()) {
      return false;
    }
  }
  return true;
}

TEST(MpiCluster, KnowsItsRanksAndTheirMachines) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  EXPECT_EQ(cluster->rank(), world_rank());
  EXPECT_EQ(cluster->size(), world_size());
  EXPECT_EQ(cluster->name(), "MPI");
  EXPECT_GE(cluster->max_tag(), 32767);
  ASSERT_GE(cluster->local_rank(), 0);
  EXPECT_LE(cluster->local_rank(), cluster->rank());

  // On each machine the local ranks are 0, 1, ... in the order of the ranks.
  struct Where {
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int local_rank = 0;
  };
  Where mine;
  int length = 0;
  MPI_Get_processor_name(mine.host, &length);
  mine.local_rank = cluster->local_rank();
  std::vector<Where> all(static_cast<std::size_t>(cluster->size()));
  cluster->allgather(&mine, sizeof(Where), all.data());
  std::map<std::string, int> next_local_rank;
  for (const Where& where : all) {
    EXPECT_EQ(where.local_rank, next_local_rank[where.host]++) << "on " << where.host;
  }
}

TEST(MpiCluster, RanksAreThoseOfTheCommunicatorGiven) {
  // Even and odd world ranks apart: a cluster of each.
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &half);
  {
    const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(half);
    EXPECT_EQ(cluster->rank(), world_rank() / 2);
    EXPECT_EQ(cluster->size(), (world_size() + 1 - world_rank() % 2) / 2);
    int mine = world_rank();
    std::vector<int> all(static_cast<std::size_t>(cluster->size()));
    cluster->allgather(&mine, sizeof mine, all.data());
    for (std::size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ(all[i], static_cast<int>(2 * i) + world_rank() % 2);
    }
  }
  MPI_Comm_free(&half);
}

TEST(MpiCluster, MessagesOfTheProgramDoNotReachTheCluster) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  // A message of the program's own, to itself on the communicator the cluster was made from.
  int value = 42;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Isend(&value, 1, MPI_INT, world_rank(), 0, MPI_COMM_WORLD, &request);
  int arrived = 0;
  while (arrived == 0) {
    MPI_Iprobe(world_rank(), 0, MPI_COMM_WORLD, &arrived, MPI_STATUS_IGNORE);
  }
  EXPECT_TRUE(nothing_arrives(*cluster));
  int got = 0;
  MPI_Recv(&got, 1, MPI_INT, world_rank(), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  EXPECT_EQ(got, 42);
}

TEST(MpiCluster, RingExchangeKeepsTheOrderOfEachTag) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  const int rank = cluster->rank();
  const int size = cluster->size();
  // Tags interleaved, sizes from one byte to past the eager limits of shared memory and TCP.
  const std::vector<std::pair<int, std::size_t>> messages{
      {7, 1}, {9, 1000}, {7, 3 << 20}, {7, 17}, {9, 0}, {cluster->max_tag(), 64}, {7, 65536}};
  const std::vector<Received> received =
      exchange(*cluster, (rank + 1) % size, messages, messages.size());

  const int from = (rank + size - 1) % size;
  std::map<int, std::vector<const Received*>> by_tag;
  for (const Received& message : received) {
    EXPECT_EQ(message.from, from);
    by_tag[message.tag].push_back(&message);
  }
  std::map<int, int> sequence;
  std::map<int, std::size_t> index;
  for (const auto& [tag, bytes] : messages) {
    const int number = sequence[tag]++;
    const std::size_t at = index[tag]++;
    ASSERT_LT(at, by_tag[tag].size()) << "tag " << tag;
    const Received& message = *by_tag[tag][at];
    EXPECT_EQ(message.data, payload(from, tag, number, bytes))
        << "message " << number << " of tag " << tag << " (" << bytes << " bytes)";
  }
}

TEST(MpiCluster, EveryRankToEveryRank) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  const int size = cluster->size();
  // One message to each rank (oneself included), then the barrier that ends an exchange: after
  // it, nothing is left in flight.
  std::vector<std::vector<std::uint8_t>> sent;
  std::vector<std::unique_ptr<Cluster::Operation>> operations;
  for (int to = 0; to < size; ++to) {
    sent.push_back(payload(cluster->rank(), to, 0, 100 + static_cast<std::size_t>(to)));
    operations.push_back(cluster->send(to, to, sent.back().data(), sent.back().size()));
  }
  std::vector<Received> received;
  received.reserve(static_cast<std::size_t>(size));
  while (received.size() < static_cast<std::size_t>(size)) {
    if (std::optional<Cluster::Message> message = cluster->probe()) {
      EXPECT_EQ(message->tag, cluster->rank());
      received.push_back({message->from, message->tag, std::vector<std::uint8_t>(message->bytes)});
      operations.push_back(cluster->receive(*message, received.back().data.data()));
    }
  }
  for (auto& operation : operations) {
    finish(*operation);
  }
  std::unique_ptr<Cluster::Operation> barrier = cluster->barrier();
  finish(*barrier);
  EXPECT_TRUE(nothing_arrives(*cluster));
  std::vector<int> senders;
  for (const Received& message : received) {
    senders.push_back(message.from);
    EXPECT_EQ(message.data, payload(message.from, cluster->rank(), 0,
                                    100 + static_cast<std::size_t>(cluster->rank())));
  }
  std::sort(senders.begin(), senders.end());
  for (int i = 0; i < size; ++i) {
    EXPECT_EQ(senders[static_cast<std::size_t>(i)], i);
  }
}

TEST(MpiCluster, EmptyMessage) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  const int to = (cluster->rank() + 1) % cluster->size();
  std::unique_ptr<Cluster::Operation> send = cluster->send(to, 3, nullptr, 0);
  std::optional<Cluster::Message> message;
  while (!message) {
    message = cluster->probe();
  }
  EXPECT_EQ(message->bytes, 0u);
  EXPECT_EQ(message->tag, 3);
  EXPECT_EQ(message->from, (cluster->rank() + cluster->size() - 1) % cluster->size());
  std::unique_ptr<Cluster::Operation> receive = cluster->receive(*message, nullptr);
  finish(*receive);
  finish(*send);
}

TEST(MpiCluster, AMessageIsReceivedOnce) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  const int value = cluster->rank();
  std::unique_ptr<Cluster::Operation> send =
      cluster->send(cluster->rank(), 1, &value, sizeof value);
  std::optional<Cluster::Message> message;
  while (!message) {
    message = cluster->probe();
  }
  int got = -1;
  std::unique_ptr<Cluster::Operation> receive = cluster->receive(*message, &got);
  EXPECT_THROW(cluster->receive(*message, &got), chunked::Error);
  Cluster::Message made_up{.from = 0, .tag = 1, .bytes = 4, .handle = nullptr};
  EXPECT_THROW(cluster->receive(made_up, &got), chunked::Error);
  finish(*receive);
  finish(*send);
  EXPECT_EQ(got, cluster->rank());
}

TEST(MpiCluster, BarrierWaitsForEveryRank) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  // Rank 0 starts the barrier only once every other rank has seen its own unfinished.
  if (cluster->rank() == 0) {
    for (int from = 1; from < cluster->size(); ++from) {
      int seen_unfinished = 0;
      MPI_Recv(&seen_unfinished, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_EQ(seen_unfinished, 1);
    }
    std::unique_ptr<Cluster::Operation> barrier = cluster->barrier();
    finish(*barrier);
  } else {
    std::unique_ptr<Cluster::Operation> barrier = cluster->barrier();
    const int seen_unfinished = barrier->test() ? 0 : 1;
    MPI_Send(&seen_unfinished, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    finish(*barrier);
  }
}

TEST(MpiCluster, AllgatherPutsEveryRanksBytesInRankOrder) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  const auto size = static_cast<std::size_t>(cluster->size());
  for (const std::size_t bytes : {std::size_t{1}, std::size_t{3}, std::size_t{5} << 20}) {
    const std::vector<std::uint8_t> mine = payload(cluster->rank(), 0, 0, bytes);
    std::vector<std::uint8_t> all(size * bytes);
    cluster->allgather(mine.data(), bytes, all.data());
    for (std::size_t r = 0; r < size; ++r) {
      const std::vector<std::uint8_t> expected = payload(static_cast<int>(r), 0, 0, bytes);
      EXPECT_TRUE(std::equal(expected.begin(), expected.end(),
                             all.begin() + static_cast<std::ptrdiff_t>(r * bytes)))
          << "rank " << r << "'s " << bytes << " bytes";
    }
  }
  cluster->allgather(nullptr, 0, nullptr); // nothing to gather, on every rank alike
}

TEST(MpiCluster, BroadcastFromEveryRoot) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  const std::size_t bytes = (1 << 20) + 3;
  for (int root = 0; root < cluster->size(); ++root) {
    std::vector<std::uint8_t> data =
        cluster->rank() == root ? payload(root, 1, 0, bytes) : std::vector<std::uint8_t>(bytes, 0);
    cluster->broadcast(data.data(), bytes, root);
    EXPECT_EQ(data, payload(root, 1, 0, bytes)) << "from root " << root;
  }
  cluster->broadcast(nullptr, 0, 0);
}

TEST(MpiCluster, MessagesLargerThanTheLimitAreRefused) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  // The size is checked before the data is read: no such buffer exists.
  EXPECT_THROW(cluster->send(0, 0, nullptr, Cluster::max_message + 1), chunked::Error);
  EXPECT_THROW(cluster->send(0, 0, nullptr, std::size_t{1} << 40), chunked::Error);
  EXPECT_TRUE(nothing_arrives(*cluster));
}

TEST(MpiCluster, FailingCallsThrowChunkedErrorsNamingTheCall) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  const int value = 0;
  try {
    (void)cluster->send(cluster->size(), 0, &value, sizeof value); // no such rank
    ADD_FAILURE() << "a send to rank size() did not throw";
  } catch (const chunked::Error& error) {
    EXPECT_NE(std::string(error.what()).find("MPI_Issend"), std::string::npos) << error.what();
  }
  EXPECT_THROW((void)cluster->send(0, -1, &value, sizeof value), chunked::Error); // negative tag
  // The cluster is still usable.
  std::unique_ptr<Cluster::Operation> barrier = cluster->barrier();
  finish(*barrier);
}

TEST(MpiCluster, CheckThreadFollowsTheThreadLevel) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  EXPECT_NO_THROW(cluster->check_thread());
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  bool threw = false;
  std::string message;
  std::thread other([&] {
    try {
      cluster->check_thread();
    } catch (const chunked::Error& error) {
      threw = true;
      message = error.what();
    }
  });
  other.join();
  // tests/mpi/mpi_main.cpp asks for MPI_THREAD_FUNNELED; an MPI may give more.
  EXPECT_EQ(threw, level < MPI_THREAD_SERIALIZED) << message;
  if (threw) {
    EXPECT_NE(message.find("MPI_THREAD_"), std::string::npos) << message;
  }
}

TEST(MpiCluster, IsMadeOnAThreadThatMayCallMpi) {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  bool threw = false;
  std::thread other([&] {
    try {
      (void)chunked::mpi::cluster(MPI_COMM_WORLD); // on every rank alike: collective if it works
    } catch (const chunked::Error&) {
      threw = true;
    }
  });
  other.join();
  EXPECT_EQ(threw, level < MPI_THREAD_SERIALIZED);
}

TEST(MpiCluster, NeedsACommunicator) {
  EXPECT_THROW(chunked::mpi::cluster(MPI_COMM_NULL), chunked::Error);
}

TEST(MpiCluster, AnAbandonedSendNeitherThrowsNorHangs) {
  const std::shared_ptr<Cluster> cluster = chunked::mpi::cluster(MPI_COMM_WORLD);
  // Cluster forbids it; the destructor still must not hang on a send nobody receives (to
  // oneself, so that no other rank is involved).
  const std::vector<std::uint8_t> data(256, 1);
  const auto started = std::chrono::steady_clock::now();
  EXPECT_NO_THROW(cluster->send(cluster->rank(), 5, data.data(), data.size()).reset());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  // Cancelled, or left to MPI (Open MPI does not cancel sends): then it is still there.
  if (std::optional<Cluster::Message> message = cluster->probe()) {
    std::vector<std::uint8_t> got(message->bytes);
    std::unique_ptr<Cluster::Operation> receive = cluster->receive(*message, got.data());
    finish(*receive);
    EXPECT_EQ(got, data);
  }
  // The cluster is still usable.
  std::unique_ptr<Cluster::Operation> barrier = cluster->barrier();
  finish(*barrier);
}

} // namespace
