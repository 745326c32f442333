// SPDX-License-Identifier: Apache-2.0
// Range checks of ComputeOptions, shared by every backend, and those of computations on the CPU.
#include "runtime/compute_options_checks.hpp"
#include <chunked/core/error.hpp>
#include <chunked/runtime/compute_options.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

namespace chunked {

void validate(const ComputeOptions& options) {
  if (options.num_threads < 0 || options.num_threads > max_num_threads)
    throw ValueError("ComputeOptions::num_threads is " + std::to_string(options.num_threads) +
                     "; expected 0 (all hardware threads) or a count from 1 to " +
                     std::to_string(max_num_threads));
  if (options.streams_per_device < 0)
    throw ValueError("ComputeOptions::streams_per_device is " +
                     std::to_string(options.streams_per_device) +
                     "; expected 0 (the backend's choice) or a positive count");
  // One worker per device: a device named twice would get two workers sharing its streams and
  // each budgeting the whole device's memory.
  const auto& devices = options.devices;
  for (auto it = devices.begin(); it != devices.end(); ++it) {
    if (*it < 0)
      throw ValueError("ComputeOptions::devices holds " + std::to_string(*it) +
                       "; expected CUDA device numbers, from 0");
    if (std::find(devices.begin(), it, *it) != it)
      throw ValueError("ComputeOptions::devices names device " + std::to_string(*it) +
                       " twice; expected each device at most once");
  }
  if (!options.spill_directory.empty()) {
    std::error_code ec;
    const auto status = std::filesystem::status(options.spill_directory, ec);
    if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
      throw ValueError("ComputeOptions::spill_directory is \"" + options.spill_directory +
                       "\", which is not a directory; expected a directory or a path to create");
  }
}

} // namespace chunked

namespace chunked::runtime {

void validate_for_cpu(const ComputeOptions& options, const char* why) {
  if (options.stream != nullptr)
    throw ValueError(std::string("ComputeOptions::stream is set, but this computation runs on the "
                                 "CPU (") +
                     why +
                     "); a CUDA stream orders only computations on a GPU: leave it null "
                     "here, or use chunked::Cuda");
}

} // namespace chunked::runtime
