// SPDX-License-Identifier: Apache-2.0
// cuBLAS, opened at its first use rather than linked: loading cuBLAS (with cuBLASLt, over half a
// gigabyte) costs every process most of a second before main, GPU or not, and only matrix
// products on a GPU use it.
#pragma once

#include <cublas_v2.h>

namespace chunked::cuda {

/// The cuBLAS entry points the library calls, each the function cublas_v2.h names.
struct CublasLibrary {
  decltype(&cublasCreate) create = nullptr;
  decltype(&cublasSetStream) set_stream = nullptr;
  decltype(&cublasSetWorkspace) set_workspace = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
  decltype(&cublasDgemm_64) dgemm = nullptr;
  decltype(&cublasSgemm_64) sgemm = nullptr;
  decltype(&cublasDgemmStridedBatched_64) dgemm_batched = nullptr;
  decltype(&cublasSgemmStridedBatched_64) sgemm_batched = nullptr;
};

/// cuBLAS of the major version the library was built with, opened on the first call (by the
/// dynamic loader's search, then beside the CUDA runtime the library uses) and kept for the
/// process. BackendError naming the file when it cannot be opened or lacks an entry point.
const CublasLibrary& cublas();

} // namespace chunked::cuda
