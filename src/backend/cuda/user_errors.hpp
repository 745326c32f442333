// SPDX-License-Identifier: Apache-2.0
// What a user block function left behind on the stream it enqueued its work on.
#pragma once

#include "backend/cuda/runtime.hpp"
#include <chunked/core/types.hpp>

#include <string>
#include <vector>

namespace chunked::cuda {

/// Raises a BackendError naming the function `name`, its block and `device` when the function
/// left a CUDA error: a failed launch (cudaGetLastError) or a stream that already failed. Work
/// still running is no error: it is checked when the stream is next synchronised.
void check_user_function(const Stream& stream, const std::string& name,
                         const std::vector<index_t>& block, int device);

} // namespace chunked::cuda
