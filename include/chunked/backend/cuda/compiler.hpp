// SPDX-License-Identifier: Apache-2.0
// Run-time compilation of generated kernels with NVRTC, cached in memory and on disk, and their
// launch through the driver API.
#pragma once

#include <chunked/backend/cuda/runtime.hpp>

#include <cuda.h>

#include <string>

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

/// The module of `source` on `device`: from memory when this process compiled it before, else
/// from the disk cache, else compiled by NVRTC for the device's architecture (sm_XX cubin) and
/// stored in both. `key` names the source in error messages. Thread-safe. Modules stay loaded
/// for the life of the process.
const Module& get_module(int device, const std::string& key, const std::string& source);

/// Launches `function` with `args` (kernel parameter pointers) on `stream`.
void launch(CUfunction function, unsigned grid, unsigned block, void** args, const Stream& stream,
            const char* what);

/// The directory of the on-disk kernel cache: $CHUNKED_CACHE_DIR, else $XDG_CACHE_HOME/chunked,
/// else ~/.cache/chunked ("" when none can be named; caching on disk is then skipped).
std::string kernel_cache_dir();

} // namespace chunked::cuda
