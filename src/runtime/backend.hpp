// SPDX-License-Identifier: Apache-2.0
// The backend interface: what only a backend can do (run a plan's tasks in its memory, hand out
// host memory it reads fast, move its buffers to the host, cut work into tasks its way), and the
// registry of the backends this library knows.
#pragma once

#include "plan/plan.hpp"
#include "runtime/frame.hpp"
#include <chunked/core/buffer.hpp>
#include <chunked/runtime/compute_options.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace chunked::runtime {

/// One way of running plans. The engine resolves a backend once per computation, plans with its
/// task split and hands it the plan; everything a backend shares with the others (the task graph,
/// output sizes, consumer lists, the dispatch on task kinds) lives in runtime/plan_executor.hpp.
class Backend {
public:
  virtual ~Backend() = default;

  /// "Cpu" or "Cuda", for messages.
  virtual const char* name() const = 0;
  /// Whether this build of chunked contains the backend.
  virtual bool built() const = 0;
  /// Devices that can run work now: 0 when the backend is unusable (the CPU counts as one).
  virtual int usable_devices() const = 0;
  /// How the planner cuts this backend's work into tasks (plan::make_plan's `split`).
  virtual plan::TaskSplit task_split() const = 0;
  /// Blocks until the code this backend generates in the background is ready (chunked's
  /// wait_for_kernels); nothing by default.
  virtual void wait_for_kernels() const {}

  /// Runs every task of `plan`. `devices` is usable_devices() as counted when the backend was
  /// resolved for this computation. Returns, per task, the buffers of result tasks (persist);
  /// BackendError or OutOfMemory on failure, after every other task has stopped.
  virtual std::vector<std::shared_ptr<Buffer>>
  execute(plan::Plan& plan, const ComputeOptions& options, int devices) const = 0;

  /// Host memory of `bytes` that this backend reads fastest (page-locked for CUDA), written by
  /// `fill` when given.
  virtual std::shared_ptr<Buffer> host_buffer(std::size_t bytes,
                                              const std::function<void(void*)>& fill) const = 0;
  /// A host copy of a buffer held in this backend's memory (a block persist() left on a GPU);
  /// BackendError when the backend holds no such memory.
  virtual std::shared_ptr<Buffer> to_host(const Buffer& buffer) const = 0;
  /// Copies `bytes` from `src` in `from` to `dst` in `to`, host memory or this backend's, and
  /// returns when they are there; BackendError for memory the backend does not hold.
  virtual void copy_bytes(void* dst, MemorySpace to, const void* src, MemorySpace from,
                          std::size_t bytes) const = 0;

  /// A persisted stencil's one buffer (runtime/frame.hpp) of `bytes`, in the memory of the one
  /// device a computation with `options` runs on (`devices` as for execute); nullptr when it
  /// runs on several, where the stencil's blocks stay apart.
  virtual std::shared_ptr<Buffer> framed_buffer(std::size_t bytes, const ComputeOptions& options,
                                                int devices) const = 0;
  /// Fills a frame in a buffer of framed_buffer() and returns when it is filled.
  virtual void fill_frame(const Frame& frame) const = 0;

  /// How fast this backend's memory copies, for the report's rates: bytes read and written per
  /// second (a copy's traffic, the ceiling of a program that streams its data) and what was
  /// measured. Measured once per process, on first use (a few tens of milliseconds).
  struct CopyRate {
    double bytes_per_second = 0; ///< 0 when it cannot be measured
    std::string what;
  };
  virtual CopyRate copy_rate() const = 0;
};

/// The rate at which one thread copies host memory, measured once per process.
Backend::CopyRate host_copy_rate();

/// The CPU backend (always built).
const Backend& cpu_backend();
/// The CUDA backend; in a build without CUDA, one that is not built, has no device and says so.
const Backend& cuda_backend();
/// The backend whose memory `space` is (the CUDA backend for device memory).
const Backend& backend_of(MemorySpace space);

} // namespace chunked::runtime
