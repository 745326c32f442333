// SPDX-License-Identifier: Apache-2.0
// The GPU side of a computation's trace: its kernels and copies, timed by CUDA events on the
// streams they ran on, and NVTX ranges around its tasks for Nsight tools.
#pragma once

#include "backend/cuda/runtime.hpp"
#include "runtime/trace.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace chunked::cuda {

/// The kernels and copies of one computation, for its trace (runtime::current_trace() when the
/// executor is made; without one it records nothing and costs nothing). Workers record through
/// GpuSpan while a Scope of theirs is alive.
class GpuTimeline {
public:
  explicit GpuTimeline(runtime::Trace* trace);
  /// Hands over what collect() has not (after a failure, once the executor has waited for its
  /// streams), ignoring errors.
  ~GpuTimeline();
  GpuTimeline(const GpuTimeline&) = delete;
  GpuTimeline& operator=(const GpuTimeline&) = delete;

  bool on() const { return trace_ != nullptr; }

  /// Names `stream`, the device's stream `index`, in the trace. The first stream of a device also
  /// ties the device's event clock to the trace's: an event recorded on it and waited for.
  void add_stream(const Stream& stream, int index);

  /// While it lives, the calling thread's GpuSpans are task `task`'s, recorded here (when on),
  /// and an NVTX range named by the task's kind encloses them.
  class Scope {
  public:
    Scope(GpuTimeline& timeline, std::uint32_t task, const char* kind);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

  private:
    GpuTimeline* previous_;
    std::uint32_t previous_task_;
  };

  /// Once every stream has finished: converts the recorded spans to trace events.
  void collect();

private:
  friend class GpuSpan;
  struct Span {
    int device;
    cudaStream_t stream;
    std::string name;
    const char* category;
    std::uint32_t task;
    std::uint64_t bytes;
    std::unique_ptr<Event> start, end;
  };
  struct Origin {
    int device;
    std::unique_ptr<Event> event;
    std::int64_t host_ns;
  };

  /// Starts a span on `stream`; returns its number.
  std::size_t begin(const Stream& stream, std::string name, const char* category,
                    std::uint64_t bytes);
  void end(std::size_t span, const Stream& stream);

  runtime::Trace* trace_;
  std::mutex mutex_;
  std::vector<Span> spans_;
  std::vector<Origin> origins_;
  std::vector<std::pair<cudaStream_t, int>> streams_; ///< index of each named stream
  bool collected_ = false;
};

/// A kernel launch or a copy enqueued on `stream` while it lives, timed by a pair of events when
/// the calling thread works for a traced computation (a GpuTimeline::Scope), else nothing.
class GpuSpan {
public:
  GpuSpan(const Stream& stream, const char* name, const char* category, std::uint64_t bytes = 0);
  ~GpuSpan();
  GpuSpan(const GpuSpan&) = delete;
  GpuSpan& operator=(const GpuSpan&) = delete;

private:
  GpuTimeline* timeline_;
  const Stream* stream_;
  std::size_t span_ = 0;
};

} // namespace chunked::cuda
