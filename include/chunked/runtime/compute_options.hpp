// SPDX-License-Identifier: Apache-2.0
// ComputeOptions: how a compute() call runs (scheduler, workers, devices, memory, progress).
#pragma once

#include <chunked/runtime/cluster.hpp>
#include <chunked/runtime/memory_resource.hpp>
#include <chunked/runtime/progress.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace chunked {

/// Where block tasks run on the host.
enum class Scheduler {
  threads,         ///< a pool of worker threads (one per CPU core, or one per GPU)
  single_threaded, ///< inline on the calling thread, in task order: for debugging and profiling
};

/// The most CPU worker threads ComputeOptions::num_threads may ask for.
inline constexpr int max_num_threads = 4096;

/// Options of `compute()`, `item()`, `persist()` and `to_host()`. The defaults use the whole
/// machine.
///
/// @code
/// chunked::ComputeOptions opts;
/// opts.num_threads = 8;
/// opts.progress_bar = true;
/// double s = x.sum().item(opts);
/// @endcode
struct ComputeOptions {
  /// `threads` runs tasks on worker threads; `single_threaded` runs them on the calling thread.
  Scheduler scheduler = Scheduler::threads;
  /// CPU worker threads; 0 = all hardware threads. At most max_num_threads: more workers than
  /// any machine has hardware threads only contend, and each reserves a stack.
  int num_threads = 0;
  /// CUDA devices to use, each named once; empty = all visible. One worker per GPU.
  std::vector<int> devices;
  /// CUDA streams per device; 0 = the backend's choice (4); at most 16 are used.
  int streams_per_device = 0;
  /// Bytes each device may hold; 0 = 80 % of the memory free when the computation starts (with a
  /// device_memory_resource: 80 % of the device's total memory, see there).
  std::size_t device_memory_limit = 0;
  /// Bytes of persisted blocks (and blocks read back from spill files) that may stay in host
  /// memory; 0 = no limit. When persist() is given a limit, its blocks beyond it move to files
  /// under spill_directory, least recently used first, and come back when a computation reads
  /// them; the most recent such persist()'s limit applies to all spillable blocks of the process.
  /// On Cuda with a device_memory_limit, persisted blocks beyond half of it (the other half is
  /// left to the computations reading them) move to page-locked host memory, which this limit
  /// bounds in turn; persist() then computes a result larger than a quarter of the device limit
  /// in ranges of blocks along the first axis, one after the other (work they share, such as a
  /// reduction every block reads, is done again for each). The limit bounds persisted blocks,
  /// not a computation's transient working set; a task whose own persisted inputs exceed it
  /// raises OutOfMemory naming both sizes.
  std::size_t host_memory_limit = 0;
  /// Directory of the files of spilled blocks (one per block while it is spilled, removed when it
  /// comes back or its array is destroyed); created when missing; empty = the system's temporary
  /// directory. A path that exists but is not a directory is a ValueError; one that cannot be
  /// created or written is a chunked::Error naming it, raised by the persist() or computation
  /// that needed it.
  std::string spill_directory;
  /// Sums that do not depend on the chunking: `sum`, `mean`, `var` and `std` of float and double
  /// arrays are computed from exact sums (no rounding until the end), so that their results are
  /// bitwise the same for every chunking, thread count, GPU count, rank count and backend.
  ///
  /// - `sum` is the exact sum correctly rounded (to nearest, ties to even) to the result dtype: a
  ///   float array's sum is rounded once to float, never through a double.
  /// - `mean` is that sum rounded to double, divided by the count (NumPy's formula), in the
  ///   result dtype.
  /// - `var` and `std` take NumPy's two passes: the mean m as above, then the exact sum of the
  ///   squares (x - m)^2 (each computed in double), rounded to double and divided by
  ///   max(count - ddof, 0); std is its square root. Each is one pass more than without the
  ///   option.
  /// - NaN, infinities and signed zeros as NumPy: a NaN, or +inf with -inf, gives NaN; a sum
  ///   past the largest finite value gives an infinity even where the summands are finite; a
  ///   zero sum is -0.0 only when every element was -0.0.
  /// - Integer and bool reductions are exact without it; `prod`, `min`, `max`, `argmin`, `argmax`,
  ///   `any` and `all` do not depend on the chunking either way, except the rounding of a
  ///   floating `prod`, which stays grouped by the chunk grid (and so chunking-dependent).
  ///
  /// - `cumsum` of float or double values gives every element as its prefix's exact sum
  ///   correctly rounded to the dtype (specials and signed zeros as for `sum`, so a prefix that
  ///   overflows and a later one that comes back are an infinity and a finite value); the running
  ///   sums cross block boundaries exactly. Integer and bool cumsums are exact without it.
  ///
  /// The sums keep, per partial result, 75 words (600 bytes) in place of one to three; an exact
  /// cumsum keeps as much per line of each block, after the block's values.
  bool exact_sums = false;
  /// Called about every 100 ms while tasks finish and once at the end with the final counts.
  /// Calls never overlap; they come from worker threads, so keep the callback short. The
  /// computation calls a copy made when it starts, so the callback may clear or replace this one
  /// (state it keeps by value is the copy's; capture by reference what the caller reads back).
  std::function<void(const Progress&)> on_progress;
  /// Draw a one-line progress bar on stderr: blocks done, bytes per second, elapsed time and an
  /// estimate of the time left, redrawn in place. Where stderr is not a terminal (a log file, a
  /// pipe), a line at each 10 % step instead, at most 11 per computation and no '\r', such as
  /// `chunked: 30%  300/1000 blocks  1.21 GB/s  elapsed 12.0s  ETA 22.3s`.
  bool progress_bar = false;

  // ---- Diagnostics (DESIGN 8.7) ----
  /// When not empty, the computation writes a Chrome trace-event JSON file here when it ends
  /// (also when it fails): a track per worker thread with each block task (its program, block,
  /// bytes) and the time it waited for work, a track per GPU stream with kernels and copies timed
  /// by CUDA events, code generation, planning, and counters of live device, page-locked, host
  /// and spilled memory. Perfetto (ui.perfetto.dev) and chrome://tracing open it. A path that
  /// cannot be written makes the computation raise a chunked::Error naming it. persist() of a
  /// result in several ranges (see host_memory_limit) writes one file with all of them. The file
  /// is written after the computation returns, by a thread of the library, and appears whole:
  /// wait_for_diagnostics() (chunked/runtime/diagnostics.hpp) waits for it.
  std::string trace_path;
  /// When not empty, the computation writes one self-contained HTML page here when it ends: the
  /// task stream, memory over time, time per block program with the rate it reached against
  /// the machine's copy rate, the plan and these options. It needs no network to view. A path
  /// that cannot be written is a chunked::Error naming it; it is written after the computation
  /// returns, as the trace is.
  std::string report_path;

  // ---- Interop: user streams and memory resources (DESIGN 8.4) ----
  /// A `cudaStream_t` of the host code, as `void*`; null = none. A Cuda computation first waits
  /// for the work already queued on it (an event recorded on it, waited for by the library's
  /// streams of every device used: never a device synchronisation), and the work it leaves on its
  /// streams is ordered before the work queued on this stream after the call (results in host
  /// memory are complete when the call returns in any case). A blocking call such as compute()
  /// therefore also returns only after the stream's earlier work. `cudaStreamPerThread` and
  /// `cudaStreamLegacy` name the calling thread's streams. A non-null stream on a computation that
  /// runs on the CPU (Cpu, or Auto without a usable GPU) is a ValueError at the call.
  void* stream = nullptr;
  /// Supplies every device allocation of a Cuda computation, persisted blocks included (see
  /// MemoryResource; it must outlive the arrays persisted with it); null = the library's own
  /// stream-ordered pool. Allocations still count against device_memory_limit; when that is 0, the
  /// limit is 80 % of the device's total memory rather than of its free memory, which does not
  /// count what the resource's own pool holds in reserve. Computations on the CPU ignore it (they
  /// allocate no device memory).
  MemoryResource* device_memory_resource = nullptr;
  /// Supplies every page-locked host allocation of a Cuda computation (the staging buffers of
  /// copies between devices and pageable host memory); null = the library's own. Computations on
  /// the CPU ignore it. from_host() makes its blocks when called, outside any computation: they do
  /// not come from it.
  MemoryResource* pinned_memory_resource = nullptr;

  // ---- Distributed (DESIGN 8.6) ----
  /// The ranks that share this computation (`chunked::mpi::cluster(comm)`); null = this process
  /// alone. Every rank must make the same call on the same graph. Each rank runs the tasks of
  /// the blocks it owns on its own threads or GPU (with `devices` empty, the GPU its local rank
  /// picks); `compute()`, `item()` and `to_host()` return the whole result on every rank,
  /// bitwise equal to one process's; `persist()` keeps on each rank the blocks it owns;
  /// `to_zarr()` and `save_npy()` write each rank's blocks from that rank. Progress, traces and
  /// reports describe this rank's part.
  std::shared_ptr<Cluster> cluster;
};

/// Throws ValueError naming the field when an option is out of range (a negative thread or
/// stream count, more threads than max_num_threads, a negative or repeated device, a
/// spill_directory that is a file); every backend
/// checks its options with it before running anything.
void validate(const ComputeOptions& options);

} // namespace chunked
