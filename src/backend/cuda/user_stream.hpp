// SPDX-License-Identifier: Apache-2.0
// The host code's CUDA stream (ComputeOptions::stream): a computation's streams wait for the work
// already queued on it, and it waits for the computation's work, by events only.
#pragma once

#include "backend/cuda/runtime.hpp"

#include <span>

namespace chunked::cuda {

/// The stream a computation is ordered against; orders nothing when none was given. Used on the
/// thread that called compute(), so that cudaStreamPerThread names that thread's stream.
class UserStream {
public:
  /// `stream`: a cudaStream_t as void*, or null. BackendError when CUDA cannot tell its device.
  explicit UserStream(void* stream);

  explicit operator bool() const { return stream_ != nullptr; }

  /// Makes each of `streams` (on any devices) wait for the work queued on the user's stream so
  /// far: one event recorded on it, which the other devices' streams wait for as well. Call
  /// before the computation queues anything on them.
  void precede(std::span<Stream* const> streams) const;
  /// Makes the user's stream wait for the work queued so far on each of `streams`: an event
  /// recorded on each, so that later work on the user's stream sees the computation's results.
  void follow(std::span<Stream* const> streams) const;

private:
  cudaStream_t stream_ = nullptr;
  int device_ = -1;
};

} // namespace chunked::cuda
