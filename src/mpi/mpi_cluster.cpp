// SPDX-License-Identifier: Apache-2.0
// MpiCluster: chunked::Cluster over a duplicate of an MPI communicator (include/chunked/mpi.hpp).
#include <chunked/core/error.hpp>
#include <chunked/mpi.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace chunked::mpi {

namespace {

// MPI counts are ints; keeping every message within max_message keeps each count in range.
static_assert(Cluster::max_message <= static_cast<std::size_t>(INT_MAX));

/// Turns a failing MPI return code (the communicator returns errors, MPI_ERRORS_RETURN) into a
/// chunked::Error naming the call and saying what MPI says went wrong.
void check(int code, std::string_view call) {
  if (code == MPI_SUCCESS) {
    return;
  }
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    throw Error(fmt::format("MPI: {} failed with error code {}", call, code));
  }
  throw Error(fmt::format("MPI: {} failed: {}", call, std::string_view(text, length)));
}

bool mpi_finalized() noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  return finalized != 0;
}

int thread_level() {
  int level = MPI_THREAD_SINGLE;
  check(MPI_Query_thread(&level), "MPI_Query_thread");
  return level;
}

/// Whether MPI lets the calling thread communicate, given the level MPI was initialized with.
bool may_call_mpi_here(int level) {
  if (level >= MPI_THREAD_SERIALIZED) {
    return true;
  }
  int is_main = 0;
  check(MPI_Is_thread_main(&is_main), "MPI_Is_thread_main");
  return is_main != 0;
}

/// Why the calling thread may not call MPI, or "" when it may.
std::string thread_refusal(int level) {
  if (may_call_mpi_here(level)) {
    return {};
  }
  return fmt::format("MPI was initialized with {}, which lets only the thread that initialized it "
                     "call MPI: make the cluster and run its computations (synchronously) on that "
                     "thread, or initialize MPI with MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE",
                     level == MPI_THREAD_SINGLE ? "MPI_THREAD_SINGLE" : "MPI_THREAD_FUNNELED");
}

int count_of(std::size_t bytes) { return static_cast<int>(bytes); }

/// The library's own communicator, freed with its owner. A handle destroyed after MPI_Finalize
/// (a static one) frees nothing: MPI may not be called then, and finalizing freed it anyway.
class Communicator {
public:
  Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  ~Communicator() {
    if (comm_ == MPI_COMM_NULL || mpi_finalized()) {
      return;
    }
    // Under a thread level that allows only the main thread, freeing from another one would be
    // erroneous; leaking one communicator is the lesser harm. Errors are ignored: a destructor
    // has no one to tell.
    try {
      if (!may_call_mpi_here(thread_level())) {
        return;
      }
    } catch (...) {
      return;
    }
    MPI_Comm_free(&comm_);
  }

  MPI_Comm get() const { return comm_; }
  MPI_Comm* out() { return &comm_; }

private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

/// A datatype that frees itself: `bytes` bytes whose extent is `extent`, so that consecutive
/// elements of it lie `extent` bytes apart.
class SpacedBytes {
public:
  SpacedBytes(std::size_t bytes, std::size_t extent) {
    MPI_Datatype contiguous = MPI_DATATYPE_NULL;
    check(MPI_Type_contiguous(count_of(bytes), MPI_BYTE, &contiguous), "MPI_Type_contiguous");
    const int resized =
        MPI_Type_create_resized(contiguous, 0, static_cast<MPI_Aint>(extent), &type_);
    MPI_Type_free(&contiguous);
    check(resized, "MPI_Type_create_resized");
    check(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  SpacedBytes(const SpacedBytes&) = delete;
  SpacedBytes& operator=(const SpacedBytes&) = delete;
  ~SpacedBytes() {
    if (type_ != MPI_DATATYPE_NULL) {
      MPI_Type_free(&type_);
    }
  }

  MPI_Datatype get() const { return type_; }

private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// A message that MPI_Improbe matched to this process: MPI holds it for MPI_Imrecv alone.
struct MatchedMessage {
  MPI_Message message = MPI_MESSAGE_NULL;
  int count = 0;
};

/// How long the destructor of an unfinished operation waits for it before giving it up.
constexpr std::chrono::seconds abandon_wait{1};

/// One nonblocking send, receive or barrier.
class MpiOperation final : public Cluster::Operation {
public:
  enum class Kind { point_to_point, collective };

  MpiOperation(MPI_Request request, Kind kind, std::string_view call)
      : request_(request), kind_(kind), call_(call) {}
  MpiOperation(const MpiOperation&) = delete;
  MpiOperation& operator=(const MpiOperation&) = delete;
  ~MpiOperation() override { abandon(); }

  bool test() override {
    if (request_ == MPI_REQUEST_NULL) {
      return true;
    }
    int done = 0;
    // Called in every turn of a progress loop: the call's name is made only for an error.
    const int code = MPI_Test(&request_, &done, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) {
      check(code, fmt::format("MPI_Test of {}", call_));
    }
    return done != 0;
  }

private:
  /// Cluster forbids destroying an unfinished operation; should it happen all the same (a bug
  /// on an error path), neither throw nor hang. A send or receive is cancelled, after which the
  /// standard has MPI_Wait return without the peer; but Open MPI does not cancel sends, and a
  /// nonblocking collective cannot be cancelled at all, so rather than MPI_Wait, which could
  /// wait forever for a rank that will never come, wait a little. A point-to-point request left
  /// unfinished is then freed (MPI completes it on its own, reading or writing its buffer as it
  /// would have); a barrier is left to MPI, as freeing a collective's request is erroneous.
  void abandon() noexcept {
    if (request_ == MPI_REQUEST_NULL || mpi_finalized()) {
      return;
    }
    if (kind_ == Kind::point_to_point) {
      MPI_Cancel(&request_);
    }
    const auto deadline = std::chrono::steady_clock::now() + abandon_wait;
    int done = 0;
    while (MPI_Test(&request_, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    if (done == 0 && kind_ == Kind::point_to_point && request_ != MPI_REQUEST_NULL) {
      MPI_Request_free(&request_);
    }
  }

  MPI_Request request_;
  Kind kind_;
  std::string_view call_; ///< the call that started it (a literal), for messages
};

class MpiCluster final : public Cluster {
public:
  explicit MpiCluster(MPI_Comm comm);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::string name() const override { return "MPI"; }
  int max_tag() const override { return max_tag_; }
  void check_thread() const override;

  std::unique_ptr<Operation> send(int to, int tag, const void* data, std::size_t bytes) override;
  std::optional<Message> probe() override;
  std::unique_ptr<Operation> receive(Message& message, void* data) override;
  std::unique_ptr<Operation> barrier() override;

  void allgather(const void* mine, std::size_t bytes, void* all) override;
  void broadcast(void* data, std::size_t bytes, int root) override;

private:
  MPI_Comm comm() const { return comm_.get(); }

  Communicator comm_;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int max_tag_ = 32767;
  int thread_level_ = MPI_THREAD_SINGLE;
};

MpiCluster::MpiCluster(MPI_Comm comm) {
  // Errors of MPI_Comm_dup itself go to `comm`'s handler, which is the program's to choose.
  check(MPI_Comm_dup(comm, comm_.out()), "MPI_Comm_dup");
  check(MPI_Comm_set_errhandler(comm_.get(), MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_rank(comm_.get(), &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_.get(), &size_), "MPI_Comm_size");
  thread_level_ = thread_level();

  // The ranks that share this machine's memory are the ones on this machine; ordered by rank.
  Communicator node;
  check(MPI_Comm_split_type(comm_.get(), MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, node.out()),
        "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
  check(MPI_Comm_rank(node.get(), &local_rank_), "MPI_Comm_rank");

  // MPI_TAG_UB is an attribute of MPI_COMM_WORLD, the same on every communicator.
  void* tag_ub = nullptr;
  int found = 0;
  check(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found), "MPI_Comm_get_attr");
  if (found != 0 && tag_ub != nullptr) {
    max_tag_ = *static_cast<int*>(tag_ub);
  }
}

void MpiCluster::check_thread() const {
  if (mpi_finalized()) {
    throw Error("MPI: MPI_Finalize was called; the cluster can no longer communicate");
  }
  if (const std::string why = thread_refusal(thread_level_); !why.empty()) {
    throw Error("MPI: " + why);
  }
}

std::unique_ptr<Cluster::Operation> MpiCluster::send(int to, int tag, const void* data,
                                                     std::size_t bytes) {
  // Checked before anything reads `data`.
  if (bytes > max_message) {
    throw Error(fmt::format("MPI: a message of {} bytes to rank {}; at most Cluster::max_message "
                            "({}) bytes go in one message",
                            bytes, to, max_message));
  }
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Issend(data, count_of(bytes), MPI_BYTE, to, tag, comm(), &request), "MPI_Issend");
  return std::make_unique<MpiOperation>(request, MpiOperation::Kind::point_to_point, "MPI_Issend");
}

std::optional<Cluster::Message> MpiCluster::probe() {
  int found = 0;
  MPI_Message message = MPI_MESSAGE_NULL;
  MPI_Status status;
  check(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm(), &found, &message, &status), "MPI_Improbe");
  if (found == 0) {
    return std::nullopt;
  }
  int count = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
  // A matched probe, unlike MPI_Iprobe, keeps the message from every other receive, so the
  // receive that follows gets exactly this one.
  return Message{.from = status.MPI_SOURCE,
                 .tag = status.MPI_TAG,
                 .bytes = static_cast<std::size_t>(count),
                 .handle = std::make_shared<MatchedMessage>(MatchedMessage{message, count})};
}

std::unique_ptr<Cluster::Operation> MpiCluster::receive(Message& message, void* data) {
  auto* matched = static_cast<MatchedMessage*>(message.handle.get());
  if (matched == nullptr || matched->message == MPI_MESSAGE_NULL) {
    throw Error("MPI: receive() of a message that probe() did not return, or received already");
  }
  MPI_Request request = MPI_REQUEST_NULL;
  // MPI_Imrecv sets matched->message to MPI_MESSAGE_NULL: a second receive is caught above.
  check(MPI_Imrecv(data, matched->count, MPI_BYTE, &matched->message, &request), "MPI_Imrecv");
  return std::make_unique<MpiOperation>(request, MpiOperation::Kind::point_to_point, "MPI_Imrecv");
}

std::unique_ptr<Cluster::Operation> MpiCluster::barrier() {
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Ibarrier(comm(), &request), "MPI_Ibarrier");
  return std::make_unique<MpiOperation>(request, MpiOperation::Kind::collective, "MPI_Ibarrier");
}

void MpiCluster::allgather(const void* mine, std::size_t bytes, void* all) {
  // Counts are ints, and implementations also total a collective's bytes in ints; so the bytes
  // go in pieces whose total over the ranks stays within INT_MAX. Each rank's piece lands in its
  // own share of `all` through a datatype whose extent is a whole share.
  const std::size_t piece = std::max<std::size_t>(1, INT_MAX / static_cast<std::size_t>(size_));
  for (std::size_t offset = 0; offset < bytes; offset += piece) {
    const std::size_t length = std::min(piece, bytes - offset);
    const SpacedBytes share(length, bytes);
    check(MPI_Allgather(static_cast<const char*>(mine) + offset, count_of(length), MPI_BYTE,
                        static_cast<char*>(all) + offset, 1, share.get(), comm()),
          "MPI_Allgather");
  }
}

void MpiCluster::broadcast(void* data, std::size_t bytes, int root) {
  for (std::size_t offset = 0; offset < bytes; offset += max_message) {
    const std::size_t length = std::min(max_message, bytes - offset);
    check(MPI_Bcast(static_cast<char*>(data) + offset, count_of(length), MPI_BYTE, root, comm()),
          "MPI_Bcast");
  }
}

} // namespace

std::shared_ptr<Cluster> cluster(MPI_Comm comm) {
  int initialized = 0;
  check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized == 0) {
    throw Error("chunked::mpi::cluster: MPI is not initialized; call MPI_Init or MPI_Init_thread "
                "first");
  }
  if (mpi_finalized()) {
    throw Error("chunked::mpi::cluster: MPI_Finalize was already called");
  }
  if (const std::string why = thread_refusal(thread_level()); !why.empty()) {
    throw Error("chunked::mpi::cluster: " + why);
  }
  // Checked here: MPI would report these to MPI_COMM_WORLD's handler, which aborts by default.
  if (comm == MPI_COMM_NULL) {
    throw Error("chunked::mpi::cluster: the communicator is MPI_COMM_NULL");
  }
  int inter = 0;
  check(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter != 0) {
    throw Error("chunked::mpi::cluster: an intercommunicator; the ranks of a cluster are one "
                "group (an intracommunicator)");
  }
  return std::make_shared<MpiCluster>(comm);
}

} // namespace chunked::mpi
