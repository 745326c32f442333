// SPDX-License-Identifier: Apache-2.0
// ExternalGate (external_gate.hpp).
#include "runtime/external_gate.hpp"

namespace chunked::runtime {

void ExternalGate::open(TaskId task) {
  std::lock_guard lock(mutex_);
  if (listener_)
    listener_->opened(task);
  else
    opened_.push_back(task);
}

void ExternalGate::fail(std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  if (!error_)
    error_ = error;
  if (listener_)
    listener_->failed(std::move(error));
}

void ExternalGate::listen(Listener* listener) {
  std::lock_guard lock(mutex_);
  listener_ = listener;
  if (!listener)
    return;
  for (TaskId task : opened_)
    listener->opened(task);
  opened_.clear();
  if (error_)
    listener->failed(error_);
}

} // namespace chunked::runtime
