// SPDX-License-Identifier: Apache-2.0
// The backend registry's one rule of its own: which backend's memory a buffer is in.
#include "runtime/backend.hpp"

namespace chunked::runtime {

const Backend& backend_of(MemorySpace space) {
  return space.kind == MemorySpace::Kind::device ? cuda_backend() : cpu_backend();
}

} // namespace chunked::runtime
