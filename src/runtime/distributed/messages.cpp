// SPDX-License-Identifier: Apache-2.0
// Messages (messages.hpp).
#include "runtime/distributed/messages.hpp"

#include <chunked/core/error.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

namespace chunked::runtime {

Messages::~Messages() {
  // After a failure: let what is in flight finish, so the cluster never writes freed memory. A
  // send that no rank will ever receive (its receiver failed too) is given up after a while: its
  // operation and memory are left to the cluster rather than freed under it.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  try {
    while ((!sends_.empty() || !receiving_.empty()) && std::chrono::steady_clock::now() < give_up) {
      if (!poll())
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  } catch (...) {
    // The computation has already failed; its first error is the one reported.
  }
  for (Send& s : sends_) {
    (void)s.op.release();
    new std::shared_ptr<const void>(std::move(s.keep)); // NOLINT: deliberately never freed
  }
  for (Receive& r : receiving_)
    (void)r.op.release();
  for (auto& [key, in] : incoming_)
    new std::shared_ptr<void>(std::move(in.landing.keep)); // NOLINT: deliberately never freed
}

void Messages::send(int to, int tag, const void* data, std::size_t bytes,
                    const std::shared_ptr<const void>& keep) {
  const auto* p = static_cast<const char*>(data);
  std::size_t offset = 0;
  do {
    const std::size_t piece = std::min(bytes - offset, Cluster::max_message);
    sends_.push_back({cluster_.send(to, tag, p + offset, piece), keep});
    offset += piece;
  } while (offset < bytes);
}

bool Messages::poll() {
  bool progressed = !closed_ && receive_arrived();
  progressed = finish_receives() || progressed;
  while (!sends_.empty() && sends_.front().op->test()) {
    sends_.pop_front();
    progressed = true;
  }
  // Sends finish in any order; look past the first one now and then.
  for (auto it = sends_.begin(); it != sends_.end();) {
    if (it->op->test()) {
      it = sends_.erase(it);
      progressed = true;
    } else {
      ++it;
    }
  }
  return progressed;
}

bool Messages::receive_arrived() {
  bool progressed = false;
  while (auto message = cluster_.probe()) {
    progressed = true;
    const std::pair<int, int> key{message->from, message->tag};
    auto it = incoming_.find(key);
    if (it == incoming_.end()) {
      Incoming in;
      in.landing = land_(message->from, message->tag, message->bytes);
      it = incoming_.emplace(key, std::move(in)).first;
    }
    Incoming& in = it->second;
    if (in.received + message->bytes > in.landing.bytes)
      throw Error(cluster_.name() + " rank " + std::to_string(cluster_.rank()) + ": rank " +
                  std::to_string(message->from) + " sent " +
                  std::to_string(in.received + message->bytes) + " bytes under tag " +
                  std::to_string(message->tag) + "; expected " + std::to_string(in.landing.bytes));
    void* at = static_cast<char*>(in.landing.data) + in.received;
    in.received += message->bytes;
    ++in.pending;
    receiving_.push_back({cluster_.receive(*message, at), key});
  }
  return progressed;
}

bool Messages::finish_receives() {
  bool progressed = false;
  for (std::size_t i = 0; i < receiving_.size();) {
    if (!receiving_[i].op->test()) {
      ++i;
      continue;
    }
    progressed = true;
    const auto key = receiving_[i].key;
    receiving_[i] = std::move(receiving_.back());
    receiving_.pop_back();
    auto it = incoming_.find(key);
    Incoming& in = it->second;
    if (--in.pending == 0 && in.received == in.landing.bytes) {
      Landing landing = std::move(in.landing);
      incoming_.erase(it);
      arrived_(key.first, key.second, landing);
    }
  }
  return progressed;
}

void drive(Messages& messages, const std::function<bool()>& done,
           const std::function<bool()>& step) {
  // Spin while messages flow; when none do, sleep a little longer each round, up to 200 us.
  auto pause = std::chrono::microseconds(0);
  while (!done()) {
    bool progressed = messages.poll();
    if (step)
      progressed = step() || progressed;
    if (progressed) {
      pause = std::chrono::microseconds(0);
      continue;
    }
    if (pause.count() == 0)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(pause);
    pause = std::min(pause + std::chrono::microseconds(10), std::chrono::microseconds(200));
  }
}

} // namespace chunked::runtime
