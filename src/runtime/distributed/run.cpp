// SPDX-License-Identifier: Apache-2.0
// run_distributed (run.hpp): roles of tasks on this rank, the worker run on a thread of its own,
// and the calling thread driving the cluster until every rank is done.
#include "runtime/distributed/run.hpp"
#include "runtime/backend.hpp"
#include "runtime/distributed/messages.hpp"
#include "runtime/distributed/rank_error.hpp"
#include "runtime/external_gate.hpp"
#include "runtime/job_control.hpp"
#include "runtime/trace.hpp"

#include <chunked/core/error.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace chunked::runtime {

namespace {

/// What this rank does with each task.
enum class Role : std::uint8_t {
  here,    ///< computes it
  receive, ///< another rank computes it and sends its output, which a task here reads
  skip,    ///< another rank's, not read here
};

struct Roles {
  std::vector<Role> role;
  std::vector<std::vector<int>> send_to; ///< tasks here: the ranks that read the output
  std::vector<std::uint8_t> sent_only;   ///< tasks here read only by other ranks
  LocalTasks local;
};

/// The roles of this rank's tasks and the dependencies it keeps: between its own tasks, and on
/// the outputs it receives (dependencies that only order another rank's work are dropped).
Roles assign_roles(const plan::Plan& plan, const Distribution& d) {
  const std::size_t n = plan.tasks.size();
  const auto& owner = d.owners();
  Roles r;
  r.role.assign(n, Role::skip);
  r.send_to.resize(n);
  r.sent_only.assign(n, 0);
  r.local.deps.resize(n);
  r.local.here.assign(n, 0);
  for (std::size_t t = 0; t < n; ++t)
    if (d.here(static_cast<plan::TaskId>(t))) {
      r.role[t] = Role::here;
      r.local.here[t] = 1;
    }
  std::vector<plan::TaskId> reads;
  std::vector<std::uint32_t> local_readers(n, 0);
  for (std::size_t c = 0; c < n; ++c) {
    reads.clear();
    for_each_input(plan, c, [&](const plan::InputRef& ref) {
      if (ref.kind == plan::InputRef::Kind::task)
        reads.push_back(ref.task);
    });
    for (plan::TaskId t : reads) {
      if (owner[t] == owner[c])
        continue;
      if (r.role[c] == Role::here)
        r.role[t] = Role::receive;
      else if (r.role[t] == Role::here) {
        auto& to = r.send_to[t];
        if (std::find(to.begin(), to.end(), owner[c]) == to.end())
          to.push_back(owner[c]);
      }
    }
    if (r.role[c] != Role::here)
      continue;
    for (plan::TaskId t : plan.deps[c]) {
      const bool kept =
          r.role[t] == Role::here || std::find(reads.begin(), reads.end(), t) != reads.end();
      if (kept) {
        r.local.deps[c].push_back(t);
        ++local_readers[t];
      }
    }
  }
  for (std::size_t t = 0; t < n; ++t)
    r.sent_only[t] = r.role[t] == Role::here && !r.send_to[t].empty() && local_readers[t] == 0;
  return r;
}

/// Outputs that workers hand over for sending, and outputs that arrived for tasks here.
class Mailboxes {
public:
  struct Outgoing {
    plan::TaskId task;
    std::shared_ptr<const Buffer> buffer;
  };
  void post(plan::TaskId task, std::shared_ptr<const Buffer> buffer) {
    std::lock_guard lock(mutex_);
    outbox_.push_back({task, std::move(buffer)});
  }
  std::vector<Outgoing> take_outgoing() {
    std::lock_guard lock(mutex_);
    return std::exchange(outbox_, {});
  }
  void deliver(plan::TaskId task, std::shared_ptr<Buffer> buffer) {
    std::lock_guard lock(mutex_);
    inbox_[task] = std::move(buffer);
  }
  std::shared_ptr<Buffer> take_arrived(plan::TaskId task) {
    std::lock_guard lock(mutex_);
    auto it = inbox_.find(task);
    if (it == inbox_.end())
      throw Error("distributed run: the output of task " + std::to_string(task) +
                  " was expected from another rank but has not arrived");
    auto buffer = std::move(it->second);
    inbox_.erase(it);
    return buffer;
  }

private:
  std::mutex mutex_;
  std::vector<Outgoing> outbox_;
  std::map<plan::TaskId, std::shared_ptr<Buffer>> inbox_;
};

/// The executor of this rank's part: its own tasks run on the backend and hand their outputs to
/// the mailbox when other ranks read them; received tasks adopt what arrived; the rest do
/// nothing.
class RankTasks final : public TaskExecutor {
public:
  RankTasks(const Roles& roles, PlanExecutor& exec, TaskExecutor& tasks, Mailboxes& mail)
      : roles_(roles), exec_(exec), tasks_(tasks), mail_(mail) {}

  std::uint64_t run(TaskId id, int worker) override {
    switch (roles_.role[id]) {
    case Role::here: {
      const std::uint64_t bytes = tasks_.run(id, worker);
      if (!roles_.send_to[id].empty()) {
        mail_.post(id, exec_.host_output(id, worker));
        if (roles_.sent_only[id] != 0)
          tasks_.release(id); // no task here reads it: the scheduler would never release it
      }
      return bytes;
    }
    case Role::receive:
      exec_.adopt_output(id, mail_.take_arrived(id));
      return 0;
    case Role::skip:
      return 0;
    }
    return 0;
  }
  void release(TaskId id) override { tasks_.release(id); }

private:
  const Roles& roles_;
  PlanExecutor& exec_;
  TaskExecutor& tasks_;
  Mailboxes& mail_;
};

/// The run of the graph on a thread of its own (the calling thread drives the cluster), in the
/// caller's trace and job.
class WorkerRun {
public:
  WorkerRun(const TaskGraph& graph, TaskExecutor& tasks, int workers, const ComputeOptions& options,
            ExternalGate& gate)
      : trace_(current_trace()), job_(current_job()) {
    thread_ = std::thread([this, &graph, &tasks, workers, &options, &gate] {
      const TraceScope traced(trace_, 0);
      const JobScope in_job(job_);
      try {
        run_graph(graph, tasks, workers, options, &gate);
      } catch (...) {
        error_ = std::current_exception();
      }
      done_.store(true, std::memory_order_release);
    });
  }
  /// A run that failed before it started, with `error`.
  explicit WorkerRun(std::exception_ptr error)
      : trace_(nullptr), job_(nullptr), error_(std::move(error)) {
    done_.store(true);
  }
  ~WorkerRun() {
    if (thread_.joinable())
      thread_.join();
  }
  WorkerRun(const WorkerRun&) = delete;
  WorkerRun& operator=(const WorkerRun&) = delete;

  bool done() const { return done_.load(std::memory_order_acquire); }
  /// After done(): the run's error, or null.
  std::exception_ptr join() {
    if (thread_.joinable())
      thread_.join();
    return error_;
  }

private:
  Trace* trace_;
  JobControl* job_;
  std::exception_ptr error_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

/// The failures every rank learns of before it leaves: its own and those other ranks sent.
struct Failures {
  std::exception_ptr own;            ///< this rank's, when it failed first-hand
  std::map<int, RankError> of_ranks; ///< the others', by rank
  std::exception_ptr stop;           ///< what this rank's run was stopped with, if anything
};

[[noreturn]] void raise(const Failures& f, const Cluster& cluster) {
  if (f.own)
    std::rethrow_exception(f.own);
  const auto& [rank, error] = *f.of_ranks.begin();
  error.raise(cluster.name(), rank);
}

/// The calling thread's part of a run over the cluster: sends what the workers post, receives
/// what other ranks send, tells them when this rank fails, and returns once every rank is done;
/// then raises the failure of any rank.
void drive_rank(const plan::Plan& plan, const Distribution& distribution, const Roles& roles,
                ExternalGate& gate, Mailboxes& mail, const std::function<WorkerRun&()>& start) {
  Cluster& cluster = distribution.cluster();
  const int abort_tag = cluster.max_tag();
  Failures failures;
  std::string abort_text; // what this rank sends the others when it fails

  auto land = [&](int from, int tag, std::size_t first) {
    Messages::Landing landing;
    if (tag == abort_tag) {
      auto text = std::make_shared<std::string>(first, '\0');
      landing.data = text->data();
      landing.bytes = first;
      landing.keep = text;
      return landing;
    }
    const auto task = static_cast<plan::TaskId>(tag);
    if (task >= plan.tasks.size() || roles.role[task] != Role::receive)
      throw Error(cluster.name() + " rank " + std::to_string(cluster.rank()) + ": rank " +
                  std::to_string(from) + " sent the output of task " + std::to_string(tag) +
                  ", which no task of this rank reads");
    auto buffer = distribution.backend().host_buffer(task_output_bytes(plan, task), {});
    landing.data = buffer->data();
    landing.bytes = buffer->bytes();
    landing.keep = buffer;
    return landing;
  };
  auto arrived = [&](int from, int tag, Messages::Landing& landing) {
    if (tag == abort_tag) {
      const auto& text = *std::static_pointer_cast<std::string>(landing.keep);
      failures.of_ranks.emplace(from, RankError::decode(text.data(), text.size()));
      if (!failures.stop) {
        failures.stop = std::make_exception_ptr(
            Error(cluster.name() + " rank " + std::to_string(from) + " failed"));
        gate.fail(failures.stop);
      }
      return;
    }
    const auto task = static_cast<plan::TaskId>(tag);
    mail.deliver(task, std::static_pointer_cast<Buffer>(landing.keep));
    gate.open(task);
  };
  Messages messages(cluster, land, arrived);

  WorkerRun& run = start();
  bool finished = false;
  std::unique_ptr<Cluster::Operation> barrier;
  auto step = [&] {
    // Done first, then the outbox: a task posts before it finishes.
    const bool now_done = !finished && run.done();
    bool progressed = false;
    for (auto& out : mail.take_outgoing()) {
      for (int to : roles.send_to[out.task])
        messages.send(to, static_cast<int>(out.task), out.buffer->data(), out.buffer->bytes(),
                      out.buffer);
      progressed = true;
    }
    if (now_done) {
      finished = true;
      progressed = true;
      const std::exception_ptr error = run.join();
      if (error && error != failures.stop) {
        failures.own = error;
        abort_text = RankError::of(error).encode();
        for (int r = 0; r < cluster.size(); ++r)
          if (r != cluster.rank())
            messages.send(r, abort_tag, abort_text.data(), abort_text.size(), nullptr);
      }
    }
    // Every rank waits for all ranks' sends to be matched: then nothing is left in flight.
    if (finished && !barrier && messages.sends_done() && messages.receives_done()) {
      barrier = cluster.barrier();
      progressed = true;
    }
    return progressed;
  };
  try {
    drive(
        messages, [&] { return barrier && messages.receives_done() && barrier->test(); }, step);
  } catch (...) {
    // The cluster itself failed: stop the workers, then report it.
    gate.fail(std::current_exception());
    if (!finished)
      (void)run.join();
    throw;
  }
  if (failures.own || !failures.of_ranks.empty())
    raise(failures, cluster);
}

} // namespace

void run_distributed(const plan::Plan& plan, PlanExecutor& exec, TaskExecutor& tasks, int workers,
                     const ComputeOptions& options, std::span<const int> worker,
                     Distribution& distribution) {
  distribution.entered = true;
  const Roles roles = assign_roles(plan, distribution);
  std::vector<std::uint8_t> gated(plan.tasks.size(), 0);
  for (std::size_t t = 0; t < plan.tasks.size(); ++t)
    gated[t] = roles.role[t] == Role::receive;
  const TaskGraph graph = task_graph(plan, worker, &roles.local);
  ExternalGate gate(std::move(gated));
  Mailboxes mail;
  RankTasks rank_tasks(roles, exec, tasks, mail);
  std::optional<WorkerRun> run;
  drive_rank(plan, distribution, roles, gate, mail, [&]() -> WorkerRun& {
    return run.emplace(graph, rank_tasks, workers, options, gate);
  });
}

void abandon_distributed(const plan::Plan& plan, Distribution& distribution,
                         std::exception_ptr error) {
  distribution.entered = true;
  const Roles roles = assign_roles(plan, distribution);
  ExternalGate gate(std::vector<std::uint8_t>{});
  Mailboxes mail;
  std::optional<WorkerRun> run;
  drive_rank(plan, distribution, roles, gate, mail,
             [&]() -> WorkerRun& { return run.emplace(std::move(error)); });
}

} // namespace chunked::runtime
