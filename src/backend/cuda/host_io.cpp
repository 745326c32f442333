// SPDX-License-Identifier: Apache-2.0
// Block reads ahead and block writes on host threads for the CUDA executor (host_io.hpp).
#include "backend/cuda/host_io.hpp"

#include "runtime/block_io_call.hpp"
#include "runtime/distributed/distribution.hpp"
#include "runtime/parallel_for.hpp"
#include "runtime/plan_executor.hpp"

#include <algorithm>
#include <chrono>

namespace chunked::cuda {

std::unique_ptr<PinnedBuffer> SparePinned::take(std::size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    auto best = kept_.end();
    for (auto it = kept_.begin(); it != kept_.end(); ++it)
      if ((*it)->bytes() >= bytes && (best == kept_.end() || (*it)->bytes() < (*best)->bytes()))
        best = it;
    if (best != kept_.end()) {
      std::unique_ptr<PinnedBuffer> buffer = std::move(*best);
      kept_.erase(best);
      return buffer;
    }
  }
  return std::make_unique<PinnedBuffer>(bytes);
}

void SparePinned::give(std::unique_ptr<PinnedBuffer> buffer) {
  std::lock_guard lock(mutex_);
  if (kept_.size() < max_kept)
    kept_.push_back(std::move(buffer));
}

PinnedBlock::PinnedBlock(std::size_t bytes, SparePinned& spares)
    : bytes_(bytes), spares_(bytes <= staging_bytes ? nullptr : &spares) {
  buffer_ = spares_ ? spares_->take(bytes) : acquire_staging();
}

PinnedBlock::~PinnedBlock() {
  if (spares_)
    spares_->give(std::move(buffer_));
  else
    release_staging(std::move(buffer_));
}

HostIo::HostIo(const plan::Plan& plan) : plan_(plan), load_of_task_(plan.tasks.size(), 0) {
  bool writes = false;
  for (std::size_t t = 0; t < plan.tasks.size(); ++t) {
    const plan::Task& task = plan.tasks[t];
    writes = writes || task.kind == plan::TaskKind::write;
    // Over a cluster, another rank reads the loads it computes.
    if (task.kind != plan::TaskKind::load || !runtime::task_runs_here(static_cast<plan::TaskId>(t)))
      continue;
    load_of_task_[t] = static_cast<std::uint32_t>(loads_.size());
    Load load;
    load.task = static_cast<plan::TaskId>(t);
    load.bytes = runtime::output_bytes(task.output, plan::ReduceOp::sum);
    load.charge = PinnedBlock::footprint(load.bytes);
    loads_.push_back(std::move(load));
  }
  if (loads_.empty() && !writes)
    return;
  thread_count_ =
      std::min<std::size_t>(runtime::hardware_threads(), static_cast<std::size_t>(max_threads));
  for (std::size_t i = 0; i < thread_count_; ++i)
    threads_.emplace_back([this] { work(); });
}

std::size_t HostIo::budget(std::size_t charge) const {
  return std::clamp(charge * thread_count_, min_bytes, max_bytes);
}

HostIo::~HostIo() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_)
    t.join();
  // The executor waited for its streams: every retired block's copy is done.
}

void HostIo::read(Load& load) {
  try {
    auto block = std::make_unique<PinnedBlock>(load.bytes, spares_);
    const plan::Task& task = plan_.tasks[load.task];
    runtime::read_block(plan_.loads[task.index], task.block, block->data());
    std::lock_guard lock(mutex_);
    load.block = std::move(block);
    load.state = State::ready;
  } catch (...) {
    std::lock_guard lock(mutex_);
    load.error = std::current_exception();
    load.state = State::failed;
    read_bytes_ -= load.charge;
  }
  changed_.notify_all();
}

void HostIo::reclaim() {
  auto done = [&](const auto& entry) {
    const cudaError_t state = cudaEventQuery(entry.second->get());
    if (state == cudaErrorNotReady)
      return false;
    cudaGetLastError(); // a failed copy is the executor's to report, on its stream
    read_bytes_ -= PinnedBlock::footprint(entry.first->bytes());
    return true;
  };
  retired_.erase(std::remove_if(retired_.begin(), retired_.end(), done), retired_.end());
}

void HostIo::work() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    // Writes first: they free page-locked memory, and the device worker may wait for it.
    if (!writes_.empty()) {
      Pending p = std::move(writes_.front());
      writes_.pop_front();
      ++writing_;
      lock.unlock();
      std::exception_ptr error;
      try {
        p.copied->synchronize();
        const plan::Task& task = plan_.tasks[p.task];
        runtime::write_block(plan_.writes[task.index], task.block, p.block->data());
      } catch (...) {
        error = std::current_exception();
      }
      const std::size_t bytes = PinnedBlock::footprint(p.block->bytes());
      p.block.reset();
      lock.lock();
      --writing_;
      write_bytes_ -= bytes;
      if (error && !write_error_)
        write_error_ = error;
      changed_.notify_all();
      continue;
    }
    reclaim();
    while (next_load_ < loads_.size() && loads_[next_load_].state != State::waiting)
      ++next_load_; // taken by its worker before any reader came to it
    if (next_load_ < loads_.size() && !write_error_) {
      Load& load = loads_[next_load_];
      if (read_bytes_ == 0 || read_bytes_ + load.charge <= budget(load.charge)) {
        ++next_load_;
        load.state = State::reading;
        read_bytes_ += load.charge;
        lock.unlock();
        read(load);
        lock.lock();
        continue;
      }
    }
    // Retired blocks come free when their copies end, which nothing signals: look again soon.
    if (retired_.empty())
      changed_.wait(lock);
    else
      changed_.wait_for(lock, std::chrono::milliseconds(1));
  }
}

std::unique_ptr<PinnedBlock> HostIo::take_load(plan::TaskId task) {
  std::unique_lock lock(mutex_);
  Load& load = loads_[load_of_task_[task]];
  if (load.state == State::waiting) {
    // No reader came to it yet: read it here rather than wait behind reads ahead.
    load.state = State::reading;
    read_bytes_ += load.charge;
    lock.unlock();
    read(load);
    lock.lock();
  }
  changed_.wait(lock, [&] { return load.state == State::ready || load.state == State::failed; });
  if (load.state == State::failed)
    std::rethrow_exception(load.error);
  load.state = State::taken;
  return std::move(load.block);
}

void HostIo::retire(std::unique_ptr<PinnedBlock> block, std::unique_ptr<Event> copied) {
  std::lock_guard lock(mutex_);
  retired_.emplace_back(std::move(block), std::move(copied));
  reclaim();
}

std::unique_ptr<PinnedBlock> HostIo::write_buffer(std::size_t bytes) {
  const std::size_t charge = PinnedBlock::footprint(bytes);
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] {
      return write_bytes_ == 0 || write_bytes_ + charge <= budget(charge) ||
             write_error_ != nullptr;
    });
    if (write_error_)
      std::rethrow_exception(write_error_);
    write_bytes_ += charge;
  }
  try {
    return std::make_unique<PinnedBlock>(bytes, spares_);
  } catch (...) {
    std::lock_guard lock(mutex_);
    write_bytes_ -= charge;
    throw;
  }
}

void HostIo::write_after(plan::TaskId write, std::unique_ptr<PinnedBlock> block,
                         std::unique_ptr<Event> copied) {
  {
    std::lock_guard lock(mutex_);
    writes_.push_back(Pending{write, std::move(block), std::move(copied)});
  }
  changed_.notify_all();
}

void HostIo::check() {
  std::lock_guard lock(mutex_);
  if (write_error_)
    std::rethrow_exception(write_error_);
}

void HostIo::finish() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return writes_.empty() && writing_ == 0; });
  if (write_error_)
    std::rethrow_exception(write_error_);
}

} // namespace chunked::cuda
