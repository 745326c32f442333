// SPDX-License-Identifier: Apache-2.0
// Run-time compilation of generated kernels with NVRTC, cached in memory and on disk, and their
// launch through the driver API.
#pragma once

#include "backend/cuda/runtime.hpp"

#include <cuda.h>

#include <functional>
#include <string>
#include <vector>

namespace chunked::cuda {

/// A loaded module of one generated source on one device.
class Module {
public:
  /// The kernel `name` of this module; BackendError when it has none.
  CUfunction function(const char* name) const;
  CUmodule get() const { return module_; }
  explicit Module(CUmodule module, int device) : module_(module), device_(device) {}

private:
  CUmodule module_;
  int device_;
};

/// The module that `key` names on `device`, from the process's one module cache: loaded before,
/// else made from the disk cache or compiled by NVRTC for the device's architecture (sm_XX cubin)
/// and stored in both. `key` must determine the source (codegen's module_key does): `source` is
/// called only when no device of this architecture has made the key's image yet, so a
/// computation whose kernels are all loaded generates no source text. `key` names the source in
/// error messages. Thread-safe. Modules stay loaded for the life of the process.
const Module& get_module(int device, const std::string& key,
                         const std::function<std::string()>& source);

/// The module get_module loaded on `device` under `key`, or nullptr (same cache, no loading).
const Module* find_module(int device, const std::string& key);

/// The module of `key` on `device` if it is loaded or its image is made (by this process or in
/// the disk cache): get_module's, which then loads without compiling. Else nullptr, having
/// compiled nothing; `source` is called to name the disk cache's file.
const Module* find_or_load_cached(int device, const std::string& key,
                                  const std::function<std::string()>& source);

/// Compiles `source` with NVRTC for `arch` (e.g. "sm_90") and returns the cubin; BackendError
/// with the compiler's log when it fails. Needs no device.
std::vector<char> compile_to_cubin(const std::string& key, const std::string& source,
                                   const std::string& arch);

/// Launches `function` on a grid of grid x grid_y blocks of `block` threads with `args` (kernel
/// parameter pointers) on `stream`.
void launch(CUfunction function, unsigned grid, unsigned block, void** args, const Stream& stream,
            const char* what, unsigned grid_y = 1);

/// Fault injection for tests: the launch `launches` launches from now (0: the next one) is made
/// with an impossible block size, so the driver fails it the way it fails a bad kernel launch;
/// a negative count turns the injection off.
void fail_launch_after(long launches);

/// The directory of the on-disk kernel cache: $CHUNKED_CACHE_DIR, else $XDG_CACHE_HOME/chunked,
/// else ~/.cache/chunked ("" when none can be named; caching on disk is then skipped).
std::string kernel_cache_dir();

} // namespace chunked::cuda
