// SPDX-License-Identifier: Apache-2.0
// Annotation macros that let one function body compile for the host and for CUDA devices.
#pragma once

// This header must stay free of includes: NVRTC compiles it with no standard library at all.

/// `__host__ __device__` when the translation unit is compiled by nvcc or NVRTC, else nothing.
/// Functions marked with it are callable from CPU code and from CUDA kernels alike.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CHUNKED_HD __host__ __device__
#define CHUNKED_DEVICE __device__
#else
#define CHUNKED_HD
#define CHUNKED_DEVICE
#endif

/// An inline function the compiler should always inline (small hot helpers of the kernels).
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CHUNKED_FORCEINLINE __forceinline__
#elif defined(__GNUC__) || defined(__clang__)
#define CHUNKED_FORCEINLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define CHUNKED_FORCEINLINE __forceinline
#else
#define CHUNKED_FORCEINLINE inline
#endif

/// Defined to 1 while compiling device code (nvcc's device pass or NVRTC), where CUDA's own math
/// functions and intrinsics replace the host implementations.
#if defined(__CUDA_ARCH__)
#define CHUNKED_DEVICE_CODE 1
#else
#define CHUNKED_DEVICE_CODE 0
#endif

/// Defined to 1 under NVRTC, where no standard header can be included.
#if defined(__CUDACC_RTC__)
#define CHUNKED_RTC 1
#else
#define CHUNKED_RTC 0
#endif
