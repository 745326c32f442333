// SPDX-License-Identifier: Apache-2.0
// Range checks of ComputeOptions, shared by every backend.
#include <chunked/core/error.hpp>
#include <chunked/runtime/compute_options.hpp>

#include <string>

namespace chunked {

void validate(const ComputeOptions& options) {
  if (options.num_threads < 0)
    throw ValueError("ComputeOptions::num_threads is " + std::to_string(options.num_threads) +
                     "; expected 0 (all hardware threads) or a positive count");
  if (options.streams_per_device < 0)
    throw ValueError("ComputeOptions::streams_per_device is " +
                     std::to_string(options.streams_per_device) +
                     "; expected 0 (the backend's choice) or a positive count");
}

} // namespace chunked
