// SPDX-License-Identifier: Apache-2.0
// The CUDA backend's entry points, declared without any CUDA header so that every build and every
// user of chunked compiles against them; a build without CUDA defines them to report absence.
#pragma once

#include "plan/plan.hpp"
#include "runtime/frame.hpp"
#include <chunked/core/buffer.hpp>
#include <chunked/runtime/compute_options.hpp>

#include <functional>
#include <memory>
#include <vector>

namespace chunked::cuda {

/// True when this build of chunked contains the CUDA backend.
bool built();
/// Devices that can run work now (0 without a CUDA build, a driver or a device).
int usable_device_count();
/// Runs every task of plan on the GPUs selected by options (one worker per device);
/// `device_count` is usable_device_count() as counted when the backend was resolved. Returns the
/// outputs of result tasks (persist) as device buffers, indexed by task id; BackendError or
/// OutOfMemory on failure, after every other task has stopped and memory is released.
std::vector<std::shared_ptr<Buffer>> execute(const plan::Plan& plan, const ComputeOptions& options,
                                             int device_count);

/// Host memory that device copies read and write at full speed and asynchronously: page-locked
/// when a CUDA device is usable, else ordinary host memory. from_host uses it for arrays of the
/// Cuda backend (and of Auto when it resolves to CUDA). `fill`, when given, writes the contents
/// before the memory is page-locked: locking pages that are already written is several times
/// faster than locking fresh ones, which the driver must first fault in and zero one by one.
std::shared_ptr<Buffer> make_transfer_buffer(std::size_t bytes,
                                             const std::function<void(void*)>& fill = {});

/// A host copy of a buffer held in device memory, so that the CPU backend can read blocks that
/// persist() left on a GPU.
std::shared_ptr<Buffer> download(const Buffer& device_buffer);
/// Copies `bytes` between host memory and a device's (`to`, `from`), synchronously.
void copy_bytes(void* dst, MemorySpace to, const void* src, MemorySpace from, std::size_t bytes);

// ---- Persisted stencils (runtime/frame.hpp)
/// The device a computation with `options` runs on when it runs on one (`count` as for execute),
/// else -1.
int single_device(const ComputeOptions& options, int count);
/// Device memory of `bytes` on `device` for a persisted stencil's one buffer, from `resource`
/// when given (which must outlive it), ready for any stream.
std::shared_ptr<Buffer> allocate_framed(int device, std::size_t bytes, MemoryResource* resource);
/// Fills the frame of a persisted stencil in device memory and waits for it.
void fill_frame(const runtime::Frame& frame);

// ---- Views (interop): borrowed device memory
/// The device whose memory `p` points into (device memory, or managed memory that lives on a
/// device), or -1 for host memory and pointers CUDA does not know (-1 without CUDA).
int pointer_device(const void* p);

/// Bytes read and written per second by a device-to-device copy on device 0 (0 without a
/// device), measured once per process, for the report's rates.
double device_copy_rate();

/// Blocks until the kernels compiling in the background (jit.hpp's tiers) are ready.
void wait_for_kernels();

} // namespace chunked::cuda
