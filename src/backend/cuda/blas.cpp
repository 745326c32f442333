// SPDX-License-Identifier: Apache-2.0
// Products of blocks with cuBLAS (blas.hpp). cuBLAS is column-major: a row-major (m, n) matrix is
// the column-major (n, m) transpose, so row-major C = A @ B is column-major C^T = B^T @ A^T, one
// call with the operands swapped and nothing transposed. The 64-bit-index entry points take
// blocks of any size.
#include "backend/cuda/blas.hpp"
#include "backend/cuda/cublas_library.hpp"
#include "backend/cuda/runtime.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <type_traits>
#include <utility>

namespace chunked::cuda {

namespace {

/// A cuBLAS handle per (device, stream), made on first use and kept for the process (like the
/// streams themselves, never destroyed: CUDA objects must not be released after the driver has
/// shut down at exit). A handle is used by one thread at a time: its mutex is held from setting
/// its stream and workspace to the enqueued call.
struct Handle {
  cublasHandle_t handle = nullptr;
  std::mutex mutex;
};

void check_blas(cublasStatus_t status, int device, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw BackendError(fmt::format("Cuda backend: cuBLAS failed {} on device {}: {}", what, device,
                                   cublas().status_string(status)));
}

Handle& handle_for(int device, cudaStream_t stream) {
  static std::mutex mutex;
  static auto* handles = new std::map<std::pair<int, cudaStream_t>, Handle>();
  std::lock_guard lock(mutex);
  Handle& h = (*handles)[{device, stream}];
  if (!h.handle) {
    // Its default math mode: float products in float (no TF32 unless the user sets
    // NVIDIA_TF32_OVERRIDE=1), double ones on the FP64 tensor cores, which round as IEEE fmas.
    check_blas(cublas().create(&h.handle), device, "to start (cublasCreate)");
  }
  return h;
}

template <class T>
cublasStatus_t gemm(cublasHandle_t h, const plan::ProductShape& s, const T* a, const T* b, T* c) {
  const T one = 1, beta = s.accumulate ? T(1) : T(0);
  if constexpr (std::is_same_v<T, double>) {
    if (s.batch == 1)
      return cublas().dgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, b, s.n, a, s.k, &beta,
                            c, s.n);
    return cublas().dgemm_batched(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, b, s.n,
                                  s.k * s.n, a, s.k, s.m * s.k, &beta, c, s.n, s.m * s.n, s.batch);
  } else {
    if (s.batch == 1)
      return cublas().sgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, b, s.n, a, s.k, &beta,
                            c, s.n);
    return cublas().sgemm_batched(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, b, s.n,
                                  s.k * s.n, a, s.k, s.m * s.k, &beta, c, s.n, s.m * s.n, s.batch);
  }
}

} // namespace

void multiply_blocks(int device, cudaStream_t stream, void* workspace, DType dtype,
                     const plan::ProductShape& s, const void* a, const void* b, void* c) {
  if (s.m == 0 || s.n == 0 || s.batch == 0)
    return;
  if (s.k == 0) {
    if (!s.accumulate)
      CHUNKED_CUDA_TRY(
          cudaMemsetAsync(c, 0, static_cast<std::size_t>(s.batch * s.m * s.n) * dtype_size(dtype),
                          stream),
          device, "(zeros of an empty product)");
    return;
  }
  Handle& h = handle_for(device, stream);
  std::lock_guard lock(h.mutex);
  check_blas(cublas().set_stream(h.handle, stream), device, "to set its stream");
  check_blas(cublas().set_workspace(h.handle, workspace, blas_workspace_bytes), device,
             "to set its workspace");
  const cublasStatus_t status = dtype == DType::float64
                                    ? gemm(h.handle, s, static_cast<const double*>(a),
                                           static_cast<const double*>(b), static_cast<double*>(c))
                                    : gemm(h.handle, s, static_cast<const float*>(a),
                                           static_cast<const float*>(b), static_cast<float*>(c));
  check_blas(status, device, "to multiply blocks");
}

} // namespace chunked::cuda
