// SPDX-License-Identifier: Apache-2.0
// cuBLAS opened at its first use (cublas_library.hpp).
#include "backend/cuda/cublas_library.hpp"

#include <chunked/core/error.hpp>

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <string>

// The exported name of an entry point: cublas_v2.h maps several names to their _v2 symbols by
// macros, which the second step expands.
#define CHUNKED_CUBLAS_SYMBOL_NAME(x) #x
#define CHUNKED_CUBLAS_SYMBOL(x) CHUNKED_CUBLAS_SYMBOL_NAME(x)

namespace chunked::cuda {

namespace {

const std::string& soname() {
  static const std::string name = fmt::format("libcublas.so.{}", CUBLAS_VER_MAJOR);
  return name;
}

/// The directory of the CUDA runtime this library was linked with, where a toolkit keeps cuBLAS
/// too; empty when it cannot be told.
std::string runtime_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&cudaGetDeviceCount), &info) == 0 || !info.dli_fname)
    return {};
  const std::string path = info.dli_fname;
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

void* open_library() {
  if (void* h = dlopen(soname().c_str(), RTLD_NOW | RTLD_LOCAL))
    return h;
  const std::string first_error = dlerror();
  const std::string dir = runtime_directory();
  if (!dir.empty())
    if (void* h = dlopen((dir + soname()).c_str(), RTLD_NOW | RTLD_LOCAL))
      return h;
  throw BackendError(fmt::format("Cuda backend: matrix products on a GPU need cuBLAS, and {} could "
                                 "not be opened ({}); expected it on the loader's path or in {}",
                                 soname(), first_error,
                                 dir.empty() ? "CUDA's lib directory" : dir));
}

template <class F> void bind(void* library, const char* name, F& out) {
  void* p = dlsym(library, name);
  if (!p)
    throw BackendError(fmt::format("Cuda backend: {} has no entry point {}; expected cuBLAS {}.x",
                                   soname(), name, CUBLAS_VER_MAJOR));
  out = reinterpret_cast<F>(p);
}

CublasLibrary load() {
  void* const library = open_library(); // kept open for the process, as the handles made with it
  CublasLibrary api;
  bind(library, CHUNKED_CUBLAS_SYMBOL(cublasCreate), api.create);
  bind(library, CHUNKED_CUBLAS_SYMBOL(cublasSetStream), api.set_stream);
  bind(library, CHUNKED_CUBLAS_SYMBOL(cublasSetWorkspace), api.set_workspace);
  bind(library, CHUNKED_CUBLAS_SYMBOL(cublasGetStatusString), api.status_string);
  bind(library, CHUNKED_CUBLAS_SYMBOL(cublasDgemm_64), api.dgemm);
  bind(library, CHUNKED_CUBLAS_SYMBOL(cublasSgemm_64), api.sgemm);
  bind(library, CHUNKED_CUBLAS_SYMBOL(cublasDgemmStridedBatched_64), api.dgemm_batched);
  bind(library, CHUNKED_CUBLAS_SYMBOL(cublasSgemmStridedBatched_64), api.sgemm_batched);
  return api;
}

} // namespace

const CublasLibrary& cublas() {
  // A failed open throws, and the next call tries again; a loaded table is never destroyed.
  static const CublasLibrary& api = *new CublasLibrary(load());
  return api;
}

} // namespace chunked::cuda
