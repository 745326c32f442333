// SPDX-License-Identifier: Apache-2.0
// check_user_function (user_errors.hpp).
#include "backend/cuda/user_errors.hpp"

#include "runtime/user_call.hpp"

#include <fmt/format.h>

namespace chunked::cuda {

void check_user_function(const Stream& stream, const std::string& name,
                         const std::vector<index_t>& block, int device) {
  const cudaError_t launched = cudaGetLastError();
  cudaError_t state = cudaStreamQuery(stream.get());
  if (state == cudaErrorNotReady)
    state = cudaSuccess;
  const cudaError_t error = launched != cudaSuccess ? launched : state;
  if (error != cudaSuccess)
    throw BackendError(fmt::format("Cuda backend: the {} function left a CUDA error on block {} "
                                   "(device {}): {}",
                                   name, runtime::block_label(block), device,
                                   cudaGetErrorString(error)));
}

} // namespace chunked::cuda
